#include "core/edit/ValueText.h"

#include "core/base/JsonReader.h"
#include "core/base/JsonWriter.h"
#include "core/gguf/GgufParser.h"
#include "core/gguf/MetadataFormat.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace gguf {

namespace {

// What the reader takes: a deeper value would make a file no reader of ours opens.
constexpr int kMaxArrayDepth = kMaxArrayNesting;

Error textError(const std::string& message)
{
    return Error{message, Error::kNoOffset, {}};
}

std::string quoted(std::string_view text)
{
    std::string out(1, '\'');
    out += escapeForDisplay(text.size() > 60 ? text.substr(0, 60) : text);
    if (text.size() > 60)
        out += "…";
    out += '\'';
    return out;
}

bool isSignedType(ValueType type)
{
    return type == ValueType::I8 || type == ValueType::I16 || type == ValueType::I32 || type == ValueType::I64;
}

bool isUnsignedType(ValueType type)
{
    return type == ValueType::U8 || type == ValueType::U16 || type == ValueType::U32 || type == ValueType::U64;
}

template <class T>
bool parseWhole(std::string_view text, T& out, int base = 10)
{
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out, base);
    return ec == std::errc() && ptr == end;
}

Result<EncodedValue> parseUnsigned(std::string_view text, ValueType type)
{
    std::uint64_t value = 0;
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const std::uint64_t limit = type == ValueType::U8    ? 0xFFu
                              : type == ValueType::U16   ? 0xFFFFu
                              : type == ValueType::U32   ? 0xFFFFFFFFu
                                                         : std::numeric_limits<std::uint64_t>::max();
    const std::string range = std::string(" is out of range for ") + valueTypeName(type) + " (0 to " + std::to_string(limit) + ")";
    if (std::int64_t negative = 0; text.starts_with('-') && parseWhole(text, negative))
        return textError(std::string(text) + range);
    if (!(hex ? parseWhole(text.substr(2), value, 16) : parseWhole(text, value))) {
        if (std::uint64_t digitsOnly = 0; !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos
                                          && !parseWhole(text, digitsOnly))
            return textError(std::string(text) + range);  // more digits than 64 bits hold
        return textError(quoted(text) + " is not a whole number for type " + valueTypeName(type));
    }
    if (value > limit)
        return textError(std::string(text) + range);
    switch (type) {
    case ValueType::U8: return EncodedValue::u8(static_cast<std::uint8_t>(value));
    case ValueType::U16: return EncodedValue::u16(static_cast<std::uint16_t>(value));
    case ValueType::U32: return EncodedValue::u32(static_cast<std::uint32_t>(value));
    default: return EncodedValue::u64(value);
    }
}

Result<EncodedValue> parseSigned(std::string_view text, ValueType type)
{
    std::int64_t value = 0;
    if (!parseWhole(text.starts_with('+') ? text.substr(1) : text, value))
        return textError(quoted(text) + " is not a whole number for type " + valueTypeName(type));
    const int bits = static_cast<int>(fixedValueSize(type)) * 8;
    const std::int64_t high = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
    const std::int64_t low = -high - 1;
    if (value < low || value > high)
        return textError(std::string(text) + " is out of range for " + valueTypeName(type) + " (" + std::to_string(low) + " to "
                         + std::to_string(high) + ")");
    switch (type) {
    case ValueType::I8: return EncodedValue::i8(static_cast<std::int8_t>(value));
    case ValueType::I16: return EncodedValue::i16(static_cast<std::int16_t>(value));
    case ValueType::I32: return EncodedValue::i32(static_cast<std::int32_t>(value));
    default: return EncodedValue::i64(value);
    }
}

// A nonzero number that would be stored as 0 is refused, as a too large one is: a silent 0
// (a rope frequency base, an epsilon) breaks the model with no trace of why.
Error tooSmall(std::string_view text, ValueType type, double smallest)
{
    return textError(std::string(text) + " is too small for " + valueTypeName(type) + ": it would be stored as 0 (smallest magnitude "
                     + formatFloat(smallest, type == ValueType::F32) + ")");
}

