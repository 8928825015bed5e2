#pragma once
// The dequantized matrix as a heatmap (see ZoomableMatrixView): cells reduced while dequantizing
// with a chosen aggregate, kept in the result cache; a click names the weight under the mouse.

#include "ui/common/ZoomableMatrixView.h"
#include "ui/session/SliceRef.h"

class HeatmapView : public ZoomableMatrixView {
    Q_OBJECT
public:
    HeatmapView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setSlice(const SliceRef& slice);

signals:
    void cellClicked(std::uint64_t row, std::uint64_t column);

protected:
    gguf::HeatmapRegion extent() const override;
    BandWork bandWork() const override;
    QString jobDescription() const override;
    QString cacheKey(const gguf::HeatmapGrid& grid) const override;
    QString allZeroText() const override;
    QString hoverText(CellSpan rows, CellSpan columns, float value) const override;
    std::uint64_t bytesToFetch(const gguf::HeatmapRegion& region) const override;

private:
    SliceRef m_slice;
};
