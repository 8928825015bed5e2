// Harness 3: the writers' round trips.
//  (a) .npy / raw f32 / CSV export: the input's first bytes choose a type, a shape and a byte
//      order, the rest is the tensor's stored data. The .npy written must be a valid version 1.0
//      file whose shape and payload are exactly the dequantized values (bit for bit, NaN
//      payloads included); raw f32 must equal that payload; CSV must read back to the same
//      floats; several experts exported together get the shape [n, rows, cols].
//  (b) GGUF writer: when the input opens as a GGUF file, every metadata entry and every tensor
//      it can express is copied through GgufWriter; the result must open, and hold the same keys
//      in order with the same values and the same tensor bytes (little-endian).

#include "core/gguf/Dequantize.h"
#include "FuzzSupport.h"
#include "core/gguf/GgufFile.h"
#include "core/write/GgufWriter.h"
#include "core/write/SliceExporter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

constexpr std::size_t kOutputCap = 64u << 20;

std::vector<const gguf::TypeTraits*> decodableTypes()
{
    std::vector<const gguf::TypeTraits*> types;
    for (const gguf::TypeTraits* t = gguf::typeTableBegin(); t != gguf::typeTableEnd(); ++t)
        if (t->dequantize)
            types.push_back(t);
    return types;
}

std::string exportToMemory(std::span<const gguf::TensorSlice> slices, gguf::ExportFormat format)
{
    fuzz::MemorySink sink(kOutputCap);
    FUZZ_CHECK(gguf::exportSlices(slices, format, sink).ok());
    return sink.bytes();
}

// Checks a .npy file and returns its payload.
std::string_view npyPayload(const std::string& npy, const std::vector<std::uint64_t>& shape)
{
    FUZZ_CHECK(npy.size() >= 10 && npy.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
    const std::size_t headerLength = std::uint8_t(npy[8]) | std::size_t(std::uint8_t(npy[9])) << 8;
    const std::size_t dataStart = 10 + headerLength;
    FUZZ_CHECK(dataStart % 64 == 0 && npy.size() >= dataStart && npy[dataStart - 1] == '\n');
    std::string tuple = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        tuple += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
    const std::string expected = "{'descr': '<f4', 'fortran_order': False, 'shape': " + tuple + "), }";
    FUZZ_CHECK(npy.compare(10, expected.size(), expected) == 0);
    for (std::size_t i = 10 + expected.size(); i + 1 < dataStart; ++i)
        FUZZ_CHECK(npy[i] == ' ');
    return std::string_view(npy).substr(dataStart);
}

bool sameFloat(float a, float b)
{
    return std::isnan(a) ? std::isnan(b) : std::memcmp(&a, &b, sizeof a) == 0;
}

void checkCsv(const std::string& csv, const std::vector<float>& values, std::uint64_t rowLength)
{
    std::size_t at = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::size_t end = csv.find_first_of(",\n", at);
        FUZZ_CHECK(end != std::string::npos);
        FUZZ_CHECK(csv[end] == ((i + 1) % rowLength == 0 ? '\n' : ','));
        const std::string text = csv.substr(at, end - at);
        FUZZ_CHECK(sameFloat(std::strtof(text.c_str(), nullptr), values[i]));
        at = end + 1;
    }
    FUZZ_CHECK(at == csv.size());
}

void exportRoundTrip(const std::uint8_t* data, std::size_t size)
{
    static const std::vector<const gguf::TypeTraits*> types = decodableTypes();
    if (size < 4)
        return;
    const gguf::TypeTraits& traits = *types[data[0] % types.size()];
    const std::uint64_t blocksPerRow = 1 + data[1] % 3, rows = 1 + data[2] % 4, experts = 1 + (data[3] >> 1) % 3;
    const bool bigEndian = data[3] & 1;
    const std::uint64_t nbytes = blocksPerRow * traits.blockBytes * rows * experts;
    if (size - 4 < nbytes)
        return;

    gguf::TensorInfo tensor;
    tensor.name = "fuzz";
    tensor.nDims = experts > 1 ? 3 : 2;
    tensor.ne = {std::int64_t(blocksPerRow * traits.blockSize), std::int64_t(rows), std::int64_t(experts), 1};
    tensor.typeId = traits.id;
    tensor.traits = &traits;
    tensor.nbytes = nbytes;
    tensor.data = data + 4;
    tensor.bigEndian = bigEndian;

    std::vector<float> values(tensor.elementCount());
    FUZZ_CHECK(gguf::dequantizeElements(tensor, 0, values.size(), values).ok());
    const gguf::TensorSlice whole = gguf::wholeTensor(tensor);
    const std::string npy = exportToMemory({&whole, 1}, gguf::ExportFormat::Npy);
    const std::string_view payload = npyPayload(npy, whole.shape);
    FUZZ_CHECK(payload.size() == values.size() * sizeof(float));
    FUZZ_CHECK(std::memcmp(payload.data(), values.data(), payload.size()) == 0);
    FUZZ_CHECK(exportToMemory({&whole, 1}, gguf::ExportFormat::RawF32) == payload);
    checkCsv(exportToMemory({&whole, 1}, gguf::ExportFormat::Csv), values, whole.rowLength());

    if (experts > 1) {
        std::vector<gguf::TensorSlice> slices;
        for (std::uint64_t e = 0; e < experts; ++e)
            slices.push_back(*gguf::expertSlice(tensor, e));
        const std::string stacked = exportToMemory(slices, gguf::ExportFormat::Npy);
        FUZZ_CHECK(npyPayload(stacked, {experts, rows, whole.rowLength()}) == payload);
    }
}

