#include "ui/imatrix/ColumnErrorView.h"

#include "ui/common/JobProgressBar.h"
#include "ui/common/PlotReadout.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <qcustomplot.h>

namespace {

QCPGraph* stepGraph(QCustomPlot* plot, QCPAxis* valueAxis, const QColor& colour)
{
    QCPGraph* graph = plot->addGraph(plot->xAxis, valueAxis);
    graph->setLineStyle(QCPGraph::lsStepCenter);
    graph->setPen(QPen(colour));
    return graph;
}

void setValues(QCPGraph* graph, const std::vector<double>& values)
{
    QVector<double> keys(static_cast<qsizetype>(values.size()));
    QVector<double> heights(keys.size());
    for (qsizetype i = 0; i < keys.size(); ++i) {
        keys[i] = static_cast<double>(i);
        heights[i] = std::isfinite(values[static_cast<std::size_t>(i)]) ? values[static_cast<std::size_t>(i)] : 0.0;
    }
    graph->setData(keys, heights, true);
}

double largest(const std::vector<double>& values)
{
    double top = 0.0;
    for (double v : values)
        if (std::isfinite(v))
            top = std::max(top, v);
    return top > 0.0 ? top * 1.05 : 1.0;
}

}  // namespace

ColumnErrorView::ColumnErrorView(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_importancePlot(new QCustomPlot(this)), m_errorPlot(new QCustomPlot(this)),
      m_list(new QListWidget(this))
{
    setObjectName(QStringLiteral("columnErrorView"));
    m_summary->setObjectName(QStringLiteral("columnErrorSummary"));
    m_summary->setWordWrap(true);
    m_importancePlot->setObjectName(QStringLiteral("columnImportancePlot"));
    m_errorPlot->setObjectName(QStringLiteral("columnErrorPlot"));
    m_list->setObjectName(QStringLiteral("columnErrorList"));
    m_list->setMaximumWidth(320);
    m_importance = stepGraph(m_importancePlot, m_importancePlot->yAxis, QColor(30, 90, 170));
    m_importance->setBrush(QColor(40, 110, 200, 90));
    m_importancePlot->yAxis->setLabel(tr("importance"));
    m_importancePlot->xAxis->setTickLabels(false);
    m_error = stepGraph(m_errorPlot, m_errorPlot->yAxis, QColor(120, 120, 120));
    m_error->setName(tr("mean squared error"));
    m_weighted = stepGraph(m_errorPlot, m_errorPlot->yAxis2, QColor(200, 60, 30));
    m_weighted->setName(tr("weighted error (w × squared error)"));
    m_errorPlot->yAxis->setLabel(tr("mean squared error"));
    m_errorPlot->yAxis2->setVisible(true);
    m_errorPlot->yAxis2->setLabel(tr("weighted error"));
    m_errorPlot->xAxis->setLabel(tr("input column (ne[0])"));
    m_errorPlot->legend->setVisible(true);
    for (QCustomPlot* plot : {m_importancePlot, m_errorPlot}) {
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        plot->axisRect()->setRangeZoom(Qt::Horizontal);
        plot->axisRect()->setRangeDrag(Qt::Horizontal);
    }
    // Either plot reads out all three figures of the input column under the pointer.
    for (QCustomPlot* plot : {m_importancePlot, m_errorPlot})
        plotreadout::install(plot, [this](const plotreadout::Pointer& at) { return columnReadout(at.x); });
    // One column axis: zooming either plot moves both.
    connect(m_importancePlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& r) {
        if (m_errorPlot->xAxis->range() != r) {
            m_errorPlot->xAxis->setRange(r);
            m_errorPlot->replot(QCustomPlot::rpQueuedReplot);
        }
    });
    connect(m_errorPlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& r) {
        if (m_importancePlot->xAxis->range() != r) {
            m_importancePlot->xAxis->setRange(r);
            m_importancePlot->replot(QCustomPlot::rpQueuedReplot);
        }
    });
    auto* plots = new QVBoxLayout;
    plots->addWidget(m_importancePlot, 1);
    plots->addWidget(m_errorPlot, 2);
    auto* row = new QHBoxLayout;
    row->addLayout(plots, 1);
    row->addWidget(m_list);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(row, 1);
    m_summary->setText(tr("Choose a tensor of a comparison"));
}

QString ColumnErrorView::columnReadout(double x) const
{
    if (!m_profile)
        return {};
    const gguf::ColumnErrorProfile& p = *m_profile;
    const double at = std::round(x);
    if (!(at >= 0.0 && at < static_cast<double>(p.squaredError.size())))
        return {};
    const auto j = static_cast<std::size_t>(at);
    QString text = tr("input column %1\nmean squared error: %2").arg(j).arg(
        plotreadout::number(p.valuesPerColumn ? p.squaredError[j] / static_cast<double>(p.valuesPerColumn) : 0.0, false));
    if (j < p.importance.size())
        text += tr("\nimportance: %1").arg(plotreadout::number(p.importance[j]));
    if (j < p.weightedError.size())
        text += tr("\nweighted error: %1").arg(plotreadout::number(p.weightedError[j], false));
    return text;
}

QString ColumnErrorView::summaryText() const
{
    return m_summary->text();
}

