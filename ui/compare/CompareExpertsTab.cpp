#include "ui/compare/CompareExpertsTab.h"

#include "ui/common/PlotExportMenu.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/common/StartWhenShown.h"
#include "ui/compare/ComparisonColumnStyle.h"
#include "ui/experts/ExpertQuantErrorPanel.h"
#include "ui/session/ComparisonColumnTitle.h"

#include <QComboBox>
#include <QLabel>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

CompareExpertsTab::CompareExpertsTab(QWidget* parent)
    : QWidget(parent), m_panel(new ExpertQuantErrorPanel({}, this)), m_startWhenShown(new StartWhenShown(this, [this]() { runPlainFigures(); }))
{
    setObjectName(QStringLiteral("compareExpertsTab"));
    using Metric = ExpertQuantErrorModel::Metric;
    QComboBox* metrics = m_panel->metricCombo();
    metrics->setObjectName(QStringLiteral("compareExpertMetricCombo"));
    // Per-expert figures exist only with an importance matrix, so the weighted ones come first.
    for (const Metric metric : {Metric::RelativeWeightedError, Metric::WeightedSquaredError, Metric::RelativeRmse, Metric::Rmse,
                                Metric::SqnrDb, Metric::MaxAbsError, Metric::CosineSimilarity})
        metrics->addItem(ExpertQuantErrorModel::metricName(metric), static_cast<int>(metric));
    m_panel->model()->setMetric(Metric::RelativeWeightedError);
    m_panel->message()->setObjectName(QStringLiteral("compareExpertMessage"));
    m_panel->table()->setObjectName(QStringLiteral("compareExpertTable"));
    m_panel->plot()->setObjectName(QStringLiteral("compareExpertPlot"));
    m_placeholder = new PlotPlaceholder(m_panel->plot());
    addPlotExport(m_panel->plot(), [this]() {
        if (!m_comparison || !m_row)
            return tr("Error per expert");
        const gguf::TensorInfo& tensor = *m_comparison->rows()[*m_row].reference;
        return tr("%1 per expert of %2: %3")
            .arg(m_panel->metricCombo()->currentText(), QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size())),
                 comparisonSubject(*m_comparison));
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_panel);
    refresh();
}

void CompareExpertsTab::setComparison(std::shared_ptr<const gguf::ModelComparison> comparison)
{
    m_comparison = std::move(comparison);
    m_results.reset();
    m_row.reset();
    m_plainRow.reset();
    m_plain.reset();
    m_plainJobs.renew();
    refresh();
}

void CompareExpertsTab::setResults(std::shared_ptr<const gguf::ComparisonResults> results)
{
    m_results = std::move(results);
    if (m_comparison && m_comparison->importance())  // the plain figures do not come from the run
        refresh();
}

void CompareExpertsTab::setTensorRow(std::size_t row)
{
    if (!m_comparison || row >= m_comparison->rows().size())
        return;
    m_row = row;
    refresh();
}

QString CompareExpertsTab::messageText() const
{
    return m_panel->message()->text();
}

// The words go both above the table and over the chart, which would otherwise be empty axes.
void CompareExpertsTab::showEmpty(const QString& why)
{
    m_panel->message()->setText(why);
    m_placeholder->show(why);
}

QString CompareExpertsTab::placeholderText() const
{
    return m_placeholder->text();
}

QStringList CompareExpertsTab::columnLabels()
{
    QStringList labels;
    QList<QBrush> brushes;
    for (std::size_t c = 0; c < m_comparison->columns().size(); ++c) {
        labels << comparisonColumnTitle(*m_comparison, c);
        brushes << comparisonColumnBrush(*m_comparison, c);
    }
    m_panel->setColumnBrushes(brushes);
    return labels;
}

