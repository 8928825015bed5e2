#include "ui/session/BlockDisassembly.h"

#include "core/gguf/RemoteRegion.h"

#include "core/blocks/BlockFields.h"
#include "core/gguf/Dequantize.h"
#include "core/gguf/MetadataFormat.h"

#include <QObject>
#include <cmath>

namespace {
// Pale backgrounds as HTML colour names (what QColor::name() gave), so no Qt Gui is needed here.
const char* const kFieldColors[] = {"#d6eaf8", "#fce4d6", "#e2f0d9", "#f2e2f5", "#fff2cc"};

QString cell(const QString& text, bool header = false)
{
    return header ? QStringLiteral("<th align=left>%1</th>").arg(text) : QStringLiteral("<td>%1</td>").arg(text);
}

QString number(double value)
{
    return QString::fromStdString(gguf::formatFloat(value, true));
}
}  // namespace

gguf::Result<BlockDisassembly> BlockDisassembly::read(const SliceRef& slice, std::uint64_t row, std::uint64_t blockInRow)
{
    const gguf::TensorInfo& tensor = *slice.slice.tensor;
    if (!tensor.traits)
        return gguf::Error{"tensor has " + gguf::typeName(tensor.typeId) + ": its block layout is unknown", gguf::Error::kNoOffset, {}};
    const gguf::TypeTraits& traits = *tensor.traits;
    const std::uint64_t blocksPerRow = slice.slice.rowLength() / traits.blockSize;
    if (row >= slice.slice.rowCount || blockInRow >= blocksPerRow)
        return gguf::Error{"no block " + std::to_string(blockInRow) + " in row " + std::to_string(row), gguf::Error::kNoOffset, {}};
    BlockDisassembly result;
    result.blockIndex = (slice.slice.firstRow + row) * blocksPerRow + blockInRow;
    result.fileOffset = tensor.fileOffset + result.blockIndex * traits.blockBytes;
    const std::uint8_t* bytes = tensor.data + result.blockIndex * traits.blockBytes;
    if (gguf::Status fetched = gguf::ensureMappedBytes(bytes, traits.blockBytes); !fetched)  // a remote model's block
        return fetched.error();
    result.storedBytes.assign(bytes, bytes + traits.blockBytes);
    result.littleEndianBytes = result.storedBytes;
    if (tensor.bigEndian && traits.swapBlock)
        traits.swapBlock(result.littleEndianBytes.data());
    result.values.resize(traits.blockSize);
    const std::uint64_t firstElement = result.blockIndex * traits.blockSize;
    if (gguf::Status s = gguf::dequantizeElements(tensor, firstElement, firstElement + traits.blockSize, result.values); !s)
        return s.error();
    if (gguf::blockScaleLayout(tensor.typeId)) {
        gguf::BlockScales scales;
        if (gguf::Status s = gguf::extractBlockScales(tensor, result.blockIndex, 1, scales); !s)
            return s.error();
        result.scales = std::move(scales);
    }
    return result;
}

