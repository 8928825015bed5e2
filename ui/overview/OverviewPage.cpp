#include "ui/overview/OverviewPage.h"
#include "ui/common/PlotReadout.h"

#include "ui/common/PlotPalette.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/overview/MemoryEstimateBox.h"

#include "core/base/HumanFormat.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace {

constexpr double kBarWidth = 0.7;
constexpr int kMaxLayerLabels = 32;  // more layers than this get every k-th number

QString text(const std::string& value)
{
    return QString::fromStdString(value);
}

QString grouped(std::uint64_t number)
{
    return text(gguf::formatGrouped(number));
}

QString bytes(std::uint64_t count)
{
    return text(gguf::formatBytes(count));
}

// The largest binary unit not above `largest`, so axis numbers stay readable.
struct ByteUnit {
    double divisor;
    QString name;
};
ByteUnit byteUnitFor(std::uint64_t largest)
{
    static const char* const names[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int unit = 0;
    double divisor = 1.0;
    while (unit + 1 < 6 && static_cast<double>(largest) >= divisor * 1024.0) {
        divisor *= 1024.0;
        ++unit;
    }
    return {divisor, QString::fromLatin1(names[unit])};
}

QCustomPlot* createPlot(QWidget* parent, const char* objectName, const ByteUnit& unit)
{
    auto* plot = new QCustomPlot(parent);
    followPalette(plot);
    plot->setObjectName(QLatin1String(objectName));
    plot->setMinimumHeight(260);
    plot->yAxis->setLabel(OverviewPage::tr("size (%1)").arg(unit.name));
    plot->yAxis->grid()->setSubGridVisible(false);
    plot->xAxis->grid()->setVisible(false);
    plot->setMouseTracking(true);
    return plot;
}

}  // namespace

OverviewPage::OverviewPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_summary(m_model->summary()), m_layers(gguf::computeLayerBreakdown(m_model->tensors()))
{
    // Each type in the colour it has in every other view (QuantTypeColour), however many types
    // the file holds: a palette indexed by position repeated its colours past a dozen.
    for (const std::uint32_t typeId : m_layers.typeIds)
        m_typeColors.insert(typeId, quantTypeColour(typeId));

    auto* content = new QWidget;
    auto* facts = new QHBoxLayout;
    facts->addWidget(createModelFacts(), 1);
    facts->addWidget(createFileFacts(), 1);
    auto* layout = new QVBoxLayout(content);
    layout->addLayout(facts);
    layout->addWidget(new MemoryEstimateBox(m_model, content));
    if (m_model->tensors().empty()) {
        auto* none = new QLabel(tr("This file has no tensors."), content);
        none->setObjectName(QStringLiteral("noTensorsLabel"));
        none->setAlignment(Qt::AlignCenter);
        layout->addWidget(none, 1);
    } else {
        auto* types = new QGroupBox(tr("Bytes by tensor type"), content);
        (new QVBoxLayout(types))->addWidget(m_typePlot = createTypePlot());
        auto* layers = new QGroupBox(tr("Bytes by layer and type"), content);
        (new QVBoxLayout(layers))->addWidget(m_layerPlot = createLayerPlot());
        // The type chart widens with the number of types, up to the layer chart's width.
        const int typeCount = static_cast<int>(m_summary.typeTotals.size());
        auto* plots = new QHBoxLayout;
        plots->addWidget(types, std::clamp(typeCount, 2, 6));
        plots->addWidget(layers, 6);
        layout->addLayout(plots, 1);
    }

    // Facts and charts need more room than a small window has; scroll rather than squeeze.
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
}

QLabel* OverviewPage::addFact(QFormLayout* form, const QString& name, const QString& value, const char* objectName)
{
    auto* label = new QLabel(value, form->parentWidget());
    label->setObjectName(QLatin1String(objectName));
    label->setTextFormat(Qt::PlainText);  // names come from the file
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(name, label);
    return label;
}

