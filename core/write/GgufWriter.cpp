#include "core/write/GgufWriter.h"

#include "core/types/GgmlType.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <type_traits>

namespace gguf {

namespace {

constexpr std::uint32_t kVersion = 3;
constexpr std::uint64_t kDefaultAlignment = 32;
constexpr std::size_t kMaxTensorNameLength = 63;  // ggml's GGML_MAX_NAME (64) counts the NUL
constexpr std::size_t kPaddingChunk = 4096;

template <class T>
void appendLe(std::string& out, T value)
{
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    if constexpr (std::endian::native == std::endian::big)
        std::reverse(bytes, bytes + sizeof(T));
    out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

void appendString(std::string& out, std::string_view text)
{
    appendLe<std::uint64_t>(out, text.size());
    out.append(text);
}

template <class T>
EncodedValue scalar(ValueType type, T value)
{
    EncodedValue encoded{type, {}};
    appendLe(encoded.payload, value);
    return encoded;
}

std::uint64_t paddingFor(std::uint64_t position, std::uint64_t alignment)
{
    return (alignment - position % alignment) % alignment;
}

Status writeZeros(ByteSink& sink, std::uint64_t count)
{
    static const char zeros[kPaddingChunk] = {};
    while (count > 0) {
        const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(count, kPaddingChunk));
        if (Status s = sink.write(zeros, piece); !s)
            return s;
        count -= piece;
    }
    return Ok{};
}

// Passes a producer's bytes through while holding it to the tensor's exact size.
class BoundedSink final : public ByteSink {
public:
    BoundedSink(ByteSink& target, std::uint64_t size, const std::string& tensorName)
        : m_target(target), m_remaining(size), m_name(tensorName)
    {
    }
    Status write(const void* data, std::size_t size) override
    {
        if (size > m_remaining)
            return Error{"tensor '" + m_name + "': its data producer wrote more bytes than the tensor holds", Error::kNoOffset, {}};
        m_remaining -= size;
        return m_target.write(data, size);
    }
    Status commit() override { return Ok{}; }
    std::uint64_t remaining() const { return m_remaining; }

private:
    ByteSink& m_target;
    std::uint64_t m_remaining;
    const std::string& m_name;
};

Error specError(const TensorSpec& spec, const std::string& problem)
{
    return Error{"cannot add tensor '" + spec.name + "': " + problem, Error::kNoOffset, {}};
}

}  // namespace

// ---- EncodedValue -----------------------------------------------------------------------------

EncodedValue EncodedValue::u8(std::uint8_t v) { return scalar(ValueType::U8, v); }
EncodedValue EncodedValue::i8(std::int8_t v) { return scalar(ValueType::I8, v); }
EncodedValue EncodedValue::u16(std::uint16_t v) { return scalar(ValueType::U16, v); }
EncodedValue EncodedValue::i16(std::int16_t v) { return scalar(ValueType::I16, v); }
EncodedValue EncodedValue::u32(std::uint32_t v) { return scalar(ValueType::U32, v); }
EncodedValue EncodedValue::i32(std::int32_t v) { return scalar(ValueType::I32, v); }
EncodedValue EncodedValue::u64(std::uint64_t v) { return scalar(ValueType::U64, v); }
EncodedValue EncodedValue::i64(std::int64_t v) { return scalar(ValueType::I64, v); }
EncodedValue EncodedValue::f32(float v) { return scalar(ValueType::F32, std::bit_cast<std::uint32_t>(v)); }
EncodedValue EncodedValue::f64(double v) { return scalar(ValueType::F64, std::bit_cast<std::uint64_t>(v)); }
EncodedValue EncodedValue::boolean(bool v) { return scalar(ValueType::Bool, std::uint8_t(v ? 1 : 0)); }

EncodedValue EncodedValue::string(std::string_view v)
{
    EncodedValue encoded{ValueType::String, {}};
    appendString(encoded.payload, v);
    return encoded;
}

EncodedValue EncodedValue::stringArray(std::span<const std::string> values)
{
    EncodedValue encoded{ValueType::Array, {}};
    appendLe<std::uint32_t>(encoded.payload, static_cast<std::uint32_t>(ValueType::String));
    appendLe<std::uint64_t>(encoded.payload, values.size());
    for (const std::string& value : values)
        appendString(encoded.payload, value);
    return encoded;
}

Result<EncodedValue> EncodedValue::fixedArray(ValueType elementType, std::string_view littleEndianBytes)
{
    const std::uint32_t size = fixedValueSize(elementType);
    if (size == 0)
        return Error{std::string("fixedArray: element type ") + valueTypeName(elementType) + " has no fixed size", Error::kNoOffset, {}};
    if (littleEndianBytes.size() % size != 0)
        return Error{"fixedArray: " + std::to_string(littleEndianBytes.size()) + " bytes are not a whole number of "
                     + valueTypeName(elementType) + " elements", Error::kNoOffset, {}};
    EncodedValue encoded{ValueType::Array, {}};
    appendLe<std::uint32_t>(encoded.payload, static_cast<std::uint32_t>(elementType));
    appendLe<std::uint64_t>(encoded.payload, littleEndianBytes.size() / size);
    encoded.payload.append(littleEndianBytes);
    return encoded;
}

Result<EncodedValue> EncodedValue::array(ValueType elementType, std::span<const EncodedValue> elements)
{
    if (!isValidValueType(static_cast<std::uint32_t>(elementType)))
        return Error{"array: invalid element type", Error::kNoOffset, {}};
    EncodedValue encoded{ValueType::Array, {}};
    appendLe<std::uint32_t>(encoded.payload, static_cast<std::uint32_t>(elementType));
    appendLe<std::uint64_t>(encoded.payload, elements.size());
    for (const EncodedValue& element : elements) {
        if (element.type != elementType)
            return Error{std::string("array: an element of type ") + valueTypeName(element.type) + " in an array of "
                         + valueTypeName(elementType), Error::kNoOffset, {}};
        encoded.payload += element.payload;
    }
    return encoded;
}

Result<EncodedValue> EncodedValue::copyOf(const MetadataValue& value, bool sourceBigEndian)
{
    switch (value.type()) {
    case ValueType::U8: return u8(static_cast<std::uint8_t>(*value.toUInt()));
    case ValueType::U16: return u16(static_cast<std::uint16_t>(*value.toUInt()));
    case ValueType::U32: return u32(static_cast<std::uint32_t>(*value.toUInt()));
    case ValueType::U64: return u64(*value.toUInt());
    case ValueType::I8: return i8(static_cast<std::int8_t>(*value.toInt()));
    case ValueType::I16: return i16(static_cast<std::int16_t>(*value.toInt()));
    case ValueType::I32: return i32(static_cast<std::int32_t>(*value.toInt()));
    case ValueType::I64: return i64(*value.toInt());
    // A float -> double -> float round trip keeps every bit except a signaling NaN's quiet bit.
    case ValueType::F32: return f32(static_cast<float>(*value.toDouble()));
    case ValueType::F64: return f64(*value.toDouble());
    case ValueType::Bool: return boolean(*value.toBool());
    case ValueType::String: return string(value.toStringView());
    case ValueType::Array: break;
    }

    const ValueType elementType = value.elementType();
    EncodedValue encoded{ValueType::Array, {}};
    appendLe<std::uint32_t>(encoded.payload, static_cast<std::uint32_t>(elementType));
    appendLe<std::uint64_t>(encoded.payload, value.arrayLength());
    if (const std::uint32_t size = fixedValueSize(elementType)) {
        // Raw element bytes keep float bits exactly; only the byte order may need turning.
        const std::size_t start = encoded.payload.size();
        const std::uint64_t bytes = value.arrayLength() * size;  // validated against the file size at open
        encoded.payload.append(reinterpret_cast<const char*>(value.fixedElementsData()), static_cast<std::size_t>(bytes));
        if (sourceBigEndian && size > 1)
            for (std::size_t at = start; at < encoded.payload.size(); at += size)
                std::reverse(encoded.payload.begin() + static_cast<std::ptrdiff_t>(at),
                             encoded.payload.begin() + static_cast<std::ptrdiff_t>(at + size));
        return encoded;
    }
    for (const std::uint64_t offset : value.elementOffsets()) {
        auto element = copyOf(value.elementAt(offset), sourceBigEndian);
        if (!element)
            return element.error();
        encoded.payload += element->payload;
    }
    return encoded;
}

// ---- GgufWriter -------------------------------------------------------------------------------

void GgufWriter::setValue(std::string_view key, EncodedValue value)
{
    for (Entry& entry : m_values) {
        if (entry.key == key) {
            entry.value = std::move(value);
            return;
        }
    }
    m_values.push_back({std::string(key), std::move(value)});
}

bool GgufWriter::removeValue(std::string_view key)
{
    const auto it = std::find_if(m_values.begin(), m_values.end(), [&](const Entry& e) { return e.key == key; });
    if (it == m_values.end())
        return false;
    m_values.erase(it);
    return true;
}

const EncodedValue* GgufWriter::findValue(std::string_view key) const
{
    for (const Entry& entry : m_values)
        if (entry.key == key)
            return &entry.value;
    return nullptr;
}

Status GgufWriter::copyMetadata(const GgufFile& file, const std::function<bool(std::string_view key)>& keep)
{
    for (const MetadataEntry& entry : file.metadata()) {
        if (keep && !keep(entry.key))
            continue;
        auto value = EncodedValue::copyOf(entry.value, file.bigEndian());
        if (!value)
            return value.error();
        setValue(entry.key, std::move(value.value()));
    }
    return Ok{};
}

Status GgufWriter::addTensor(TensorSpec spec, TensorDataProducer produce)
{
    if (spec.name.empty() || spec.name.size() > kMaxTensorNameLength)
        return specError(spec, "a tensor name must have 1 to " + std::to_string(kMaxTensorNameLength) + " bytes");
    for (const Tensor& tensor : m_tensors)
        if (tensor.spec.name == spec.name)
            return specError(spec, "a tensor of that name was already added");
    const TypeTraits* traits = findType(spec.typeId);
    if (!traits)
        return specError(spec, typeName(spec.typeId) + " has no known block size");
    if (spec.ne.empty() || spec.ne.size() > 4)
        return specError(spec, "a tensor has 1 to 4 dimensions, not " + std::to_string(spec.ne.size()));
    std::uint64_t elements = 1;
    for (const std::int64_t n : spec.ne) {
        if (n < 0)
            return specError(spec, "negative dimension " + std::to_string(n));
        if (n != 0 && elements > std::numeric_limits<std::uint64_t>::max() / 2 / static_cast<std::uint64_t>(n))
            return specError(spec, "its element count overflows");
        elements *= static_cast<std::uint64_t>(n);
    }
    if (spec.ne[0] % traits->blockSize != 0)
        return specError(spec, "row length " + std::to_string(spec.ne[0]) + " is not a multiple of the " + traits->name
                                   + " block size " + std::to_string(traits->blockSize));
    const std::uint64_t blocks = elements / traits->blockSize;
    if (blocks > std::numeric_limits<std::uint64_t>::max() / 2 / traits->blockBytes)
        return specError(spec, "its byte size overflows");
    if (!produce)
        return specError(spec, "no data producer");
    m_tensors.push_back({std::move(spec), blocks * traits->blockBytes, std::move(produce)});
    return Ok{};
}

Result<std::uint64_t> GgufWriter::alignment() const
{
    const EncodedValue* value = findValue("general.alignment");
    if (!value)
        return kDefaultAlignment;
    if (value->type != ValueType::U32 || value->payload.size() != 4)
        return Error{std::string("key 'general.alignment' must be a u32, not ") + valueTypeName(value->type), Error::kNoOffset, {}};
    std::uint32_t alignment = 0;
    for (int i = 3; i >= 0; --i)
        alignment = (alignment << 8) | static_cast<unsigned char>(value->payload[static_cast<std::size_t>(i)]);
    if (!std::has_single_bit(alignment))
        return Error{"key 'general.alignment' is " + std::to_string(alignment) + ", not a power of two", Error::kNoOffset, {}};
    return std::uint64_t{alignment};
}

Result<std::string> GgufWriter::encodeHeader(std::uint64_t alignment) const
{
    std::string header = "GGUF";
    appendLe<std::uint32_t>(header, kVersion);
    appendLe<std::uint64_t>(header, m_tensors.size());
    appendLe<std::uint64_t>(header, m_values.size());
    for (std::size_t i = 0; i < m_values.size(); ++i) {
        const Entry& entry = m_values[i];
        if (entry.key.empty())
            return Error{"metadata entry " + std::to_string(i) + " has an empty key", Error::kNoOffset, {}};
        appendString(header, entry.key);
        appendLe<std::uint32_t>(header, static_cast<std::uint32_t>(entry.value.type));
        header += entry.value.payload;
    }
    std::uint64_t offset = 0;
    for (const Tensor& tensor : m_tensors) {
        appendString(header, tensor.spec.name);
        appendLe<std::uint32_t>(header, static_cast<std::uint32_t>(tensor.spec.ne.size()));
        for (const std::int64_t n : tensor.spec.ne)
            appendLe<std::int64_t>(header, n);
        appendLe<std::uint32_t>(header, tensor.spec.typeId);
        appendLe<std::uint64_t>(header, offset);
        offset += tensor.nbytes + paddingFor(tensor.nbytes, alignment);
    }
    header.append(static_cast<std::size_t>(paddingFor(header.size(), alignment)), '\0');
    return header;
}

Result<std::uint64_t> GgufWriter::fileSize() const
{
    const auto align = alignment();
    if (!align)
        return align.error();
    const auto header = encodeHeader(*align);
    if (!header)
        return header.error();
    std::uint64_t size = header->size();
    for (const Tensor& tensor : m_tensors)
        size += tensor.nbytes + paddingFor(tensor.nbytes, *align);
    return size;
}

Status GgufWriter::write(ByteSink& sink) const
{
    const auto align = alignment();
    if (!align)
        return align.error();
    const auto header = encodeHeader(*align);
    if (!header)
        return header.error();
    if (Status s = sink.write(header->data(), header->size()); !s)
        return s;
    for (const Tensor& tensor : m_tensors) {
        BoundedSink bounded(sink, tensor.nbytes, tensor.spec.name);
        if (Status s = tensor.produce(bounded); !s)
            return s;
        if (bounded.remaining() != 0)
            return Error{"tensor '" + tensor.spec.name + "': its data producer stopped " + std::to_string(bounded.remaining())
                         + " bytes short of the tensor's " + std::to_string(tensor.nbytes), Error::kNoOffset, {}};
        if (Status s = writeZeros(sink, paddingFor(tensor.nbytes, *align)); !s)
            return s;
    }
    return Ok{};
}

Status GgufWriter::writeFile(const std::string& path, const std::function<Status()>& beforeCommit) const
{
    auto sink = openOutputFile(path);  // atomic for files; devices and FIFOs written in place
    if (!sink)
        return sink.error();
    if (Status s = write(**sink); !s)
        return s;  // the sink's destructor removes the temporary file
    if (beforeCommit)
        if (Status s = beforeCommit(); !s)
            return s;
    return (*sink)->commit();
}

std::uint32_t ggmlDimensionCount(const TensorInfo& tensor)
{
    for (std::uint32_t d = 4; d > 1; --d)
        if (tensor.ne[d - 1] > 1)
            return d;
    return 1;
}

}  // namespace gguf
