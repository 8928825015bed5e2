#include "ui/common/QuantTypeColour.h"

#include "core/types/GgmlType.h"

#include <QPainter>
#include <QPixmap>
#include <string_view>

namespace {

struct NamedColour {
    std::string_view type;
    QRgb colour;
};

// Every type the type table knows, ordered by precision; neighbours differ in hue so nearby
// levels stay apart in one chart, and no two types share a colour (a file with many types, as
// the Overview's charts show, never repeats one).
constexpr NamedColour kColours[] = {
    {"f64", 0x333333},  {"f32", 0x555555},  {"f16", 0x7f7f7f},  {"bf16", 0x999999}, {"i64", 0x6b4e3d}, {"i32", 0x8a6a55},
    {"i16", 0xa8896f},  {"i8", 0xc7ad94},   {"q8_K", 0x1b5e20}, {"q8_1", 0x66bb6a}, {"q8_0", 0x2ca02c}, {"q6_K", 0x17becf},
    {"q5_K", 0x1f77b4}, {"q5_0", 0x4a90d9}, {"q5_1", 0x6baed6}, {"q4_K", 0xff7f0e}, {"q4_0", 0xe6a03c}, {"q4_1", 0xc07020},
    {"iq4_nl", 0xbcbd22}, {"iq4_xs", 0x8c564b}, {"mxfp4", 0xa6761d}, {"nvfp4", 0xd4a017}, {"q3_K", 0x9467bd}, {"iq3_s", 0xe377c2},
    {"iq3_xxs", 0xc51b7d}, {"q2_K", 0xd62728}, {"q2_0", 0xf4a582}, {"iq2_s", 0x7b3294}, {"iq2_xs", 0x5e3c99}, {"iq2_xxs", 0x40004b},
    {"tq2_0", 0x31a354}, {"tq1_0", 0x006d2c}, {"iq1_m", 0x000080}, {"iq1_s", 0x1a1a6e}, {"q1_0", 0x4d4dff},
};

}  // namespace

QColor quantTypeColour(std::uint32_t typeId)
{
    const std::string name = gguf::typeName(typeId);
    for (const NamedColour& entry : kColours)
        if (entry.type == name)
            return QColor(entry.colour);
    // FNV-1a of the name: the same hue for the same type in every run, unlike qHash's seed.
    std::uint32_t hash = 2166136261u;
    for (const char c : name)
        hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return QColor::fromHsv(static_cast<int>(hash % 360), 200, 180);
}

QColor textColourOn(const QColor& background)
{
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

QIcon quantTypeSwatch(std::uint32_t typeId)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setPen(Qt::NoPen);
    painter.setBrush(quantTypeColour(typeId));
    painter.drawRect(1, 1, 10, 10);
    return QIcon(pixmap);
}

QPen quantTypePen(std::uint32_t typeId, bool simulated, double width)
{
    QPen pen(quantTypeColour(typeId), width);
    if (simulated)
        pen.setStyle(Qt::DashLine);
    return pen;
}
