#include "ui/graph/GraphPage.h"

#include "core/types/GgmlType.h"
#include "ui/common/ColourScales.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/common/TensorShapeText.h"
#include "ui/graph/GraphLegend.h"
#include "ui/graph/GraphNodeItem.h"
#include "ui/session/GraphNodeFigures.h"
#include "ui/session/TensorFigureStore.h"

#include <QComboBox>
#include <QEvent>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPainterPath>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <cmath>

namespace {

const gguf::GraphLayoutMetrics kMetrics{.nodeWidth = 170, .nodeHeight = 40, .columnGap = 22, .rowGap = 24};
constexpr int kColourByType = 0;
constexpr int kColourByBits = 1;

// Ctrl+wheel zooms about the cursor; the plain wheel scrolls as in any view.
class ZoomingView : public QGraphicsView {
public:
    using QGraphicsView::QGraphicsView;

protected:
    void wheelEvent(QWheelEvent* event) override
    {
        if (!(event->modifiers() & Qt::ControlModifier)) {
            QGraphicsView::wheelEvent(event);
            return;
        }
        const double factor = std::pow(1.0015, event->angleDelta().y());
        const double scale = transform().m11() * factor;
        if (scale > 0.05 && scale < 8)
            this->scale(factor, factor);
        event->accept();
    }
};

QString text(std::string_view value)
{
    return QString::fromUtf8(value.data(), static_cast<qsizetype>(value.size()));
}

bool spansDecades(double minimum, double maximum)
{
    return minimum > 0 && maximum / minimum > 100;
}

}  // namespace

GraphPage::GraphPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_modelPath(QString::fromStdString(m_model->primary().path())),
      m_graph(gguf::buildModelGraph(*m_model)), m_colourBy(new QComboBox(this)), m_legend(new GraphLegend(this)),
      m_summary(new QLabel(this)), m_scene(new QGraphicsScene(this)), m_view(new ZoomingView(m_scene, this))
{
    setObjectName(QStringLiteral("graphPage"));
    m_colourBy->setObjectName(QStringLiteral("graphColourBy"));
    m_view->setObjectName(QStringLiteral("graphView"));
    m_view->setDragMode(QGraphicsView::ScrollHandDrag);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    m_view->setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);

    auto* expand = new QPushButton(tr("Expand All"), this);
    auto* collapse = new QPushButton(tr("Collapse All"), this);
    auto* fit = new QPushButton(tr("Fit"), this);
    expand->setToolTip(tr("Every block's steps (a large model gives thousands of nodes)"));
    connect(expand, &QPushButton::clicked, this, &GraphPage::expandAll);
    connect(collapse, &QPushButton::clicked, this, &GraphPage::collapseAll);
    connect(fit, &QPushButton::clicked, this, [this]() { m_view->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio); });
    connect(m_colourBy, &QComboBox::currentIndexChanged, this, &GraphPage::recolour);
    connect(&TensorFigureStore::instance(), &TensorFigureStore::setsChanged, this, [this](const QString& path) {
        if (path == m_modelPath)
            refreshColourChoices();
    });

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Colour by:"), this));
    bar->addWidget(m_colourBy, 1);
    bar->addWidget(expand);
    bar->addWidget(collapse);
    bar->addWidget(fit);
    m_summary->setObjectName(QStringLiteral("graphSummary"));
    m_summary->setWordWrap(true);
    m_summary->setText(m_graph.fromBlockDescription
                           ? tr("%1 blocks, drawn from the forward pass's description of %2. Click a block to see its steps, a step to "
                                "open its tensor.")
                                 .arg(m_graph.layers.size())
                                 .arg(QString::fromStdString(m_model->summary().architecture))
                           : tr("%1 blocks. The forward pass does not run this architecture: each block shows its tensors grouped by "
                                "name. Click a block to see them, a group to open its largest tensor.")
                                 .arg(m_graph.layers.size()));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_legend);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_summary);

    refreshColourChoices();
    rebuildScene();
}