QWidget* OverviewPage::createModelFacts()
{
    auto* box = new QGroupBox(tr("Model"));
    auto* form = new QFormLayout(box);
    const std::string& arch = m_summary.architecture;
    const QString notSet = tr("not set");
    const auto archValue = [&](const char* suffix) { return arch.empty() ? std::nullopt : m_model->metadataUInt(arch + suffix); };

    addFact(form, tr("Architecture"), arch.empty() ? notSet : text(arch), "architectureValue");
    addFact(form, tr("Name"), m_summary.name.empty() ? notSet : text(m_summary.name), "nameValue");
    addFact(form, tr("Parameters"), tr("%1 (%2)").arg(text(gguf::formatCount(m_summary.parameterCount)), grouped(m_summary.parameterCount)),
            "parameterCountValue");
    addFact(form, tr("Bits per weight"), m_summary.parameterCount ? QString::number(m_summary.averageBitsPerWeight, 'f', 2) : tr("n/a"),
            "bitsPerWeightValue")
        ->setToolTip(tr("Tensor bytes × 8 / parameters, over all tensors"));
    const auto context = archValue(".context_length");
    addFact(form, tr("Context length"), context ? grouped(*context) : notSet, "contextLengthValue");
    const auto layers = archValue(".block_count");
    addFact(form, tr("Layers"), layers ? grouped(*layers) : notSet, "layerCountValue");
    const auto experts = archValue(".expert_count");
    const auto usedExperts = archValue(".expert_used_count");
    QString expertText = tr("dense (no experts)");
    if (experts && *experts > 0)
        expertText = usedExperts ? tr("%1 (%2 used per token)").arg(grouped(*experts), grouped(*usedExperts)) : grouped(*experts);
    addFact(form, tr("Experts"), expertText, "expertCountValue");
    return box;
}

QWidget* OverviewPage::createFileFacts()
{
    auto* box = new QGroupBox(tr("File"));
    auto* form = new QFormLayout(box);
    const gguf::GgufFile& primary = m_model->primary();
    addFact(form, tr("File size"), tr("%1 (%2 bytes)").arg(bytes(m_summary.fileSize), grouped(m_summary.fileSize)), "fileSizeValue");
    addFact(form, tr("Tensor data"), bytes(m_summary.tensorBytes), "tensorBytesValue");
    addFact(form, tr("Tensors"), grouped(m_model->tensors().size()), "tensorCountValue");
    addFact(form, tr("Metadata keys"), grouped(m_model->metadata().size()), "metadataCountValue");
    QStringList shardPaths;
    for (const auto& shard : m_model->shards())
        shardPaths << QString::fromStdString(shard->path());
    addFact(form, tr("Shards"), QString::number(m_model->shards().size()), "shardCountValue")->setToolTip(shardPaths.join(QLatin1Char('\n')));
    QString format = tr("GGUF v%1, %2").arg(primary.version()).arg(primary.bigEndian() ? tr("big-endian") : tr("little-endian"));
    if (primary.magic() != "GGUF")
        format += tr(" (magic %1)").arg(text(primary.magic()));
    addFact(form, tr("Format"), format, "formatValue");
    addFact(form, tr("Alignment"), tr("%1 bytes").arg(primary.alignment()), "alignmentValue");
    return box;
}

QCustomPlot* OverviewPage::createTypePlot()
{
    std::uint64_t largest = 0;
    for (const gguf::TypeTotal& total : m_summary.typeTotals)
        largest = std::max(largest, total.byteCount);
    const ByteUnit unit = byteUnitFor(largest);
    QCustomPlot* plot = createPlot(this, "typeBytesPlot", unit);

    // One bar series per type, so each bar takes the type's colour from the layer chart.
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (std::size_t i = 0; i < m_summary.typeTotals.size(); ++i) {
        const gguf::TypeTotal& total = m_summary.typeTotals[i];
        const QString name = text(gguf::typeName(total.typeId));
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(name);
        bars->setWidth(kBarWidth);
        bars->setPen(Qt::NoPen);
        bars->setBrush(m_typeColors.value(total.typeId));
        bars->addData(static_cast<double>(i), static_cast<double>(total.byteCount) / unit.divisor);
        ticker->addTick(static_cast<double>(i), name);
    }
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLabelRotation(m_summary.typeTotals.size() > 12 ? 90 : m_summary.typeTotals.size() > 4 ? 45 : 0);
    plot->xAxis->setRange(-0.6, static_cast<double>(m_summary.typeTotals.size()) - 0.4);
    plot->yAxis->setRange(0, static_cast<double>(largest) / unit.divisor * 1.08);
    connect(plot, &QCustomPlot::mouseMove, this, &OverviewPage::showTypeToolTip);
    return plot;
}

QString OverviewPage::layerLabel(const gguf::LayerBytes& layer) const
{
    return layer.layer ? QString::number(*layer.layer) : tr("other");
}

