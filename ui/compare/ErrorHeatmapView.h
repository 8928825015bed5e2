#pragma once
// The error of one comparison cell (column minus reference) as a heatmap (see
// ZoomableMatrixView), over gguf::reduceErrorHeatmapRows, on a scale centred on zero.

#include "core/compare/ModelComparison.h"
#include "ui/common/ZoomableMatrixView.h"

#include <memory>
#include <optional>

class ErrorHeatmapView : public ZoomableMatrixView {
    Q_OBJECT
public:
    ErrorHeatmapView(JobProgressBar* progress, QWidget* parent = nullptr);
    // `expert`: one expert's matrix of a 3-D expert tensor; without one, the whole tensor with
    // its expert boundaries marked.
    void setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column,
                 std::optional<std::uint64_t> expert = {});
    std::optional<std::uint64_t> expert() const { return m_expert; }
    // Rows of one expert of the current tensor, 0 when it is not an expert tensor.
    std::uint64_t rowsPerExpert() const;
    // What an export of the heatmap is titled: tensor, expert, aggregate, column and reference.
    QString exportTitle() const;

protected:
    gguf::HeatmapRegion extent() const override;
    BandWork bandWork() const override;
    QString jobDescription() const override;
    QString allZeroText() const override;
    QString hoverText(CellSpan rows, CellSpan columns, float value) const override;

private:
    bool hasCell() const;
    std::uint64_t errorHeatmapExtentRows() const;

    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::size_t m_row = 0;
    std::size_t m_column = 0;
    std::optional<std::uint64_t> m_expert;
};