void GraphPage::refreshColourChoices()
{
    const QString current = m_colourBy->currentText();
    const QSignalBlocker blocker(m_colourBy);
    m_colourBy->clear();
    m_colourBy->addItem(tr("Type"));
    m_colourBy->addItem(tr("Bits per weight"));
    m_figureSets = TensorFigureStore::instance().setsFor(m_modelPath);
    for (const auto& set : m_figureSets)
        m_colourBy->addItem(set->label);
    const int again = m_colourBy->findText(current);
    m_colourBy->setCurrentIndex(again >= 0 ? again : 0);
    recolour();
}

void GraphPage::setLayerExpanded(int layer, bool expanded)
{
    if (expanded ? m_expanded.insert(layer).second : m_expanded.erase(layer) > 0)
        rebuildScene();
}

void GraphPage::expandAll()
{
    m_expanded = std::set<int>(m_graph.layers.begin(), m_graph.layers.end());
    rebuildScene();
}

void GraphPage::collapseAll()
{
    m_expanded.clear();
    rebuildScene();
}

void GraphPage::rebuildScene()
{
    m_scene->clear();
    m_items.clear();
    m_shown = gguf::collapseLayers(m_graph, m_expanded);
    m_layout = gguf::layoutGraph(m_shown, kMetrics);
    const QColor frameColour = palette().color(QPalette::Mid);

    // A frame behind each expanded layer; clicking it folds the layer again.
    std::map<int, QRectF> frames;
    for (std::size_t i = 0; i < m_shown.nodes.size(); ++i) {
        const gguf::GraphNode& node = m_shown.nodes[i];
        if (node.layer < 0 || node.kind == gguf::GraphNodeKind::Block)
            continue;
        const QRectF box(m_layout.places[i].x, m_layout.places[i].y, kMetrics.nodeWidth, kMetrics.nodeHeight);
        auto [frame, inserted] = frames.try_emplace(node.layer, box);
        if (!inserted)
            frame->second = frame->second.united(box);
    }
    for (const auto& [layer, box] : frames) {
        auto* frame = m_scene->addRect(box.adjusted(-14, -22, 14, 8), QPen(frameColour, 1, Qt::DashLine));
        frame->setZValue(-2);
        auto* title = new GraphNodeItem(-1 - layer, QSizeF(90, 18), QStringLiteral("blk.%1  ▴").arg(layer), {},
                                        [this, folded = layer](int) { setLayerExpanded(folded, false); });
        title->setPos(box.left() - 14, box.top() - 22);
        title->setToolTip(tr("Fold blk.%1 back into one node").arg(layer));
        title->setColours(palette().color(QPalette::Window), frameColour, palette().color(QPalette::WindowText));
        m_scene->addItem(title);
    }

    // Edges: between adjacent rows a curve; a skip over rows (the residual stream, a branch that
    // bypasses its neighbours) runs down the side its source is on, outside the rows it passes.
    std::vector<double> rowLeft(static_cast<std::size_t>(m_layout.rowCount), 0.0);
    std::vector<double> rowRight(static_cast<std::size_t>(m_layout.rowCount), 0.0);
    for (const auto& place : m_layout.places) {
        const auto row = static_cast<std::size_t>(place.row);
        rowLeft[row] = std::min(rowLeft[row], place.x);
        rowRight[row] = std::max(rowRight[row], place.x + kMetrics.nodeWidth);
    }
    QPainterPath path;
    for (const gguf::GraphEdge& edge : m_shown.edges) {
        const auto& from = m_layout.places[static_cast<std::size_t>(edge.from)];
        const auto& to = m_layout.places[static_cast<std::size_t>(edge.to)];
        const QPointF start(from.x + kMetrics.nodeWidth / 2, from.y + kMetrics.nodeHeight);
        const QPointF end(to.x + kMetrics.nodeWidth / 2, to.y);
        if (to.row == from.row + 1) {
            const double middle = (start.y() + end.y()) / 2;
            path.moveTo(start);
            path.cubicTo(QPointF(start.x(), middle), QPointF(end.x(), middle), end);
            continue;
        }
        const bool right = start.x() > 0;
        double side = right ? std::max(from.x, to.x) + kMetrics.nodeWidth : std::min(from.x, to.x);
        for (int r = from.row + 1; r < to.row; ++r)
            side = right ? std::max(side, rowRight[static_cast<std::size_t>(r)]) : std::min(side, rowLeft[static_cast<std::size_t>(r)]);
        side += right ? 10 : -10;
        const double fromX = right ? from.x + kMetrics.nodeWidth : from.x;
        const double toX = right ? to.x + kMetrics.nodeWidth : to.x;
        const double fromY = from.y + kMetrics.nodeHeight / 2, toY = to.y + kMetrics.nodeHeight / 2;
        path.moveTo(fromX, fromY);
        path.cubicTo(QPointF(side, fromY), QPointF(side, fromY), QPointF(side, fromY + kMetrics.rowGap / 2));
        path.lineTo(side, toY - kMetrics.rowGap / 2);
        path.cubicTo(QPointF(side, toY), QPointF(side, toY), QPointF(toX, toY));
    }
    QColor edgeColour = palette().color(QPalette::WindowText);
    edgeColour.setAlphaF(0.55f);
    auto* edges = m_scene->addPath(path, QPen(edgeColour, 1.2));
    edges->setZValue(-1);

    for (std::size_t i = 0; i < m_shown.nodes.size(); ++i) {
        const gguf::GraphNode& node = m_shown.nodes[i];
        auto* item = new GraphNodeItem(static_cast<int>(i), QSizeF(kMetrics.nodeWidth, kMetrics.nodeHeight),
                                       QString::fromStdString(node.label), QString::fromStdString(node.detail),
                                       [this](int clicked) { nodeClicked(clicked); });
        item->setPos(m_layout.places[i].x, m_layout.places[i].y);
        item->setToolTip(tooltipOf(node));
        item->setMenuHandler([this](int clicked, QPoint at) { showNodeMenu(clicked, at); });
        m_scene->addItem(item);
        m_items.push_back(item);
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-20, -20, 20, 20));
    recolour();
}

