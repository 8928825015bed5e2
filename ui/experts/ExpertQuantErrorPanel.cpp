#include "ui/experts/ExpertQuantErrorPanel.h"

#include "ui/common/PlotPalette.h"
#include "ui/experts/ExpertQuantErrorChart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <qcustomplot.h>

ExpertQuantErrorPanel::ExpertQuantErrorPanel(const QList<QWidget*>& leadingControls, QWidget* parent)
    : QWidget(parent), m_metric(new QComboBox(this)), m_message(new QLabel(this)), m_model(new ExpertQuantErrorModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)), m_plot(new QCustomPlot(this))
{
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this]() {
        m_model->setMetric(static_cast<ExpertQuantErrorModel::Metric>(m_metric->currentData().toInt()));
        updateChart();
    });
    m_message->setWordWrap(true);

    m_proxy->setSourceModel(m_model);
    // By value, not by the text shown: "1.2e-05" must sort below "3.4e-04".
    m_proxy->setSortRole(ExpertQuantErrorModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    followPalette(m_plot);
    setUpExpertQuantErrorPlot(m_plot);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ExpertQuantErrorPanel::updateChart);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ExpertQuantErrorPanel::updateChart);

    auto* controls = new QHBoxLayout;
    for (QWidget* control : leadingControls)
        controls->addWidget(control);
    controls->addWidget(new QLabel(tr("Metric:"), this));
    controls->addWidget(m_metric);
    controls->addStretch(1);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_plot);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({420, 640});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_message);
    layout->addWidget(splitter, 1);
}

void ExpertQuantErrorPanel::updateChart()
{
    plotExpertQuantError(m_plot, *m_model, m_brushes);
}

void ExpertQuantErrorPanel::setColumnBrushes(const QList<QBrush>& brushes)
{
    m_brushes = brushes;
    updateChart();
}
