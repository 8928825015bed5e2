#include "ui/overview/MemoryEstimateBox.h"

#include "core/base/HumanFormat.h"
#include "core/estimate/MemoryEstimate.h"
#include "core/types/GgmlType.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>

#include <algorithm>

namespace {
constexpr int kMinContextPower = 9;  // 512 tokens

QString bytes(std::uint64_t count)
{
    return QString::fromStdString(gguf::formatBytes(count));
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
    m_slider->setValue(maxPower);
    m_cacheType = new QComboBox(this);
    m_cacheType->setObjectName(QStringLiteral("cacheTypeBox"));
    for (const char* type : {"f16", "q8_0", "q4_0", "f32", "bf16", "q4_1", "iq4_nl", "q5_0", "q5_1"})
        m_cacheType->addItem(QString::fromLatin1(type), gguf::findTypeByName(type)->id);
    m_cacheType->setToolTip(tr("--cache-type-k / --cache-type-v"));
    m_flashAttention = new QComboBox(this);
    m_flashAttention->setObjectName(QStringLiteral("flashAttentionBox"));
    m_flashAttention->addItem(tr("auto"), static_cast<int>(gguf::FlashAttention::Auto));
    m_flashAttention->addItem(tr("on"), static_cast<int>(gguf::FlashAttention::On));
    m_flashAttention->addItem(tr("off"), static_cast<int>(gguf::FlashAttention::Off));
    m_flashAttention->setToolTip(tr("--flash-attn: a quantized V cache needs it"));
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
    m_contextLabel = new QLabel(this);
    m_contextLabel->setObjectName(QStringLiteral("contextLabel"));
    m_result = new QLabel(this);
    m_result->setObjectName(QStringLiteral("estimateLabel"));
    m_result->setTextFormat(Qt::PlainText);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setWordWrap(true);
    auto* layout = new QGridLayout(this);
    layout->addWidget(new QLabel(tr("Context:"), this), 0, 0);
    layout->addWidget(m_slider, 0, 1);
    layout->addWidget(m_contextLabel, 0, 2);
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
    connect(m_slider, &QSlider::valueChanged, this, &MemoryEstimateBox::refresh);
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
    return std::uint64_t{1} << m_slider->value();
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
    m_contextLabel->setText(tr("%1 tokens").arg(QString::fromStdString(gguf::formatGrouped(options.contextLength))));
    const auto estimate = gguf::estimateMemory(*m_model, options);
    if (!estimate) {
        m_result->setText(tr("No estimate: %1").arg(QString::fromStdString(estimate.error().message)));
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
}