Result<EncodedValue> parseFloating(std::string_view text, ValueType type)
{
    std::string_view digits = text.starts_with('+') ? text.substr(1) : text;
    double value = 0.0;
    // from_chars reads "nan", "inf" and "infinity" (any case) too: a NaN or infinity must be
    // asked for by name, while an overflowing number is an error.
    const char* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    if (ptr != end || digits.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range))
        return textError(quoted(text) + " is not a number for type " + valueTypeName(type));
    if (ec == std::errc::result_out_of_range) {
        // from_chars leaves `value` alone then; strtod tells overflow (HUGE_VAL) from underflow.
        value = std::strtod(std::string(digits).c_str(), nullptr);
        if (std::isinf(value))
            return textError(std::string(text) + " is out of range for " + valueTypeName(type));
        if (value == 0.0)  // a nonzero number too small for any double
            return tooSmall(text, type, std::numeric_limits<double>::denorm_min());
    }
    if (type == ValueType::F32) {
        // Below FLT_MAX + half an ulp (2^103) a number rounds to FLT_MAX, at or above it to infinity.
        constexpr double kFloatOverflow = 340282356779733661637539395458142568448.0;
        if (std::isfinite(value) && std::fabs(value) >= kFloatOverflow)
            return textError(std::string(text) + " is out of range for f32 (largest magnitude "
                             + formatFloat(std::numeric_limits<float>::max(), true) + ")");
        if (value != 0.0 && static_cast<float>(value) == 0.0f)
            return tooSmall(text, type, std::numeric_limits<float>::denorm_min());
        return EncodedValue::f32(static_cast<float>(value));
    }
    return EncodedValue::f64(value);
}

Result<EncodedValue> parseBool(std::string_view text)
{
    if (text == "true" || text == "1")
        return EncodedValue::boolean(true);
    if (text == "false" || text == "0")
        return EncodedValue::boolean(false);
    return textError(quoted(text) + " is not a bool (true or false)");
}

Result<EncodedValue> parseScalar(std::string_view text, ValueType type)
{
    if (isUnsignedType(type))
        return parseUnsigned(text, type);
    if (isSignedType(type))
        return parseSigned(text, type);
    if (type == ValueType::F32 || type == ValueType::F64)
        return parseFloating(text, type);
    if (type == ValueType::Bool)
        return parseBool(text);
    return EncodedValue::string(text);
}

// A JSON-like list: elements of one type, strings as JSON strings, numbers and bools bare (or,
// for numbers, quoted: JSON output writes NaN as "nan"), and the words a person types that JSON
// has not (0x1f, nan, +5), each read as the element type reads it. The core's JSON reader, in its
// lenient mode, takes the text apart.
class ListParser {
public:
    explicit ListParser(std::string_view text) : m_json(text, {}, readerOptions(text)) {}

    Result<EncodedValue> parseAll(const ValueTypeName& type)
    {
        auto first = m_json.next();
        if (!first)
            return located(first.error());
        auto value = parseList(type, *first, 0);
        if (!value)
            return value;
        if (auto end = m_json.next(); !end)
            return located(end.error());
        return value;
    }

private:
    static JsonReaderOptions readerOptions(std::string_view text)
    {
        JsonReaderOptions options;
        // The list's own depth check comes first and names the reader's limit.
        options.maxDepth = kMaxArrayDepth + 1;
        // The text is in memory already: no string or word in it is longer.
        options.maxStringBytes = options.maxLiteralBytes = text.size() + 1;
        options.lenient = true;
        return options;
    }

    Result<EncodedValue> parseList(const ValueTypeName& type, JsonEvent opening, int depth)
    {
        if (depth >= kMaxArrayDepth)
            return fail("arrays nested more than " + std::to_string(kMaxArrayDepth) + " deep (the most a GGUF file may hold and be read)");
        if (type.elementTypeName.empty())
            return fail("the element type of this array is unknown; name it in full, e.g. arr[arr[u32]]");
        const auto element = ValueTypeName::parse(type.elementTypeName);
        if (!element)
            return element.error();
        if (opening != JsonEvent::BeginArray)
            return fail("an array value is a list in brackets, e.g. [1, 2] or [\"a\", \"b\"]");
        std::vector<EncodedValue> elements;
        for (;;) {
            auto event = m_json.next();
            if (!event)
                return located(event.error());
            if (*event == JsonEvent::EndArray)
                break;
            auto item = parseElement(*element, *event, depth);
            if (!item)
                return item;
            elements.push_back(std::move(item.value()));
        }
        return EncodedValue::array(element->type, elements);
    }

    Result<EncodedValue> parseElement(const ValueTypeName& type, JsonEvent event, int depth)
    {
        if (type.type == ValueType::Array)
            return parseList(type, event, depth + 1);
        switch (event) {
        case JsonEvent::String:
            return located(parseScalar(m_json.text(), type.type));
        case JsonEvent::Number:
        case JsonEvent::True:
        case JsonEvent::False:
        case JsonEvent::Null:
        case JsonEvent::Word:
            if (type.type == ValueType::String)
                return fail("a string in an array is written in double quotes");
            return located(parseScalar(m_json.text(), type.type));
        default:
            return fail(std::string("a value of type ") + valueTypeName(type.type) + " expected");
        }
    }

