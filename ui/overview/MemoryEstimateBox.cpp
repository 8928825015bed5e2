#include "ui/overview/MemoryEstimateBox.h"

#include "core/base/HumanFormat.h"
#include "core/estimate/MemoryEstimate.h"
#include "ui/common/KvCacheBoxes.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

#include <algorithm>
#include <limits>

namespace {
constexpr int kMinContextPower = 9;  // 512 tokens
// The spin box holds an int; llama.cpp's own limit (2^32) is past it, and no model trains that long.
constexpr int kMaxContextTokens = std::numeric_limits<int>::max();

QString bytes(std::uint64_t count)
{
    return QString::fromStdString(gguf::formatBytes(count));
}

QString exactBytes(std::uint64_t count)
{
    return MemoryEstimateBox::tr("%1 bytes").arg(QString::fromStdString(gguf::formatGrouped(count)));
}

// The slider position nearest to `tokens` (the power of two at or above it, within the slider).
int sliderPosition(std::uint64_t tokens, const QSlider* slider)
{
    int power = slider->minimum();
    while (power < slider->maximum() && (std::uint64_t{1} << power) < tokens)
        ++power;
    return power;
}

QSpinBox* spinBox(const QString& name, int minimum, int maximum, int value, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setRange(minimum, maximum);
    box->setValue(value);
    return box;
}
}  // namespace

MemoryEstimateBox::MemoryEstimateBox(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QGroupBox(tr("Memory to run it (llama.cpp, estimate)"), parent), m_model(std::move(model))
{
    setObjectName(QStringLiteral("memoryEstimate"));
    const std::string arch = m_model->metadataString("general.architecture");
    const std::uint64_t trained = m_model->metadataUInt(arch + ".context_length").value_or(4096);
    int maxPower = kMinContextPower;
    while (maxPower < 24 && (std::uint64_t{1} << maxPower) < trained)
        ++maxPower;
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("contextSlider"));
    m_slider->setRange(kMinContextPower, maxPower);
    m_slider->setPageStep(1);
    m_slider->setToolTip(tr("Powers of two from 512 to the training context; type any other size in the box"));
    // The training context itself, as llama.cpp's default (-c 0) takes it: the slider's power
    // of two above it (65,536 for a 40,960-token model) is a context the model never saw.
    m_context = spinBox(QStringLiteral("contextBox"), 1, kMaxContextTokens, static_cast<int>(std::min<std::uint64_t>(trained, kMaxContextTokens)), this);
    m_slider->setValue(sliderPosition(contextLength(), m_slider));
    m_context->setSuffix(tr(" tokens"));
    m_context->setGroupSeparatorShown(true);
    m_context->setToolTip(tr("-c / --ctx-size: any number of tokens (llama.cpp pads it to a multiple of 256)"));
    m_cacheType = newCacheTypeBox(this);
    m_cacheType->setObjectName(QStringLiteral("cacheTypeBox"));
    m_flashAttention = newFlashAttentionBox(this);
    m_flashAttention->setObjectName(QStringLiteral("flashAttentionBox"));
    const gguf::EstimateOptions defaults;
    m_batch = spinBox(QStringLiteral("batchBox"), 1, 1 << 20, static_cast<int>(defaults.batch), this);
    m_batch->setToolTip(tr("--batch-size"));
    m_ubatch = spinBox(QStringLiteral("ubatchBox"), 1, 1 << 20, static_cast<int>(defaults.ubatch), this);
    m_ubatch->setToolTip(tr("--ubatch-size"));
    m_fullSlidingWindow = new QCheckBox(tr("Full-size SWA cache"), this);
    m_fullSlidingWindow->setObjectName(QStringLiteral("fullSlidingWindowBox"));
    m_fullSlidingWindow->setToolTip(tr("--swa-full: sliding-window layers keep the whole context"));
    const int layers = static_cast<int>(std::min<std::uint64_t>(m_model->metadataUInt(arch + ".block_count").value_or(0), 100000));
    m_gpuLayers = spinBox(QStringLiteral("gpuLayersBox"), 0, layers + 1, 0, this);
    m_gpuLayers->setToolTip(tr("-ngl: the last N layers (one more than the layers also moves the output)"));
    m_result = new QLabel(this);
    m_result->setObjectName(QStringLiteral("estimateLabel"));
    m_result->setTextFormat(Qt::PlainText);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setWordWrap(true);
    auto* layout = new QGridLayout(this);
    layout->addWidget(new QLabel(tr("Context:"), this), 0, 0);
    layout->addWidget(m_slider, 0, 1);
    layout->addWidget(m_context, 0, 2);
    layout->addWidget(new QLabel(tr("KV cache type:"), this), 0, 3);
    layout->addWidget(m_cacheType, 0, 4);
    layout->addWidget(new QLabel(tr("Flash attention:"), this), 1, 0);
    layout->addWidget(m_flashAttention, 1, 1);
    layout->addWidget(new QLabel(tr("Batch / ubatch:"), this), 1, 3);
    auto* batches = new QHBoxLayout;
    batches->addWidget(m_batch);
    batches->addWidget(m_ubatch);
    layout->addLayout(batches, 1, 4);
    layout->addWidget(m_fullSlidingWindow, 2, 1);
    layout->addWidget(new QLabel(tr("GPU layers:"), this), 2, 3);
    layout->addWidget(m_gpuLayers, 2, 4);
    layout->addWidget(m_result, 3, 0, 1, 5);
    layout->setColumnStretch(1, 1);
    // The slider sets the box to its power of two; a size typed in the box moves the slider to
    // the nearest one without changing what was typed.
    connect(m_slider, &QSlider::valueChanged, this, [this](int power) {
        if (sliderPosition(contextLength(), m_slider) != power)
            m_context->setValue(static_cast<int>(std::min<std::uint64_t>(std::uint64_t{1} << power, kMaxContextTokens)));
    });
    connect(m_context, &QSpinBox::valueChanged, this, [this]() {
        const QSignalBlocker blocker(m_slider);
        m_slider->setValue(sliderPosition(contextLength(), m_slider));
        refresh();
    });
    connect(m_cacheType, &QComboBox::currentIndexChanged, this, &MemoryEstimateBox::refresh);
    connect(m_flashAttention, &QComboBox::currentIndexChanged, this, &MemoryEstimateBox::refresh);
    connect(m_batch, &QSpinBox::valueChanged, this, &MemoryEstimateBox::refresh);
    connect(m_ubatch, &QSpinBox::valueChanged, this, &MemoryEstimateBox::refresh);
    connect(m_fullSlidingWindow, &QCheckBox::toggled, this, &MemoryEstimateBox::refresh);
    connect(m_gpuLayers, &QSpinBox::valueChanged, this, &MemoryEstimateBox::refresh);
    refresh();
}