void CompareExpertsTab::refresh()
{
    if (m_comparison && !m_comparison->importance() && m_row && m_plainRow == m_row)
        return;  // its plain figures are shown, or on their way
    m_plainJobs.cancel();  // another tensor's: its end is not shown
    m_plainJobs.renew();
    m_startWhenShown->drop();
    m_plain.reset();
    m_plainRow.reset();
    m_panel->model()->reset(0, {});
    if (!m_comparison) {
        showEmpty(tr("The comparison could not be created, so there is no tensor to show."));
        return;
    }
    if (!m_row) {
        showEmpty(tr("Select a tensor with experts in the Table tab to see each expert's error per compared column."));
        return;
    }
    const gguf::TensorInfo& tensor = *m_comparison->rows()[*m_row].reference;
    const QString name = QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
    const auto experts = static_cast<std::uint64_t>(tensor.ne[2]);
    if (experts < 2) {
        showEmpty(tr("%1 has no experts.").arg(name));
        return;
    }
    if (!m_comparison->importance()) {
        startPlainFigures(*m_row, experts, name);
        return;
    }
    if (!m_results) {
        showEmpty(tr("%1: each expert's figures come with the comparison's results.").arg(name));
        return;
    }
    const QStringList labels = columnLabels();
    const bool any = *m_row < m_results->expertCells.size()
                     && std::any_of(m_results->expertCells[*m_row].begin(), m_results->expertCells[*m_row].end(),
                                    [](const std::vector<gguf::ErrorMetrics>& cell) { return !cell.empty(); });
    if (!any) {
        showEmpty(tr("%1: the importance matrix has no entry that fits it, so no per-expert figures.").arg(name));
        return;
    }
    m_panel->model()->reset(experts, labels);
    for (std::size_t c = 0; c < static_cast<std::size_t>(labels.size()); ++c) {
        const std::vector<gguf::ErrorMetrics>& cell = m_results->expertCells[*m_row][c];
        for (std::size_t e = 0; e < cell.size() && e < experts; ++e)
            m_panel->model()->setMetrics(e, static_cast<int>(c), cell[e]);
    }
    m_placeholder->hide();
    m_panel->message()->setText(tr("%1: each expert's error per compared column, weighed by that expert's own importance row.").arg(name));
}

// The plain figures (no weights) of every expert of `row` against each column, other files
// included, computed as the Experts page computes them for simulated types.
void CompareExpertsTab::startPlainFigures(std::size_t row, std::uint64_t experts, const QString& name)
{
    using Metric = ExpertQuantErrorModel::Metric;
    m_plainRow = row;
    m_panel->model()->reset(experts, columnLabels());
    QComboBox* metrics = m_panel->metricCombo();
    const int weighted = static_cast<int>(Metric::RelativeWeightedError);
    if (metrics->currentData().toInt() == weighted || metrics->currentData().toInt() == static_cast<int>(Metric::WeightedSquaredError))
        metrics->setCurrentIndex(metrics->findData(static_cast<int>(Metric::Rmse)));
    m_placeholder->hide();
    m_panel->message()->setText(tr("%1: each expert's error per compared column is computed when this tab is shown…").arg(name));
    m_startWhenShown->request();  // reads the tensor in every file: only for a person looking
}

void CompareExpertsTab::runPlainFigures()
{
    if (!m_comparison || !m_plainRow)
        return;
    const std::size_t row = *m_plainRow;
    const gguf::TensorInfo& tensor = *m_comparison->rows()[row].reference;
    const QString name = QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
    m_panel->message()->setText(tr("%1: computing each expert's error per compared column…").arg(name));
    const ExpertQuantErrorJob started = startExpertQuantErrorJob(
        m_plainJobs, m_comparison, nullptr, nullptr,
        [this, name](const JobOutcome& outcome, bool) {
            collectPlainFigures();
            if (!outcome.isDone()) {
                m_panel->message()->setText(outcome.isCancelled() ? tr("Cancelled; showing the experts finished so far.") : outcome.message());
                if (outcome.isCancelled())
                    m_startWhenShown->requestOnNextShow();
                return;
            }
            m_panel->message()->setText(tr("%1: each expert's error per compared column (no importance matrix: unweighted figures).").arg(name));
        },
        row);
    m_plain = started.results;
    m_plainJobs.onChunkDone(started.job, [this]() { collectPlainFigures(); });
}

void CompareExpertsTab::collectPlainFigures()
{
    if (!m_plain)
        return;
    const int columns = m_panel->model()->typeColumnCount();
    if (columns <= 0)
        return;
    m_plain->takeNew([&](std::size_t slot, const gguf::ErrorMetrics& metrics) {
        m_panel->model()->setMetrics(slot / static_cast<std::size_t>(columns), static_cast<int>(slot % static_cast<std::size_t>(columns)), metrics);
    });
}
