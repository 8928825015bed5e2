#include "ui/recipe/FrontierPlot.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/common/PlotReadout.h"

#include <QEvent>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kPointRadius = 5.0;   // the discs' half size in pixels, for overlaps and margins
constexpr double kTipDistance = 8.0;   // how near the mouse must be to a point for its tooltip

QCPGraph* addPoints(QCustomPlot* plot, const QString& name, const std::vector<FrontierPoint>& points, const QCPScatterStyle& style)
{
    auto* graph = plot->addGraph();
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(style);
    QVector<double> xs, ys;
    for (const FrontierPoint& p : points) {
        xs << p.bytes / kMiB;
        ys << p.value;
    }
    graph->setData(xs, ys);
    return graph;
}

}  // namespace

FrontierPlot::FrontierPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)), m_warning(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_plot->setObjectName(QStringLiteral("frontierPlot"));
    m_plot->setMinimumHeight(220);
    m_plot->xAxis->setLabel(tr("file size (MiB)"));
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    followPalette(m_plot);
    m_placeholder = new PlotPlaceholder(m_plot);
    m_warning->setObjectName(QStringLiteral("frontierWarning"));
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #b35c00"));
    m_warning->hide();
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_warning);
    m_plot->installEventFilter(this);
    // The shared readout (tool tip, Ctrl+C): the tip of the point near the pointer, as before.
    plotreadout::install(m_plot, [this](const plotreadout::Pointer& pointer) {
        return toolTipAt(QPointF(m_plot->xAxis->coordToPixel(pointer.x), m_plot->yAxis->coordToPixel(pointer.y)).toPoint());
    });
    m_placeholder->show(tr("No plan yet: enter a budget and press Plan."));
}

QString FrontierPlot::warningText() const
{
    return m_warning->isVisibleTo(this) ? m_warning->text() : QString();
}

QString FrontierPlot::placeholderText() const
{
    return m_placeholder->text();
}

void FrontierPlot::clear(const QString& reason)
{
    m_data = {};
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_labels.clear();
    m_budget = nullptr;
    m_warning->hide();
    m_plot->replot();
    m_placeholder->show(reason);
}

void FrontierPlot::show(const FrontierData& points)
{
    m_data = points;
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_labels.clear();
    m_budget = nullptr;
    m_placeholder->hide();

    // A log axis shows figures over decades; it cannot show 0. With no positive figure at all
    // (all-zero weights give error 0 everywhere) the axis turns linear and says why.
    double positiveMin = INFINITY, maxValue = -INFINITY;
    for (const auto* list : {&m_data.frontier, &m_data.presets, &m_data.plan, &m_data.otherPlan, &m_data.measured})
        for (const FrontierPoint& p : *list) {
            maxValue = std::max(maxValue, p.value);
            if (p.value > 0)
                positiveMin = std::min(positiveMin, p.value);
        }
    m_logScale = std::isfinite(positiveMin);
    QStringList warnings;
    if (!m_logScale && maxValue > -INFINITY)
        warnings << tr("Every figure is 0: the tensors quantize without error (all zeros?), so sizes can be compared but the plan says "
                       "nothing about quality.");
    // A lossless preset (F16 of an F16 model) sits at the bottom of the log axis; its tooltip keeps the 0.
    const auto onAxis = [this, positiveMin](std::vector<FrontierPoint>& list) {
        if (m_logScale)
            for (FrontierPoint& p : list)
                p.value = std::max(p.value, positiveMin / 2);
    };
    // The frontier's lossless end (every tensor as stored) has no place on a log axis: left out.
    if (m_logScale)
        std::erase_if(m_data.frontier, [](const FrontierPoint& p) { return !(p.value > 0); });
    onAxis(m_data.presets);
    onAxis(m_data.plan);
    onAxis(m_data.otherPlan);
    onAxis(m_data.measured);
    m_plot->yAxis->setLabel(m_data.valueLabel);
    if (m_logScale) {
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    } else {
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }

    auto* frontier = m_plot->addGraph();
    frontier->setName(tr("frontier"));
    frontier->setLineStyle(QCPGraph::lsStepLeft);
    QVector<double> xs, ys;
    for (const FrontierPoint& p : m_data.frontier) {
        xs << p.bytes / kMiB;
        ys << p.value;
    }
    frontier->setData(xs, ys, true);
    addPoints(m_plot, tr("presets"), m_data.presets, QCPScatterStyle(QCPScatterStyle::ssDisc, 2 * kPointRadius));
    addPoints(m_plot, m_data.planName, m_data.plan, QCPScatterStyle(QCPScatterStyle::ssStar, QColor(220, 30, 30), 14));
    if (!m_data.otherPlan.empty())
        addPoints(m_plot, m_data.otherPlanName, m_data.otherPlan, QCPScatterStyle(QCPScatterStyle::ssDiamond, QColor(30, 120, 220), 12));
    if (!m_data.measured.empty())
        addPoints(m_plot, tr("measured KLD"), m_data.measured, QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(0, 130, 60), 2), Qt::NoBrush, 14));

    // Room around the data, so markers at the extremes are whole and labels fit.
    m_plot->rescaleAxes();
    QCPRange x = m_plot->xAxis->range();
    if (m_data.budgetBytes)
        x.expand(*m_data.budgetBytes / kMiB);
    const double xPad = std::max(x.size() * 0.08, std::max(std::abs(x.center()) * 0.02, 1e-3));
    m_plot->xAxis->setRange(x.lower - xPad, x.upper + xPad);
    const QCPRange y = m_plot->yAxis->range();
    if (m_logScale)
        m_plot->yAxis->setRange(y.lower / 2.0, y.upper * 3.0);
    else
        m_plot->yAxis->setRange(y.lower - std::max(y.size(), 1.0) * 0.1, y.upper + std::max(y.size(), 1.0) * 0.25);
    if (m_data.budgetBytes) {
        m_budget = new QCPItemStraightLine(m_plot);
        m_budget->point1->setCoords(*m_data.budgetBytes / kMiB, m_logScale ? 1.0 : 0.0);
        m_budget->point2->setCoords(*m_data.budgetBytes / kMiB, m_logScale ? 10.0 : 1.0);
        m_budget->setPen(QPen(QColor(220, 30, 30), 1, Qt::DashLine));
    }
    m_warning->setText(warnings.join(QLatin1Char(' ')));
    m_warning->setVisible(!warnings.isEmpty());
    m_plot->replot();
    placeLabels();
}

