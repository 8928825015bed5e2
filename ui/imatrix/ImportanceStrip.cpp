#include "ui/imatrix/ImportanceStrip.h"

#include "core/imatrix/ColumnImportance.h"
#include "ui/common/MatrixPlot.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/common/PlotReadout.h"
#include "ui/tensor/HeatmapView.h"
#include "ui/tensor/TensorViewPage.h"

#include <QBoxLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

ImportanceStrip::ImportanceStrip(QWidget* parent)
    : QWidget(parent), m_status(new QLabel(this)), m_plot(new QCustomPlot(this)), m_top(new QListWidget(this))
{
    setObjectName(QStringLiteral("importanceStrip"));
    m_status->setObjectName(QStringLiteral("importanceStatus"));
    m_plot->setObjectName(QStringLiteral("importancePlot"));
    m_placeholder = new PlotPlaceholder(m_plot);
    m_top->setObjectName(QStringLiteral("importanceTopColumns"));
    m_top->setToolTip(tr("The input columns with the highest importance and their share of the tensor's total"));
    // Below the plot, not beside it: the plot must be as wide as the heatmap to share its columns.
    m_top->setFlow(QListView::LeftToRight);
    m_top->setWrapping(true);
    m_top->setMaximumHeight(52);
    m_plot->setMinimumHeight(110);
    m_graph = m_plot->addGraph();
    m_graph->setLineStyle(QCPGraph::lsStepCenter);
    m_graph->setBrush(QColor(40, 110, 200, 90));
    m_graph->setPen(QPen(QColor(30, 90, 170)));
    m_plot->yAxis->setLabel(tr("importance"));
    // Until it follows a heatmap: its own numbered column axis, zoomed and dragged sideways only
    // (the importance axis rescales to the values).
    m_plot->xAxis->setLabel(tr("input column"));
    setWholeNumberTicks(m_plot->xAxis);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    // The input column under the pointer and its importance, from the values drawn.
    plotreadout::install(m_plot, [this](const plotreadout::Pointer& at) -> QString {
        const double column = std::round(at.x);
        if (!(column >= 0.0 && column < static_cast<double>(m_values.size())))
            return {};
        return tr("input column %1\nimportance: %2").arg(static_cast<std::size_t>(column)).arg(plotreadout::number(m_values[static_cast<std::size_t>(column)]));
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_status);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_top);
    showTensor(nullptr, std::nullopt);
}

