#pragma once
// Value histogram (linear or log counts) and the statistics panel of a tensor or expert.

#include "ui/session/SliceRef.h"
#include "core/analysis/Statistics.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>
#include <optional>

class QCheckBox;
class QCustomPlot;
class QCPBars;
class QLabel;
class BackgroundJob;
class JobProgressBar;
class PlotPlaceholder;

class DistributionView : public QWidget {
    Q_OBJECT
public:
    DistributionView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setSlice(const SliceRef& slice);
    QCustomPlot* plot() const { return m_plot; }
    const std::optional<gguf::SliceStatistics>& result() const { return m_result; }
    // What covers the plot while it has nothing to show; empty when the histogram is shown.
    QString placeholderText() const;

signals:
    void statisticsReady();

private:
    void display();
    // The hover readout of the bin at value x: its edges and its count.
    QString binReadout(double x) const;

    JobProgressBar* m_progress;
    QCustomPlot* m_plot;
    QCPBars* m_bars;
    QCheckBox* m_logScale;
    QLabel* m_summary;
    JobRunner m_jobs{this};
    std::optional<gguf::SliceStatistics> m_result;
    SliceRef m_slice;
    PlotPlaceholder* m_placeholder;
    const void* m_fetchApprovedFor = nullptr;  // the slice (its first byte) the user said to fetch
};
