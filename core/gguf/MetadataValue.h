#pragma once
// A metadata value is a view into the mapped file, decoded on demand: opening a file never turns a
// 256k-entry vocabulary into 256k strings. Values are validated when the file is opened, so reading
// them later cannot run outside the bytes that were checked.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

enum class ValueType : std::uint32_t {
    U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
    String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};

bool isValidValueType(std::uint32_t type);
const char* valueTypeName(ValueType type);   // ggml's names: u8 ... f64, bool, str, arr
std::uint32_t fixedValueSize(ValueType type);  // 0 for String and Array

// How lengths and numbers are encoded in one file.
struct Encoding {
    const std::uint8_t* data = nullptr;  // the whole file
    std::uint64_t size = 0;
    bool bigEndian = false;
    bool narrowLengths = false;  // GGUF v1: string and array lengths are u32
};

class MetadataValue {
public:
    MetadataValue() = default;
    // `offset` is where the value's payload starts (a string's length, an array's element type).
    MetadataValue(const Encoding* encoding, ValueType type, std::uint64_t offset);

    ValueType type() const { return m_type; }
    // An array a summary open validated but did not keep (HeaderRetention::Summary): it reads as
    // empty (arrayLength() 0, no elements); storedLength() is the count the file declares.
    bool elided() const { return m_elided; }
    std::uint64_t storedLength() const { return m_elided ? m_storedLength : m_length; }
    void elide(std::uint64_t encodedBytes);
    std::uint64_t offset() const { return m_offset; }
    bool isArray() const { return m_type == ValueType::Array; }
    // "u32", "str", "arr[arr[u32]]" (nested element types read from the first element; an
    // empty array of arrays is "arr[arr]").
    std::string typeName() const;

    // Scalars. Integer readers fail (nullopt) for values of other types or out of range.
    std::optional<std::uint64_t> toUInt() const;
    std::optional<std::int64_t> toInt() const;
    std::optional<double> toDouble() const;  // any numeric type or bool
    std::optional<bool> toBool() const;
    std::string_view toStringView() const;  // empty for non-strings; raw bytes, maybe invalid UTF-8

    // Arrays.
    ValueType elementType() const { return m_elementType; }
    std::uint64_t arrayLength() const { return m_length; }
    // O(1) for fixed-size elements; walks the array for strings and nested arrays.
    MetadataValue element(std::uint64_t index) const;
    // Offsets of every element, for random access into long string arrays (built on request).
    std::vector<std::uint64_t> elementOffsets() const;
    MetadataValue elementAt(std::uint64_t elementOffset) const;
    // Raw bytes of the elements of a fixed-size array, in the file's byte order.
    const std::uint8_t* fixedElementsData() const;

    // Bytes the encoded value occupies (payload only, not the type tag).
    std::uint64_t encodedSize() const;

private:
    std::uint64_t lengthFieldSize() const;
    std::uint64_t measure(ValueType type, std::uint64_t offset) const;

    const Encoding* m_encoding = nullptr;
    ValueType m_type = ValueType::U8;
    bool m_elided = false;
    std::uint64_t m_offset = 0;
    // Arrays only: element type, element count and where the first element starts.
    ValueType m_elementType = ValueType::U8;
    std::uint64_t m_length = 0;
    std::uint64_t m_elementsOffset = 0;
    // Elided arrays only: the declared count and the bytes the value occupies.
    std::uint64_t m_storedLength = 0;
    std::uint64_t m_elidedBytes = 0;
};

struct MetadataEntry {
    std::string_view key;  // points into the mapped file
    std::uint64_t keyOffset = 0;
    MetadataValue value;
};

}  // namespace gguf
