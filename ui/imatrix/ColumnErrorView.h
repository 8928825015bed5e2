#pragma once
// One tensor of a comparison, per input column: the importance (what the calibration says the
// column matters) above the error the other side made in it (mean squared error, and the
// importance-weighted error), on one shared column axis, with the columns that carry the most
// weighted error listed, so a person sees whether the error landed where it matters. Computed on
// the job pool (computeColumnErrorProfile reads the whole tensor once).

#include "core/compare/ColumnErrorProfile.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>
#include <optional>

class JobProgressBar;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QListWidget;

class ColumnErrorView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kListedColumns = 16;

    explicit ColumnErrorView(QWidget* parent = nullptr);
    // Cell (row, column) of `comparison`; `expert` nullopt: all experts of a 3-D tensor.
    void setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column,
                 std::optional<std::size_t> expert = std::nullopt);
    // Nothing to show: drops the profile (and a computation under way) and says `why`.
    void showPlaceholder(const QString& why);
    // Where the computation shows, with its Cancel button (e.g. the compare page's bar); may be null.
    void setProgressBar(JobProgressBar* progress) { m_progress = progress; }

    const std::optional<gguf::ColumnErrorProfile>& profile() const { return m_profile; }
    QCustomPlot* importancePlot() const { return m_importancePlot; }
    QCustomPlot* errorPlot() const { return m_errorPlot; }
    QListWidget* columnList() const { return m_list; }
    QString summaryText() const;
    bool isComputing() const { return m_jobs.isRunning(); }

signals:
    void profileReady();
    // The computation of the current cell was cancelled: nothing is shown.
    void profileCancelled();

private:
    void display();
    // The hover readout of the input column at x: its error, importance and weighted error.
    QString columnReadout(double x) const;

    JobRunner m_jobs{this};
    JobProgressBar* m_progress = nullptr;
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    std::optional<gguf::ColumnErrorProfile> m_profile;
    QLabel* m_summary;
    QCustomPlot* m_importancePlot;
    QCustomPlot* m_errorPlot;
    QCPGraph* m_importance;
    QCPGraph* m_error;
    QCPGraph* m_weighted;
    QListWidget* m_list;
};