QString BlockDisassembly::toHtml(const gguf::TensorInfo& tensor) const
{
    const std::span<const gguf::BlockField> fields = gguf::blockFields(tensor.typeId);
    auto fieldAt = [&](std::size_t byte) -> int {
        for (std::size_t f = 0; f < fields.size(); ++f)
            if (byte >= fields[f].offset && byte < fields[f].offset + fields[f].size)
                return static_cast<int>(f);
        return -1;
    };
    QString html = QObject::tr("<p><b>Block %1</b> of %2 &nbsp; · &nbsp; file offset %3 (0x%4) &nbsp; · &nbsp; %5 bytes, %6 elements</p>")
                       .arg(blockIndex)
                       .arg(QString::fromStdString(gguf::typeName(tensor.typeId)))
                       .arg(fileOffset)
                       .arg(fileOffset, 0, 16)
                       .arg(storedBytes.size())
                       .arg(values.size());
    if (tensor.bigEndian)
        html += QObject::tr("<p>Big-endian file: bytes are shown as stored; fields are decoded after swapping.</p>");

    html += QStringLiteral("<pre>");
    for (std::size_t line = 0; line < storedBytes.size(); line += 16) {
        html += QStringLiteral("%1  ").arg(line, 4, 16, QLatin1Char('0'));
        for (std::size_t i = line; i < std::min(line + 16, storedBytes.size()); ++i) {
            const int field = fieldAt(i);
            const QString hex = QStringLiteral("%1").arg(storedBytes[i], 2, 16, QLatin1Char('0'));
            html += field >= 0 ? QStringLiteral("<span style='background:%1'>%2</span> ").arg(QLatin1String(kFieldColors[field % 5]), hex) : hex + QLatin1Char(' ');
        }
        html += QLatin1Char('\n');
    }
    html += QStringLiteral("</pre><table cellspacing=4><tr>") + cell(QObject::tr("field"), true) + cell(QObject::tr("bytes"), true)
          + cell(QObject::tr("value"), true) + cell(QObject::tr("meaning"), true) + QStringLiteral("</tr>");
    for (std::size_t f = 0; f < fields.size(); ++f) {
        const gguf::BlockField& field = fields[f];
        html += QStringLiteral("<tr><td style='background:%1'>%2</td>").arg(QLatin1String(kFieldColors[f % 5]), QString::fromLatin1(field.name))
              + cell(QStringLiteral("%1–%2").arg(field.offset).arg(field.offset + field.size - 1))
              + cell(QString::fromStdString(gguf::decodeFieldValue(field, littleEndianBytes.data()))) + cell(QString::fromLatin1(field.meaning))
              + QStringLiteral("</tr>");
    }
    html += QStringLiteral("</table>");

    if (scales) {
        const gguf::BlockScaleLayout& layout = scales->layout;
        html += QObject::tr("<p><b>Sub-blocks</b> (%1 of %2 elements)").arg(layout.subScales).arg(layout.elementsPerSubBlock);
        for (std::uint32_t k = 0; k < layout.superScales; ++k)
            html += QStringLiteral(" &nbsp; %1 = %2").arg(QString::fromStdString(layout.superScaleNames[k]), number(scales->superScales[k]));
        html += QStringLiteral("</p><table cellspacing=4><tr>") + cell(QObject::tr("sub-block"), true) + cell(QObject::tr("scale"), true);
        const bool showCodes = layout.superScales > 0 && layout.subScales > 1 && scales->superScales[0] != 0.0f;
        if (showCodes)
            html += cell(QObject::tr("scale / %1").arg(QString::fromStdString(layout.superScaleNames[0])), true);
        const bool showMinCodes = layout.subMins > 0 && layout.superScales > 1 && scales->superScales[1] != 0.0f;
        if (layout.subMins)
            html += cell(QObject::tr("min"), true);
        if (showMinCodes)
            html += cell(QObject::tr("min / %1").arg(QString::fromStdString(layout.superScaleNames[1])), true);
        html += QStringLiteral("</tr>");
        for (std::uint32_t s = 0; s < layout.subScales; ++s) {
            html += QStringLiteral("<tr>") + cell(QString::number(s)) + cell(number(scales->subScales[s]));
            if (showCodes)
                html += cell(number(scales->subScales[s] / scales->superScales[0]));
            if (layout.subMins)
                html += cell(number(scales->subMins[s]));
            if (showMinCodes)
                html += cell(number(scales->subMins[s] / scales->superScales[1]));
            html += QStringLiteral("</tr>");
        }
        html += QStringLiteral("</table>");
    }

    // Levels are what the quant bits select: (value ∓ min) / scale, exact for linear types.
    html += QObject::tr("<p><b>Elements</b></p><table cellspacing=4><tr>") + cell(QObject::tr("#"), true) + cell(QObject::tr("value"), true)
          + (scales ? cell(QObject::tr("level"), true) : QString()) + QStringLiteral("</tr>");
    for (std::size_t i = 0; i < values.size(); ++i) {
        html += QStringLiteral("<tr>") + cell(QString::number(i)) + cell(number(values[i]));
        if (scales) {
            const gguf::BlockScaleLayout& layout = scales->layout;
            const std::size_t sub = i / layout.elementsPerSubBlock;
            double level = values[i];
            if (layout.subMins)
                level += layout.minRole == gguf::MinRole::Subtracted ? scales->subMins[sub] : -scales->subMins[sub];
            const double scale = scales->subScales[sub];
            html += cell(scale != 0.0 ? number(level / scale) : QStringLiteral("–"));
        }
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}