void ImportanceStrip::followColumnAxis(QCustomPlot* heatmapPlot)
{
    // The heatmap above numbers the columns and takes the mouse: the strip only follows it.
    m_followsHeatmap = true;
    m_plot->xAxis->setTickLabels(false);
    m_plot->xAxis->setLabel(QString());
    m_plot->setInteractions(QCP::Interactions());
    m_plot->xAxis->setRange(heatmapPlot->xAxis->range());
    connect(heatmapPlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& range) {
        m_plot->xAxis->setRange(range);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    // The heatmap's colour bar takes room at the right: match its plot area's left and right
    // edges, so both plots map a column to the same pixels.
    connect(heatmapPlot, &QCustomPlot::afterReplot, this, [this, heatmapPlot]() { alignWith(heatmapPlot); });
    alignWith(heatmapPlot);
}

void ImportanceStrip::alignWith(QCustomPlot* heatmapPlot)
{
    const QRect area = heatmapPlot->axisRect()->rect();
    if (area.width() <= 0)
        return;
    // Both plots are as wide as the view holding them; the strip's plot starts and ends where
    // the heatmap's plot area does (its right margin holds the heatmap's colour bar).
    const int left = area.left() + heatmapPlot->mapTo(window(), QPoint(0, 0)).x() - m_plot->mapTo(window(), QPoint(0, 0)).x();
    const int right = std::max(0, (m_plot->mapTo(window(), QPoint(m_plot->width(), 0)).x())
                                      - (heatmapPlot->mapTo(window(), QPoint(area.right() + 1, 0)).x()));
    const QMargins wanted(left, 6, right, 6);
    if (m_plot->axisRect()->autoMargins() != QCP::msNone || m_plot->axisRect()->margins() != wanted) {
        m_plot->axisRect()->setAutoMargins(QCP::msNone);
        m_plot->axisRect()->setMargins(wanted);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void ImportanceStrip::setImatrix(std::shared_ptr<const LoadedImatrix> imatrix)
{
    m_imatrix = std::move(imatrix);
}

QString ImportanceStrip::statusText() const
{
    return m_status->text();
}

QString ImportanceStrip::placeholderText() const
{
    return m_placeholder->text();
}

void ImportanceStrip::showTensor(const gguf::TensorInfo* tensor, std::optional<std::size_t> expert)
{
    m_values.clear();
    m_top->clear();
    const gguf::ImportanceEntry* entry = m_imatrix && tensor ? m_imatrix->matrix->find(tensor->name) : nullptr;
    if (!m_imatrix) {
        m_status->setText(tr("No importance matrix: File › Open Importance Matrix…"));
    } else if (!tensor) {
        m_status->setText(tr("Importance: choose a tensor"));
    } else if (!entry) {
        m_status->setText(tr("Importance: %1 has no entry in %2 (quantized without importance)")
                              .arg(QString::fromUtf8(tensor->name.data(), static_cast<qsizetype>(tensor->name.size())),
                                   QString::fromStdString(m_imatrix->matrix->path())));
    } else if (entry->columnCount() != static_cast<std::size_t>(tensor->ne[0])) {
        m_status->setText(tr("Importance: the entry has %1 columns, the tensor %2").arg(entry->columnCount()).arg(tensor->ne[0]));
    } else {
        showEntry(*entry, expert);
        return;
    }
    plotValues();
}

void ImportanceStrip::showEntry(const gguf::ImportanceEntry& entry, std::optional<std::size_t> expert)
{
    m_top->clear();
    m_values = gguf::columnImportance(entry, expert ? *expert : gguf::kAllExperts);
    QString scope = expert ? tr("expert %1").arg(*expert) : (entry.expertCount() > 1 ? tr("all experts pooled") : QString());
    if (expert && entry.routingKnown() && *expert < entry.counts.size() && !(entry.counts[*expert] > 0.0f))
        scope += tr(" — never routed during calibration: llama-quantize used weight 1");
    m_status->setText(tr("Importance per input column (mean squared activation, as llama-quantize weighs it)%1")
                          .arg(scope.isEmpty() ? QString() : QStringLiteral(": ") + scope));
    for (const gguf::ImportantColumn& column : gguf::topColumns(m_values, kTopColumns))
        m_top->addItem(tr("column %1: %2 (%3%)")
                           .arg(column.column)
                           .arg(static_cast<double>(column.importance), 0, 'g', 4)
                           .arg(column.shareOfTotal * 100.0, 0, 'f', 1));
    plotValues();
}

void ImportanceStrip::plotValues()
{
    QVector<double> keys(static_cast<qsizetype>(m_values.size()));
    QVector<double> heights(keys.size());
    double top = 0.0;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        keys[i] = static_cast<double>(i);
        heights[i] = std::isfinite(m_values[static_cast<std::size_t>(i)]) ? m_values[static_cast<std::size_t>(i)] : 0.0;
        top = std::max(top, heights[i]);
    }
    m_graph->setData(keys, heights, true);
    // Without values the strip says why in words over the plot, not as empty axes.
    if (m_values.empty())
        m_placeholder->show(m_status->text());
    else
        m_placeholder->hide();
    m_plot->yAxis->setRange(0.0, top > 0.0 ? top * 1.05 : 1.0);
    if (!m_followsHeatmap)
        m_plot->xAxis->setRange(-0.5, std::max<double>(static_cast<double>(keys.size()), 1.0) - 0.5);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

ImportanceStrip* attachImportanceStrip(TensorViewPage* page, std::shared_ptr<const LoadedImatrix> imatrix)
{
    HeatmapView* heatmap = page->heatmap();
    auto* strip = heatmap->findChild<ImportanceStrip*>(QStringLiteral("importanceStrip"));
    if (!strip) {
        strip = new ImportanceStrip(heatmap);
        if (auto* layout = qobject_cast<QBoxLayout*>(heatmap->layout()))
            layout->addWidget(strip);
        strip->followColumnAxis(heatmap->plot());
        // Whenever the page shows another tensor or expert its heatmap is recomputed: follow it.
        QObject::connect(heatmap, &ZoomableMatrixView::heatmapReady, strip, [strip, page]() {
            const SliceRef& slice = page->slice();
            if (!slice.slice.tensor)
                return;
            const std::optional<std::size_t> expert = slice.expert ? std::optional<std::size_t>(*slice.expert) : std::nullopt;
            if (strip->property("shownKey").toString() != slice.cacheKey()) {
                strip->setProperty("shownKey", slice.cacheKey());
                strip->showTensor(slice.slice.tensor, expert);
            }
        });
    }
    strip->setImatrix(std::move(imatrix));
    strip->setProperty("shownKey", page->slice().cacheKey());
    const SliceRef& slice = page->slice();
    strip->showTensor(slice.slice.tensor, slice.expert ? std::optional<std::size_t>(*slice.expert) : std::nullopt);
    return strip;
}
