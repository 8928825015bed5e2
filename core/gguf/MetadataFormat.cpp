#include "core/gguf/MetadataFormat.h"

#include "core/base/Utf8.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gguf {

std::string formatFloat(double value, bool singlePrecision)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char text[40];
    for (int precision = singlePrecision ? 6 : 15; precision <= 17; ++precision) {
        std::snprintf(text, sizeof text, "%.*g", precision, value);
        const bool same = singlePrecision ? std::strtof(text, nullptr) == static_cast<float>(value) : std::strtod(text, nullptr) == value;
        if (same)
            break;
    }
    return text;
}

namespace {
std::string formatScalar(const MetadataValue& value)
{
    switch (value.type()) {
    case ValueType::F32: return formatFloat(*value.toDouble(), true);
    case ValueType::F64: return formatFloat(*value.toDouble(), false);
    case ValueType::Bool: return *value.toBool() ? "true" : "false";
    case ValueType::String: {
        std::string text(1, '"');  // appended: GCC 12's -Wrestrict misfires on "x" + std::string
        text += escapeForDisplay(value.toStringView());
        text += '"';
        return text;
    }
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64:
        return std::to_string(*value.toInt());
    default: return std::to_string(*value.toUInt());
    }
}
}  // namespace

std::string formatValue(const MetadataValue& value, std::size_t maxElements)
{
    if (!value.isArray())
        return formatScalar(value);
    const std::uint64_t length = value.arrayLength();
    std::string text(1, '[');  // appended: GCC 12's -Wrestrict misfires on "x" + std::string
    text += std::to_string(length);
    text += " × ";
    text += valueTypeName(value.elementType());
    text += ']';
    // Walk sequentially: element(i) on a string array would restart from the front each time.
    std::uint64_t shown = 0;
    MetadataValue element = length > 0 ? value.element(0) : MetadataValue();
    for (; shown < length && shown < maxElements; ++shown) {
        text += shown == 0 ? " " : ", ";
        text += element.isArray() ? formatValue(element, 3) : formatScalar(element);
        if (shown + 1 < length)
            element = value.elementAt(element.offset() + element.encodedSize());
    }
    if (shown < length)
        text += ", …";
    return text;
}

void writeValueJson(JsonWriter& json, const MetadataValue& value)
{
    switch (value.type()) {
    case ValueType::F32: case ValueType::F64: json.value(*value.toDouble()); return;
    case ValueType::Bool: json.value(*value.toBool()); return;
    case ValueType::String: json.value(value.toStringView()); return;
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64: json.value(*value.toInt()); return;
    case ValueType::Array: break;
    default: json.value(*value.toUInt()); return;
    }
    json.beginArray();
    const std::uint64_t length = value.arrayLength();
    MetadataValue element = length > 0 ? value.element(0) : MetadataValue();
    for (std::uint64_t i = 0; i < length; ++i) {
        writeValueJson(json, element);
        if (i + 1 < length)
            element = value.elementAt(element.offset() + element.encodedSize());
    }
    json.endArray();
}

}  // namespace gguf
