#include "ui/recipe/TypeColors.h"

#include "core/types/GgmlType.h"

#include <algorithm>
#include <cmath>

QColor typeColor(std::uint32_t typeId)
{
    const gguf::TypeTraits* traits = gguf::findType(typeId);
    if (!traits)
        return QColor(200, 200, 200);
    if (traits->kind != gguf::TypeKind::Quantized)
        return traits->bitsPerWeight() >= 32 ? QColor(150, 150, 150) : QColor(185, 185, 185);
    // 1.5 bpw -> hue 240 (blue), 8.5 bpw -> hue 0 (red), on a log scale: the low-bit types
    // differ most in quality and get the most room.
    const double position = std::clamp((std::log2(traits->bitsPerWeight()) - std::log2(1.5)) / (std::log2(8.5) - std::log2(1.5)), 0.0, 1.0);
    return QColor::fromHsvF(float((1.0 - position) * 240.0 / 360.0), 0.55f, 0.95f);
}

QColor textColorOn(const QColor& background)
{
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}
