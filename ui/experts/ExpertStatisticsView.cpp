#include "ui/experts/ExpertStatisticsView.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotReadout.h"

#include "ui/session/ExpertStatisticsModel.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

ExpertStatisticsView::ExpertStatisticsView(ExpertStatisticsModel* model, QWidget* parent)
    : QWidget(parent), m_model(model), m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)), m_plot(new QCustomPlot(this))
{
    followPalette(m_plot);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ExpertStatisticsModel::SortRole);
    m_table->setObjectName(QStringLiteral("expertStatisticsTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ExpertStatisticsModel::ExpertColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    // Sized from a bounded sample of rows: a layer may hold 512 experts, each result a resize.
    m_table->horizontalHeader()->setResizeContentsPrecision(64);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QModelIndex source = m_proxy->mapToSource(index);
        if (source.isValid())
            emit openRequested(static_cast<std::uint64_t>(source.row()));
    });

    m_plot->setObjectName(QStringLiteral("expertRmsPlot"));
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars->setPen(Qt::NoPen);
    m_bars->setBrush(QColor(67, 147, 195));
    m_bars->setWidth(0.8);
    m_plot->xAxis->setLabel(tr("expert"));
    m_plot->yAxis->setLabel(tr("rms"));
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);  // integer experts, thinned when crowded
    m_plot->xAxis->setTicker(ticker);
    plotreadout::install(m_plot, [this](const plotreadout::Pointer& at) {
        return plotreadout::seriesAt(
            m_plot, at.x, [](const plotreadout::KeyedPoint& point) { return tr("expert %1").arg(std::llround(point.key)); },
            [](double rms) { return tr("rms of its values: %1").arg(plotreadout::number(rms)); });
    });

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_plot);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({640, 420});  // the table's eight columns fit without scrolling
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_model, &QAbstractItemModel::modelReset, this, &ExpertStatisticsView::updateChart);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ExpertStatisticsView::updateChart);
    updateChart();
}

void ExpertStatisticsView::updateChart()
{
    QVector<double> experts;
    QVector<double> rms;
    double peak = 0.0;
    for (std::uint64_t e = 0; e < m_model->expertCount(); ++e) {
        if (const auto& result = m_model->statistics(e); result && std::isfinite(result->statistics.rms)) {
            experts << static_cast<double>(e);
            rms << result->statistics.rms;
            peak = std::max(peak, result->statistics.rms);
        }
    }
    m_bars->setData(experts, rms, true);
    m_plot->xAxis->setRange(-0.75, std::max<double>(1.0, static_cast<double>(m_model->expertCount())) - 0.25);
    m_plot->yAxis->setRange(0.0, peak > 0.0 ? peak * 1.08 : 1.0);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}