std::uint64_t MemoryEstimateBox::contextLength() const
{
    return static_cast<std::uint64_t>(m_context->value());
}

void MemoryEstimateBox::refresh()
{
    gguf::EstimateOptions options;
    options.contextLength = contextLength();
    options.keyType = options.valueType = m_cacheType->currentData().toUInt();
    options.flashAttention = static_cast<gguf::FlashAttention>(m_flashAttention->currentData().toInt());
    options.batch = static_cast<std::uint32_t>(m_batch->value());
    options.ubatch = static_cast<std::uint32_t>(m_ubatch->value());
    options.fullSlidingWindow = m_fullSlidingWindow->isChecked();
    options.gpuLayers = m_gpuLayers->value();
    const auto estimate = gguf::estimateMemory(*m_model, options);
    if (!estimate) {
        m_result->setText(tr("No estimate: %1").arg(QString::fromStdString(estimate.error().message)));
        m_result->setToolTip(QString());
        return;
    }
    const gguf::MemoryEstimate& e = estimate.value();
    const QString recurrent = e.recurrentTotal() ? tr(" + recurrent state %1").arg(bytes(e.recurrentTotal())) : QString();
    QString text = tr("Weights %1 + KV cache %2%3%4 + compute buffer ≈ %5 = %6 in all")
                       .arg(bytes(e.weightsCpu + e.weightsGpu), bytes(e.kvTotal()), e.kvExact ? QString() : tr(" (approximate)"), recurrent,
                            bytes(e.computeBuffer), bytes(e.total()));
    text += e.gpuTotal() ? tr(" (CPU %1, GPU %2).").arg(bytes(e.cpuTotal()), bytes(e.gpuTotal())) : tr(" (CPU only; no GPU layers).");
    for (const std::string& note : e.notes)
        text += QLatin1Char('\n') + QString::fromStdString(note);
    m_result->setText(text);

    QStringList exact;
    exact << tr("Context: %1 tokens (padded to %2)")
                 .arg(QString::fromStdString(gguf::formatGrouped(options.contextLength)), QString::fromStdString(gguf::formatGrouped(e.contextLength)));
    exact << tr("Weights: %1 (CPU %2, GPU %3)").arg(exactBytes(e.weightsCpu + e.weightsGpu), exactBytes(e.weightsCpu), exactBytes(e.weightsGpu));
    exact << tr("KV cache: %1 (CPU %2, GPU %3)").arg(exactBytes(e.kvTotal()), exactBytes(e.kvCpu), exactBytes(e.kvGpu));
    if (e.recurrentTotal())
        exact << tr("Recurrent state: %1").arg(exactBytes(e.recurrentTotal()));
    exact << tr("Compute buffer: %1").arg(exactBytes(e.computeBuffer));
    exact << tr("Output buffer: %1").arg(exactBytes(e.outputBuffer));
    exact << tr("In all: %1 (CPU %2, GPU %3)").arg(exactBytes(e.total()), exactBytes(e.cpuTotal()), exactBytes(e.gpuTotal()));
    m_result->setToolTip(exact.join(QLatin1Char('\n')));
}