QCustomPlot* OverviewPage::createLayerPlot()
{
    std::uint64_t largest = 0;
    for (const gguf::LayerBytes& layer : m_layers.layers)
        largest = std::max(largest, layer.byteCount);
    const ByteUnit unit = byteUnitFor(largest);
    QCustomPlot* plot = createPlot(this, "layerBytesPlot", unit);
    plot->xAxis->setLabel(tr("layer"));

    // One stacked series per type, lowest type id at the bottom. Layers sit at x = 0, 1, ... in
    // their order (sparse layer numbers stay adjacent); the tensors outside layers come last.
    QCPBars* below = nullptr;
    for (const std::uint32_t typeId : m_layers.typeIds) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(text(gguf::typeName(typeId)));
        bars->setWidth(kBarWidth);
        bars->setPen(Qt::NoPen);
        bars->setBrush(m_typeColors.value(typeId));
        for (std::size_t x = 0; x < m_layers.layers.size(); ++x) {
            if (const std::uint64_t count = m_layers.layers[x].bytesOfType(typeId))
                bars->addData(static_cast<double>(x), static_cast<double>(count) / unit.divisor);
        }
        if (below)
            bars->moveAbove(below);
        below = bars;
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const std::size_t count = m_layers.layers.size();
    const std::size_t step = std::max<std::size_t>(1, (count + kMaxLayerLabels - 1) / kMaxLayerLabels);
    for (std::size_t x = 0; x < count; ++x) {
        const bool last = x + 1 == count;
        if (x % step == 0 || (last && !m_layers.layers[x].layer))
            ticker->addTick(static_cast<double>(x), layerLabel(m_layers.layers[x]));
    }
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setRange(-0.6, static_cast<double>(count) - 0.4);
    plot->yAxis->setRange(0, static_cast<double>(largest) / unit.divisor * 1.08);
    // Deep models have more layers than fit: drag and zoom along the layers.
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);

    // The legend goes under the chart, where it cannot cover the bars.
    auto* legendRow = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot->legend);
    plot->legend->setVisible(true);
    plot->legend->setWrap(8);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);  // rearranges the items by the wrap
    plot->legend->setBorderPen(Qt::NoPen);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    connect(plot, &QCustomPlot::mouseMove, this, &OverviewPage::showLayerToolTip);
    return plot;
}

void OverviewPage::showTypeToolTip(QMouseEvent* event)
{
    int index = -1;
    auto* bars = qobject_cast<QCPBars*>(m_typePlot->plottableAt(event->position(), false, &index));
    const int position = bars ? static_cast<int>(std::lround(bars->data()->at(index)->key)) : -1;
    if (position < 0 || position >= static_cast<int>(m_summary.typeTotals.size())) {
        QToolTip::hideText();
        return;
    }
    const gguf::TypeTotal& total = m_summary.typeTotals[static_cast<std::size_t>(position)];
    const double share = m_summary.tensorBytes ? 100.0 * static_cast<double>(total.byteCount) / static_cast<double>(m_summary.tensorBytes) : 0.0;
    const double bitsPerWeight = total.elementCount ? 8.0 * static_cast<double>(total.byteCount) / static_cast<double>(total.elementCount) : 0.0;
    const QString tip = tr("%1: %2 in %3 tensors, %4% of the tensor data, %5 bits per weight")
                            .arg(text(gguf::typeName(total.typeId)), bytes(total.byteCount), grouped(total.tensorCount),
                                 QString::number(share, 'f', 1), QString::fromStdString(gguf::formatFixed(bitsPerWeight, 2)));
    plotreadout::publish(m_typePlot, tip);
    QToolTip::showText(event->globalPosition().toPoint(), tip, m_typePlot);
}

void OverviewPage::showLayerToolTip(QMouseEvent* event)
{
    int index = -1;
    auto* bars = qobject_cast<QCPBars*>(m_layerPlot->plottableAt(event->position(), false, &index));
    const int position = bars ? static_cast<int>(std::lround(bars->data()->at(index)->key)) : -1;
    if (position < 0 || position >= static_cast<int>(m_layers.layers.size())) {
        QToolTip::hideText();
        return;
    }
    const gguf::LayerBytes& layer = m_layers.layers[static_cast<std::size_t>(position)];
    QString tip = layer.layer ? tr("Layer %1: %2").arg(*layer.layer).arg(bytes(layer.byteCount))
                              : tr("Outside the layers: %1").arg(bytes(layer.byteCount));
    for (auto it = layer.types.rbegin(); it != layer.types.rend(); ++it)  // top of the stack first
        tip += QLatin1Char('\n') + tr("%1: %2 in %3 tensors").arg(text(gguf::typeName(it->typeId)), bytes(it->byteCount), grouped(it->tensorCount));
    plotreadout::publish(m_layerPlot, tip);
    QToolTip::showText(event->globalPosition().toPoint(), tip, m_layerPlot);
}
