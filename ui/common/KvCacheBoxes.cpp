#include "ui/common/KvCacheBoxes.h"

#include "core/types/GgmlType.h"
#include "core/types/KvCacheSettings.h"

#include <QComboBox>

QComboBox* newCacheTypeBox(QWidget* parent)
{
    auto* box = new QComboBox(parent);
    for (const char* type : {"f16", "q8_0", "q4_0", "f32", "bf16", "q4_1", "iq4_nl", "q5_0", "q5_1"})
        box->addItem(QString::fromLatin1(type), gguf::findTypeByName(type)->id);
    box->setToolTip(QComboBox::tr("--cache-type-k / --cache-type-v"));
    return box;
}

QComboBox* newFlashAttentionBox(QWidget* parent)
{
    auto* box = new QComboBox(parent);
    box->addItem(QComboBox::tr("auto"), static_cast<int>(gguf::FlashAttention::Auto));
    box->addItem(QComboBox::tr("on"), static_cast<int>(gguf::FlashAttention::On));
    box->addItem(QComboBox::tr("off"), static_cast<int>(gguf::FlashAttention::Off));
    box->setToolTip(QComboBox::tr("--flash-attn: a quantized V cache needs it (auto is on for the CPU)"));
    return box;
}