// Tensor bytes in little-endian layout, as the writer must store them.
std::string littleEndianBytes(const gguf::TensorInfo& tensor)
{
    std::string bytes(reinterpret_cast<const char*>(tensor.data), tensor.nbytes);
    if (tensor.bigEndian && tensor.traits->swapBlock)
        for (std::size_t at = 0; at < bytes.size(); at += tensor.traits->blockBytes)
            tensor.traits->swapBlock(reinterpret_cast<std::uint8_t*>(bytes.data() + at));
    return bytes;
}

std::string encodedPayload(const gguf::MetadataValue& value, bool bigEndian)
{
    const auto encoded = gguf::EncodedValue::copyOf(value, bigEndian);
    FUZZ_CHECK(encoded.ok());
    return std::to_string(int(encoded->type)) + ":" + encoded->payload;
}

void ggufRoundTrip(const std::uint8_t* data, std::size_t size)
{
    static fuzz::MemoryFile input("gguf-fuzz-input");
    static fuzz::MemoryFile output("gguf-fuzz-output");
    const auto source = gguf::GgufFile::open(input.write(data, size));
    if (!source)
        return;
    const gguf::GgufFile& file = **source;
    if (file.alignment() > 4096)
        return;  // legal, but the copy would be mostly padding

    gguf::GgufWriter writer;
    FUZZ_CHECK(writer.copyMetadata(file).ok());
    std::vector<const gguf::TensorInfo*> copied;
    for (const gguf::TensorInfo& tensor : file.tensors()) {
        gguf::TensorSpec spec{std::string(tensor.name), tensor.typeId, {}};
        for (std::uint32_t d = 0; d < tensor.nDims; ++d)
            spec.ne.push_back(tensor.ne[d]);
        // The writer refuses what ggml cannot load (unknown types, no dims, 64-byte names).
        const gguf::TensorInfo* from = &tensor;
        if (writer.addTensor(std::move(spec), [from](gguf::ByteSink& out) {
                const std::string bytes = littleEndianBytes(*from);
                return out.write(bytes.data(), bytes.size());
            }).ok())
            copied.push_back(&tensor);
    }
    fuzz::MemorySink sink(kOutputCap);
    if (!writer.write(sink).ok())
        return;  // only the output cap may stop it
    const auto expectedSize = writer.fileSize();
    FUZZ_CHECK(expectedSize.ok() && *expectedSize == sink.bytes().size());

    const auto copy = gguf::GgufFile::open(output.write(sink.bytes().data(), sink.bytes().size()));
    FUZZ_CHECK(copy.ok());
    const gguf::GgufFile& result = **copy;
    FUZZ_CHECK(result.version() == 3 && !result.bigEndian());
    FUZZ_CHECK(result.metadata().size() == file.metadata().size());
    for (std::size_t i = 0; i < file.metadata().size(); ++i) {
        FUZZ_CHECK(result.metadata()[i].key == file.metadata()[i].key);
        FUZZ_CHECK(encodedPayload(result.metadata()[i].value, false) == encodedPayload(file.metadata()[i].value, file.bigEndian()));
    }
    FUZZ_CHECK(result.tensors().size() == copied.size());
    for (std::size_t i = 0; i < copied.size(); ++i) {
        const gguf::TensorInfo& written = result.tensors()[i];
        FUZZ_CHECK(written.name == copied[i]->name && written.typeId == copied[i]->typeId && written.ne == copied[i]->ne);
        FUZZ_CHECK(written.nbytes == copied[i]->nbytes);
        FUZZ_CHECK(std::string_view(reinterpret_cast<const char*>(written.data), written.nbytes) == littleEndianBytes(*copied[i]));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    exportRoundTrip(data, size);
    ggufRoundTrip(data, size);
    return 0;
}