QColor GraphPage::scaleColour(double value, double minimum, double maximum, bool logarithmic)
{
    const QCPRange range(minimum, maximum > minimum ? maximum : minimum + 1);
    return QColor::fromRgb(sequentialGradient().color(value, range, logarithmic));
}

void GraphPage::recolour()
{
    if (m_items.empty())
        return;
    const QColor none = palette().color(QPalette::Button);
    const QColor border = palette().color(QPalette::Mid);
    m_legend->setNoFigureColour(none);
    const int choice = m_colourBy->currentIndex();
    std::vector<QColor> fills(m_items.size(), none);
    std::vector<QString> figures(m_items.size());
    if (choice == kColourByType || choice < 0) {
        const std::vector<int> types = nodeTypes(*m_model, m_shown);
        std::vector<int> present;
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i] < 0)
                continue;
            fills[i] = quantTypeColour(static_cast<std::uint32_t>(types[i]));
            if (std::find(present.begin(), present.end(), types[i]) == present.end())
                present.push_back(types[i]);
        }
        std::sort(present.begin(), present.end());
        m_legend->showTypes(std::move(present));
    } else {
        const auto set = choice == kColourByBits ? nullptr : m_figureSets[static_cast<std::size_t>(choice - 2)];
        const NodeFigures values = set ? nodeFigures(*m_model, m_shown, *set) : nodeBitsPerWeight(*m_model, m_shown);
        const bool logarithmic = set && spansDecades(values.minimum, values.maximum);
        for (std::size_t i = 0; i < values.values.size(); ++i) {
            if (!std::isfinite(values.values[i]))
                continue;
            fills[i] = scaleColour(values.values[i], values.minimum, values.maximum, logarithmic);
            figures[i] = QString::number(values.values[i], 'g', 3);
        }
        const double low = values.minimum, high = values.maximum;
        m_legend->showScale(low, high, logarithmic, [low, high, logarithmic](double t) {
            const double value = logarithmic ? low * std::pow(high / low, t) : low + t * (high - low);
            return scaleColour(value, low, high, logarithmic);
        });
    }
    for (std::size_t i = 0; i < m_items.size(); ++i) {
        m_items[i]->setColours(fills[i], fills[i] == none ? border : fills[i].darker(140),
                               fills[i] == none ? palette().color(QPalette::ButtonText) : textColourOn(fills[i]));
        m_items[i]->setFigureText(figures[i]);
    }
    m_view->setBackgroundBrush(palette().color(QPalette::Base));
}