// Greedy placement in pixels, left to right: each label takes the first spot around its point
// that lies inside the axis rect and overlaps neither a placed label nor any point; failing
// that, spots further above or below, joined to the point by a leader line.
void FrontierPlot::placeLabels()
{
    if (m_placing)
        return;
    m_placing = true;
    for (QCPItemText* label : m_labels)
        m_plot->removeItem(label);
    m_labels.clear();
    for (int i = m_plot->itemCount() - 1; i >= 0; --i)
        if (qobject_cast<QCPItemLine*>(m_plot->item(i)))
            m_plot->removeItem(i);
    const QRectF area = m_plot->axisRect()->rect();
    std::vector<QRectF> taken;
    if (m_plot->legend->visible())
        taken.push_back(m_plot->legend->outerRect());
    const auto pixel = [this](const FrontierPoint& p) {
        return QPointF(m_plot->xAxis->coordToPixel(p.bytes / kMiB), m_plot->yAxis->coordToPixel(p.value));
    };
    for (const auto* list : {&m_data.presets, &m_data.plan, &m_data.otherPlan, &m_data.measured})
        for (const FrontierPoint& p : *list) {
            const QPointF at = pixel(p);
            taken.push_back(QRectF(at.x() - kPointRadius, at.y() - kPointRadius, 2 * kPointRadius, 2 * kPointRadius));
        }
    std::vector<const FrontierPoint*> order;
    for (const FrontierPoint& p : m_data.presets)
        order.push_back(&p);
    std::stable_sort(order.begin(), order.end(), [](const FrontierPoint* a, const FrontierPoint* b) { return a->bytes < b->bytes; });
    const QFont font(this->font().family(), 7);
    for (const FrontierPoint* p : order) {
        const QPointF at = pixel(*p);
        // The label's own extent, as QCustomPlot will draw it (text, padding).
        auto* label = new QCPItemText(m_plot);
        label->setFont(font);
        label->setText(p->name);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(2, 1, 2, 1));
        label->position->setType(QCPItemPosition::ptAbsolute);
        label->position->setCoords(0, 0);
        const QSizeF size = QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).size() + QSizeF(1, 1);
        const QRectF own(at.x() - kPointRadius, at.y() - kPointRadius, 2 * kPointRadius, 2 * kPointRadius);
        std::optional<QRectF> chosen;
        bool leader = false;
        for (int step = 0; step < 12 && !chosen; ++step) {
            const double out = step * (size.height() + 1);
            const double gap = kPointRadius + 1;
            const QPointF corners[] = {{at.x() + gap, at.y() - gap - size.height() - out}, {at.x() + gap, at.y() + gap + out},
                                       {at.x() - gap - size.width(), at.y() - gap - size.height() - out},
                                       {at.x() - gap - size.width(), at.y() + gap + out}};
            for (const QPointF& corner : corners) {
                const QRectF rect(corner, size);
                if (!area.contains(rect))
                    continue;
                const bool clear = std::none_of(taken.begin(), taken.end(), [&](const QRectF& r) { return r != own && r.intersects(rect); });
                if (clear) {
                    chosen = rect;
                    leader = step > 0;
                    break;
                }
            }
        }
        if (!chosen) {
            m_plot->removeItem(label);  // no free spot: the tooltip still names the point
            continue;
        }
        taken.push_back(*chosen);
        label->position->setCoords(chosen->topLeft());
        m_labels.push_back(label);
        if (leader) {
            auto* line = new QCPItemLine(m_plot);
            line->start->setType(QCPItemPosition::ptAbsolute);
            line->end->setType(QCPItemPosition::ptAbsolute);
            const QPointF near(std::clamp(at.x(), chosen->left(), chosen->right()), std::clamp(at.y(), chosen->top(), chosen->bottom()));
            line->start->setCoords(near);
            line->end->setCoords(at);
            line->setPen(QPen(QColor(128, 128, 128), 1));
        }
    }
    m_plot->replot();
    m_placing = false;
}

QString FrontierPlot::toolTipAt(const QPoint& position) const
{
    const FrontierPoint* nearest = nullptr;
    double best = kTipDistance;
    for (const auto* list : {&m_data.measured, &m_data.plan, &m_data.otherPlan, &m_data.presets, &m_data.frontier})
        for (const FrontierPoint& p : *list) {
            const double dx = m_plot->xAxis->coordToPixel(p.bytes / kMiB) - position.x();
            const double dy = m_plot->yAxis->coordToPixel(p.value) - position.y();
            const double distance = std::hypot(dx, dy);
            if (distance < best) {
                best = distance;
                nearest = &p;
            }
        }
    return nearest ? nearest->tip : QString();
}

bool FrontierPlot::eventFilter(QObject* watched, QEvent* event)
{
    // Labels sit in pixels: a new size moves the points under them.
    if (watched == m_plot && event->type() == QEvent::Resize && !m_data.presets.empty())
        QTimer::singleShot(0, this, [this]() {
            m_plot->replot();
            placeLabels();
        });
    return QWidget::eventFilter(watched, event);
}
