#include "core/gguf/MetadataValue.h"

#include "core/gguf/ByteCursor.h"

#include <limits>

namespace gguf {

namespace {
constexpr const char* kValueTypeNames[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool",
                                           "str", "arr", "u64", "i64", "f64"};
constexpr std::uint32_t kFixedSizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
}  // namespace

bool isValidValueType(std::uint32_t type)
{
    return type <= static_cast<std::uint32_t>(ValueType::F64);
}

const char* valueTypeName(ValueType type)
{
    return isValidValueType(static_cast<std::uint32_t>(type)) ? kValueTypeNames[static_cast<std::uint32_t>(type)] : "invalid";
}

std::uint32_t fixedValueSize(ValueType type)
{
    return isValidValueType(static_cast<std::uint32_t>(type)) ? kFixedSizes[static_cast<std::uint32_t>(type)] : 0;
}

MetadataValue::MetadataValue(const Encoding* encoding, ValueType type, std::uint64_t offset)
    : m_encoding(encoding), m_type(type), m_offset(offset)
{
    if (type != ValueType::Array)
        return;
    const std::uint8_t* p = encoding->data + offset;
    m_elementType = static_cast<ValueType>(ByteCursor::decode<std::uint32_t>(p, encoding->bigEndian));
    m_length = encoding->narrowLengths ? ByteCursor::decode<std::uint32_t>(p + 4, encoding->bigEndian)
                                       : ByteCursor::decode<std::uint64_t>(p + 4, encoding->bigEndian);
    m_elementsOffset = offset + 4 + lengthFieldSize();
}

void MetadataValue::elide(std::uint64_t encodedBytes)
{
    m_elided = true;
    m_storedLength = m_length;
    m_length = 0;
    m_elidedBytes = encodedBytes;
}

std::uint64_t MetadataValue::lengthFieldSize() const
{
    return m_encoding->narrowLengths ? 4 : 8;
}

std::string MetadataValue::typeName() const
{
    if (m_type != ValueType::Array)
        return valueTypeName(m_type);
    if (m_elementType == ValueType::Array)
        return m_length == 0 ? "arr[arr]" : "arr[" + element(0).typeName() + "]";
    return std::string("arr[") + valueTypeName(m_elementType) + "]";
}

std::optional<std::uint64_t> MetadataValue::toUInt() const
{
    const std::uint8_t* p = m_encoding->data + m_offset;
    const bool be = m_encoding->bigEndian;
    switch (m_type) {
    case ValueType::U8: return ByteCursor::decode<std::uint8_t>(p, be);
    case ValueType::U16: return ByteCursor::decode<std::uint16_t>(p, be);
    case ValueType::U32: return ByteCursor::decode<std::uint32_t>(p, be);
    case ValueType::U64: return ByteCursor::decode<std::uint64_t>(p, be);
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64: {
        const auto signedValue = toInt();
        if (signedValue && *signedValue >= 0)
            return static_cast<std::uint64_t>(*signedValue);
        return std::nullopt;
    }
    default: return std::nullopt;
    }
}

std::optional<std::int64_t> MetadataValue::toInt() const
{
    const std::uint8_t* p = m_encoding->data + m_offset;
    const bool be = m_encoding->bigEndian;
    switch (m_type) {
    case ValueType::I8: return ByteCursor::decode<std::int8_t>(p, be);
    case ValueType::I16: return ByteCursor::decode<std::int16_t>(p, be);
    case ValueType::I32: return ByteCursor::decode<std::int32_t>(p, be);
    case ValueType::I64: return ByteCursor::decode<std::int64_t>(p, be);
    case ValueType::U8: case ValueType::U16: case ValueType::U32: case ValueType::U64: {
        const auto unsignedValue = toUInt();
        if (*unsignedValue <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return static_cast<std::int64_t>(*unsignedValue);
        return std::nullopt;
    }
    default: return std::nullopt;
    }
}

std::optional<double> MetadataValue::toDouble() const
{
    const std::uint8_t* p = m_encoding->data + m_offset;
    const bool be = m_encoding->bigEndian;
    switch (m_type) {
    case ValueType::F32: return ByteCursor::decode<float>(p, be);
    case ValueType::F64: return ByteCursor::decode<double>(p, be);
    case ValueType::Bool: return *p != 0 ? 1.0 : 0.0;
    case ValueType::U8: case ValueType::U16: case ValueType::U32: case ValueType::U64:
        return static_cast<double>(*toUInt());
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64:
        return static_cast<double>(*toInt());
    default: return std::nullopt;
    }
}

std::optional<bool> MetadataValue::toBool() const
{
    if (m_type != ValueType::Bool)
        return std::nullopt;
    return m_encoding->data[m_offset] != 0;
}

std::string_view MetadataValue::toStringView() const
{
    if (m_type != ValueType::String)
        return {};
    const std::uint8_t* p = m_encoding->data + m_offset;
    const std::uint64_t length = m_encoding->narrowLengths ? ByteCursor::decode<std::uint32_t>(p, m_encoding->bigEndian)
                                                           : ByteCursor::decode<std::uint64_t>(p, m_encoding->bigEndian);
    return {reinterpret_cast<const char*>(p + lengthFieldSize()), static_cast<std::size_t>(length)};
}

MetadataValue MetadataValue::element(std::uint64_t index) const
{
    if (m_type != ValueType::Array || index >= m_length)
        return {};
    if (const std::uint32_t size = fixedValueSize(m_elementType))
        return MetadataValue(m_encoding, m_elementType, m_elementsOffset + index * size);
    std::uint64_t offset = m_elementsOffset;
    for (std::uint64_t i = 0; i < index; ++i)
        offset += measure(m_elementType, offset);
    return MetadataValue(m_encoding, m_elementType, offset);
}

std::vector<std::uint64_t> MetadataValue::elementOffsets() const
{
    std::vector<std::uint64_t> offsets;
    if (m_type != ValueType::Array)
        return offsets;
    // The length was checked against the file size at open, so this allocation is bounded by it.
    offsets.reserve(static_cast<std::size_t>(m_length));
    std::uint64_t offset = m_elementsOffset;
    for (std::uint64_t i = 0; i < m_length; ++i) {
        offsets.push_back(offset);
        offset += measure(m_elementType, offset);
    }
    return offsets;
}

MetadataValue MetadataValue::elementAt(std::uint64_t elementOffset) const
{
    return MetadataValue(m_encoding, m_elementType, elementOffset);
}

const std::uint8_t* MetadataValue::fixedElementsData() const
{
    return m_encoding->data + m_elementsOffset;
}

std::uint64_t MetadataValue::encodedSize() const
{
    if (m_elided)
        return m_elidedBytes;
    return measure(m_type, m_offset);
}

std::uint64_t MetadataValue::measure(ValueType type, std::uint64_t offset) const
{
    if (const std::uint32_t size = fixedValueSize(type))
        return size;
    if (type == ValueType::String) {
        const std::uint8_t* p = m_encoding->data + offset;
        const std::uint64_t length = m_encoding->narrowLengths ? ByteCursor::decode<std::uint32_t>(p, m_encoding->bigEndian)
                                                               : ByteCursor::decode<std::uint64_t>(p, m_encoding->bigEndian);
        return lengthFieldSize() + length;
    }
    const MetadataValue array(m_encoding, ValueType::Array, offset);
    if (const std::uint32_t size = fixedValueSize(array.m_elementType))
        return array.m_elementsOffset - offset + array.m_length * size;
    std::uint64_t end = array.m_elementsOffset;
    for (std::uint64_t i = 0; i < array.m_length; ++i)
        end += measure(array.m_elementType, end);
    return end - offset;
}

}  // namespace gguf