void GraphPage::nodeClicked(int node)
{
    const gguf::GraphNode& clicked = m_shown.nodes[static_cast<std::size_t>(node)];
    if (clicked.kind == gguf::GraphNodeKind::Block) {
        setLayerExpanded(clicked.layer, true);
        return;
    }
    if (clicked.tensors.empty())
        return;
    // The node's largest tensor (the experts' matrices rather than a bias).
    int chosen = clicked.tensors.front();
    for (int index : clicked.tensors)
        if (m_model->tensors()[static_cast<std::size_t>(index)].nbytes > m_model->tensors()[static_cast<std::size_t>(chosen)].nbytes)
            chosen = index;
    emit openTensor(chosen);
}

// Every tensor the node reads, to open any of them (a click opens the largest), and the fold.
void GraphPage::showNodeMenu(int node, QPoint screenPos)
{
    const gguf::GraphNode& chosen = m_shown.nodes[static_cast<std::size_t>(node)];
    QMenu menu(this);
    if (chosen.layer >= 0) {
        const int layer = chosen.layer;
        const bool folded = chosen.kind == gguf::GraphNodeKind::Block;
        menu.addAction(folded ? tr("Open blk.%1").arg(layer) : tr("Fold blk.%1").arg(layer), this,
                       [this, layer, folded]() { setLayerExpanded(layer, folded); });
        menu.addSeparator();
    }
    constexpr std::size_t kListed = 40;
    for (std::size_t i = 0; i < chosen.tensors.size() && i < kListed; ++i) {
        const int index = chosen.tensors[i];
        menu.addAction(tr("Show %1").arg(text(m_model->tensors()[static_cast<std::size_t>(index)].name)), this,
                       [this, index]() { emit openTensor(index); });
    }
    if (!menu.isEmpty())
        menu.exec(screenPos);
}

QString GraphPage::tooltipOf(const gguf::GraphNode& node) const
{
    QStringList lines{QStringLiteral("<b>%1</b>").arg(QString::fromStdString(node.label).toHtmlEscaped())};
    if (!node.detail.empty())
        lines << QString::fromStdString(node.detail).toHtmlEscaped();
    constexpr std::size_t kShown = 24;
    for (std::size_t i = 0; i < node.tensors.size() && i < kShown; ++i) {
        const gguf::TensorInfo& tensor = m_model->tensors()[static_cast<std::size_t>(node.tensors[i])];
        lines << QStringLiteral("%1 &nbsp; %2 &nbsp; %3").arg(text(tensor.name).toHtmlEscaped(), QString::fromStdString(gguf::typeName(tensor.typeId)),
                                                                  tensorShapeText(tensor));
    }
    if (node.tensors.size() > kShown)
        lines << tr("… and %1 more").arg(node.tensors.size() - kShown);
    if (node.kind == gguf::GraphNodeKind::Block)
        lines << tr("<i>Click to see its steps.</i>");
    else if (!node.tensors.empty())
        lines << tr("<i>Click to open the tensor.</i>");
    return lines.join(QStringLiteral("<br>"));
}

QString GraphPage::nodeLabel(int node) const
{
    return m_items[static_cast<std::size_t>(node)]->label();
}

QColor GraphPage::nodeColour(int node) const
{
    return m_items[static_cast<std::size_t>(node)]->fill();
}

QPointF GraphPage::nodeCentre(int node) const
{
    return m_items[static_cast<std::size_t>(node)]->sceneBoundingRect().center();
}

void GraphPage::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuildScene();  // edges, frames and the nodes without a figure take the theme's colours
}
