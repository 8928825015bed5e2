#pragma once
// Writes a GGUF v3 little-endian file: metadata (new keys of any type, or entries copied from an
// existing file), tensor infos, and tensor data streamed from producer callbacks, so no tensor
// has to be in memory whole. The data section and every tensor honour `general.alignment`
// (default 32), with zero padding after each tensor as ggml's writer does.

#include "core/write/ByteSink.h"
#include "core/gguf/GgufFile.h"
#include "core/gguf/MetadataValue.h"
#include "core/base/Result.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

// One metadata value ready to be written: its GGUF type and its payload (everything after the
// type tag) encoded as a v3 little-endian file stores it.
struct EncodedValue {
    ValueType type = ValueType::U8;
    std::string payload;

    static EncodedValue u8(std::uint8_t v);
    static EncodedValue i8(std::int8_t v);
    static EncodedValue u16(std::uint16_t v);
    static EncodedValue i16(std::int16_t v);
    static EncodedValue u32(std::uint32_t v);
    static EncodedValue i32(std::int32_t v);
    static EncodedValue u64(std::uint64_t v);
    static EncodedValue i64(std::int64_t v);
    static EncodedValue f32(float v);
    static EncodedValue f64(double v);
    static EncodedValue boolean(bool v);
    static EncodedValue string(std::string_view v);
    static EncodedValue stringArray(std::span<const std::string> values);
    // An array of fixed-size elements of `elementType` given as little-endian bytes
    // (`bytes.size()` must be a multiple of the element size).
    static Result<EncodedValue> fixedArray(ValueType elementType, std::string_view littleEndianBytes);
    // An array whose elements (all of `elementType`, arrays of arrays included) are given.
    static Result<EncodedValue> array(ValueType elementType, std::span<const EncodedValue> elements);

    // The value re-encoded from an opened file of any version and byte order. Bits are kept
    // exactly (f32/f64 included); strings are copied as raw bytes, valid UTF-8 or not.
    static Result<EncodedValue> copyOf(const MetadataValue& value, bool sourceBigEndian);
};

// Shape and type of a tensor to write; `ne[0]` is the fastest dimension (1 to 4 dims).
struct TensorSpec {
    std::string name;
    std::uint32_t typeId = 0;
    std::vector<std::int64_t> ne;
};

// The dimensions ggml's writer records for a tensor of `tensor`'s shape: up to the last one above
// 1, at least one (ggml_n_dims), whatever the source's header said: llama-quantize writes a
// [4, 1, 64, 1] tensor as [4, 1, 64].
std::uint32_t ggmlDimensionCount(const TensorInfo& tensor);

// Writes exactly the tensor's bytes, in storage order, into `out` (in as many pieces as it
// likes). Writing more or fewer bytes than the tensor's size is an error; so is returning one.
using TensorDataProducer = std::function<Status(ByteSink& out)>;

class GgufWriter {
public:
    // Sets `key` to `value`: an existing key keeps its position, a new key goes last.
    void setValue(std::string_view key, EncodedValue value);
    bool removeValue(std::string_view key);
    const EncodedValue* findValue(std::string_view key) const;
    std::size_t valueCount() const { return m_values.size(); }

    // Copies every entry of `file` (in file order) with setValue; `keep` may skip some.
    Status copyMetadata(const GgufFile& file, const std::function<bool(std::string_view key)>& keep = {});

    // Appends a tensor. Checks name, shape and type now; `produce` runs during write().
    Status addTensor(TensorSpec spec, TensorDataProducer produce);
    std::size_t tensorCount() const { return m_tensors.size(); }

    // From `general.alignment` (must be a u32 power of two), else 32.
    Result<std::uint64_t> alignment() const;
    // Size of the whole file write() produces.
    Result<std::uint64_t> fileSize() const;

    // Header, metadata, tensor infos, padding, then each tensor's data in order.
    Status write(ByteSink& sink) const;
    // write() through openOutputFile: a file target appears only complete (a device or FIFO is
    // written in place). The caller checks that `path` is not one of its inputs (isSameFile).
    // `beforeCommit` runs after the last byte and before the file is put in place; its error
    // leaves the target untouched (e.g. the inputs changed on disk meanwhile).
    Status writeFile(const std::string& path, const std::function<Status()>& beforeCommit = {}) const;

private:
    struct Entry {
        std::string key;
        EncodedValue value;
    };
    struct Tensor {
        TensorSpec spec;
        std::uint64_t nbytes = 0;
        TensorDataProducer produce;
    };

    Result<std::string> encodeHeader(std::uint64_t alignment) const;

    std::vector<Entry> m_values;
    std::vector<Tensor> m_tensors;
};

}  // namespace gguf