    // The reader's offset of the element or token at fault, as a position in the list.
    Result<EncodedValue> located(Result<EncodedValue> value) const
    {
        if (value)
            return value;
        return located(value.error());
    }
    Error located(const Error& error) const
    {
        const std::uint64_t at = error.offset == Error::kNoOffset ? m_json.offset() : error.offset;
        return textError(error.message + " (at character " + std::to_string(at) + " of the list)");
    }
    Error fail(const std::string& message) const { return located(Error{message, Error::kNoOffset, {}}); }

    JsonReader m_json;
};

void appendText(std::string& out, const MetadataValue& value, bool inList)
{
    switch (value.type()) {
    case ValueType::F32: out += formatFloat(*value.toDouble(), true); return;
    case ValueType::F64: out += formatFloat(*value.toDouble(), false); return;
    case ValueType::Bool: out += *value.toBool() ? "true" : "false"; return;
    case ValueType::String:
        if (inList)
            JsonWriter::appendEscaped(out, value.toStringView());
        else
            out += value.toStringView();
        return;
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64: out += std::to_string(*value.toInt()); return;
    case ValueType::Array: break;
    default: out += std::to_string(*value.toUInt()); return;
    }
    out += '[';
    const std::uint64_t length = value.arrayLength();
    // Walk sequentially: element(i) on a string array would restart from the front each time.
    MetadataValue element = length > 0 ? value.element(0) : MetadataValue();
    for (std::uint64_t i = 0; i < length; ++i) {
        if (i > 0)
            out += ", ";
        appendText(out, element, true);
        if (i + 1 < length)
            element = value.elementAt(element.offset() + element.encodedSize());
    }
    out += ']';
}

std::uint32_t readLe32(const std::string& bytes, std::size_t at)
{
    std::uint32_t value = 0;
    for (int i = 3; i >= 0; --i)
        value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    return value;
}

}  // namespace

Result<ValueTypeName> ValueTypeName::parse(std::string_view name)
{
    // "arr[arr]" (typeName() of an empty array of arrays): arrays whose own element type is
    // unknown, so only an empty list of them can be written.
    if (name == "arr")
        return ValueTypeName{ValueType::Array, {}};
    if (name.starts_with("arr[") && name.ends_with("]")) {
        const std::string_view inner = name.substr(4, name.size() - 5);
        auto element = parse(inner);
        if (!element)
            return element.error();
        return ValueTypeName{ValueType::Array, std::string(inner)};
    }
    for (std::uint32_t t = 0; t <= static_cast<std::uint32_t>(ValueType::F64); ++t)
        if (t != static_cast<std::uint32_t>(ValueType::Array) && name == valueTypeName(static_cast<ValueType>(t)))
            return ValueTypeName{static_cast<ValueType>(t), {}};
    if (name == "string")
        return ValueTypeName{ValueType::String, {}};
    return textError("unknown value type " + quoted(name)
                     + " (one of u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool str, or arr[TYPE])");
}

std::string ValueTypeName::toString() const
{
    return type == ValueType::Array ? "arr[" + elementTypeName + "]" : valueTypeName(type);
}

Result<EncodedValue> parseValueText(std::string_view text, std::string_view typeName)
{
    const auto type = ValueTypeName::parse(typeName);
    if (!type)
        return type.error();
    if (type->type == ValueType::Array)
        return ListParser(text).parseAll(*type);
    return parseScalar(text, type->type);
}

std::string valueAsText(const MetadataValue& value)
{
    std::string out;
    appendText(out, value, false);
    return out;
}

std::string encodedTypeName(const EncodedValue& value)
{
    if (value.type != ValueType::Array)
        return valueTypeName(value.type);
    // Payload: u32 element type, u64 length, elements; a nested array's first element names it.
    std::string name = "arr[";
    std::string_view closing = "]";
    std::size_t at = 0;
    std::string suffix = "]";
    for (;;) {
        if (at + 12 > value.payload.size())
            return name + "?" + suffix;
        const auto element = static_cast<ValueType>(readLe32(value.payload, at));
        if (element != ValueType::Array)
            return name + valueTypeName(element) + suffix;
        const bool empty = readLe32(value.payload, at + 4) == 0 && readLe32(value.payload, at + 8) == 0;
        if (empty)
            return name + "arr" + suffix;
        name += "arr[";
        suffix += closing;
        at += 12;
    }
}

}  // namespace gguf