void ColumnErrorView::showPlaceholder(const QString& why)
{
    m_jobs.renew();
    m_profile.reset();
    for (QCPGraph* graph : {m_importance, m_error, m_weighted})
        graph->data()->clear();
    m_importancePlot->replot(QCustomPlot::rpQueuedReplot);
    m_errorPlot->replot(QCustomPlot::rpQueuedReplot);
    m_list->clear();
    m_summary->setText(why);
}

void ColumnErrorView::setCell(std::shared_ptr<const gguf::ModelComparison> comparison, std::size_t row, std::size_t column,
                              std::optional<std::size_t> expert)
{
    m_jobs.renew();
    m_profile.reset();
    m_comparison = std::move(comparison);
    m_summary->setText(tr("Computing the error per column…"));
    BackgroundJob* job = m_jobs.run(
        [comparison = m_comparison, row, column, expert](const JobControl& control) {
            return gguf::computeColumnErrorProfile(*comparison, row, column, expert, control.cancelFlag());
        },
        [this](gguf::ColumnErrorProfile profile) {
            m_profile = std::move(profile);
            display();
            emit profileReady();
        },
        [this](const JobOutcome& outcome) {
            m_summary->setText(outcome.isCancelled() ? tr("Cancelled") : tr("Could not compute: %1").arg(outcome.message()));
            if (outcome.isCancelled())
                emit profileCancelled();
        });
    if (m_progress)
        m_progress->track(job, tr("Error per input column"));
}

void ColumnErrorView::display()
{
    const gguf::ColumnErrorProfile& p = *m_profile;
    const std::size_t columns = p.squaredError.size();
    std::vector<double> mse(columns);
    for (std::size_t j = 0; j < columns; ++j)
        mse[j] = p.valuesPerColumn ? p.squaredError[j] / static_cast<double>(p.valuesPerColumn) : 0.0;
    std::vector<double> importance(p.importance.begin(), p.importance.end());
    setValues(m_importance, importance);
    setValues(m_error, mse);
    setValues(m_weighted, p.weightedError);
    m_importancePlot->yAxis->setRange(0.0, largest(importance));
    m_errorPlot->yAxis->setRange(0.0, largest(mse));
    m_errorPlot->yAxis2->setRange(0.0, largest(p.weightedError));
    m_importancePlot->xAxis->setRange(-0.5, static_cast<double>(columns) - 0.5);
    m_errorPlot->xAxis->setRange(-0.5, static_cast<double>(columns) - 0.5);
    m_importancePlot->replot(QCustomPlot::rpQueuedReplot);
    m_errorPlot->replot(QCustomPlot::rpQueuedReplot);

    m_list->clear();
    const std::string name(m_comparison->rows()[p.row].reference->name);
    const QString tensor = QString::fromStdString(name) + (p.expert ? tr(" · expert %1").arg(*p.expert) : QString());
    if (p.weightedError.empty()) {
        m_summary->setText(tr("%1: error per input column (no importance for this tensor)").arg(tensor));
        return;
    }
    // How much of the weighted error sits in the most important tenth of the columns.
    std::vector<std::size_t> byImportance(columns);
    std::iota(byImportance.begin(), byImportance.end(), std::size_t{0});
    std::sort(byImportance.begin(), byImportance.end(), [&](std::size_t a, std::size_t b) { return importance[a] > importance[b]; });
    const std::size_t tenth = std::max<std::size_t>(1, columns / 10);
    double topError = 0.0, topWeighted = 0.0, topImportance = 0.0;
    const double totalError = std::accumulate(p.squaredError.begin(), p.squaredError.end(), 0.0);
    const double totalWeighted = std::accumulate(p.weightedError.begin(), p.weightedError.end(), 0.0);
    const double totalImportance = std::accumulate(importance.begin(), importance.end(), 0.0);
    for (std::size_t k = 0; k < tenth; ++k) {
        topError += p.squaredError[byImportance[k]];
        topWeighted += p.weightedError[byImportance[k]];
        topImportance += importance[byImportance[k]];
    }
    auto percent = [](double part, double whole) { return whole > 0.0 ? 100.0 * part / whole : 0.0; };
    m_summary->setText(tr("%1: the most important %2 of %3 columns hold %4% of the importance, %5% of the squared error and %6% of "
                          "the weighted error")
                           .arg(tensor)
                           .arg(tenth)
                           .arg(columns)
                           .arg(percent(topImportance, totalImportance), 0, 'f', 1)
                           .arg(percent(topError, totalError), 0, 'f', 1)
                           .arg(percent(topWeighted, totalWeighted), 0, 'f', 1));
    std::vector<std::size_t> byWeighted(columns);
    std::iota(byWeighted.begin(), byWeighted.end(), std::size_t{0});
    const std::size_t n = std::min<std::size_t>(kListedColumns, columns);
    std::partial_sort(byWeighted.begin(), byWeighted.begin() + static_cast<std::ptrdiff_t>(n), byWeighted.end(), [&](std::size_t a, std::size_t b) {
        return p.weightedError[a] > p.weightedError[b] || (p.weightedError[a] == p.weightedError[b] && a < b);
    });
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t j = byWeighted[k];
        m_list->addItem(tr("column %1: %2% of weighted error, %3% of importance, %4% of error")
                            .arg(j)
                            .arg(percent(p.weightedError[j], totalWeighted), 0, 'f', 2)
                            .arg(percent(importance[j], totalImportance), 0, 'f', 2)
                            .arg(percent(p.squaredError[j], totalError), 0, 'f', 2));
    }
}
