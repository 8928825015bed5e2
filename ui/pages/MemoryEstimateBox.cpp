#include "pages/MemoryEstimateBox.h"

#include "base/HumanFormat.h"
#include "estimate/MemoryEstimate.h"
#include "types/GgmlType.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QSlider>

namespace {
constexpr int kMinContextPower = 9;  // 512 tokens

QString bytes(std::uint64_t count)
{
    return QString::fromStdString(gguf::formatBytes(count));
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
    for (const char* type : {"f16", "q8_0", "q4_0", "f32"})
        m_cacheType->addItem(QString::fromLatin1(type), gguf::findTypeByName(type)->id);
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
    layout->addWidget(m_result, 1, 0, 1, 5);
    layout->setColumnStretch(1, 1);
    connect(m_slider, &QSlider::valueChanged, this, &MemoryEstimateBox::refresh);
    connect(m_cacheType, &QComboBox::currentIndexChanged, this, &MemoryEstimateBox::refresh);
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
    m_contextLabel->setText(tr("%1 tokens").arg(QString::fromStdString(gguf::formatGrouped(options.contextLength))));
    const auto estimate = gguf::estimateMemory(*m_model, options);
    if (!estimate) {
        m_result->setText(tr("No estimate: %1").arg(QString::fromStdString(estimate.error().message)));
        return;
    }
    const gguf::MemoryEstimate& e = estimate.value();
    QString text = tr("Weights %1 + KV cache %2%3 + compute buffer ≈ %4 = %5 in all (CPU only; no GPU layers).")
                       .arg(bytes(e.weightsCpu + e.weightsGpu), bytes(e.kvTotal()), e.kvExact ? QString() : tr(" (approximate)"),
                            bytes(e.computeBuffer), bytes(e.total()));
    for (const std::string& note : e.notes)
        text += QLatin1Char('\n') + QString::fromStdString(note);
    m_result->setText(text);
}
