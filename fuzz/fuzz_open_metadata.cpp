// Harness 1: open + index + metadata walk. Any byte string is offered as a GGUF file; whatever
// opens is walked completely: every metadata value and every element of every array (nested
// too) through each accessor, formatValue, writeValueJson and typeName; every tensor info; the
// model summary and the expert index. Invariants: errors carry a message and an offset inside
// the file; every view the parser hands out stays inside the mapped bytes.

#include "core/experts/ExpertIndex.h"
#include "FuzzSupport.h"
#include "core/gguf/GgufFile.h"
#include "core/base/JsonWriter.h"
#include "core/gguf/MetadataFormat.h"
#include "core/gguf/Model.h"

namespace {

struct Bounds {
    const std::uint8_t* begin;
    std::uint64_t size;
    bool contains(const void* p, std::uint64_t length) const
    {
        const auto* q = static_cast<const std::uint8_t*>(p);
        return q >= begin && length <= size && static_cast<std::uint64_t>(q - begin) <= size - length;
    }
};

void walkValue(const gguf::MetadataValue& value, const Bounds& file, int depth)
{
    FUZZ_CHECK(depth <= 64);
    FUZZ_CHECK(value.offset() <= file.size);
    FUZZ_CHECK(value.encodedSize() <= file.size - value.offset());
    (void)value.typeName();
    (void)value.toUInt();
    (void)value.toInt();
    (void)value.toDouble();
    (void)value.toBool();
    const std::string_view text = value.toStringView();
    if (value.type() == gguf::ValueType::String)
        FUZZ_CHECK(file.contains(text.data(), text.size()));
    if (!value.isArray())
        return;
    const std::uint64_t length = value.arrayLength();
    if (const std::uint32_t size = gguf::fixedValueSize(value.elementType())) {
        FUZZ_CHECK(file.contains(value.fixedElementsData(), length * size));
        // Fixed-size elements are O(1) to reach: spot-check the ends.
        if (length > 0) {
            walkValue(value.element(0), file, depth + 1);
            walkValue(value.element(length - 1), file, depth + 1);
        }
        return;
    }
    const std::vector<std::uint64_t> offsets = value.elementOffsets();
    FUZZ_CHECK(offsets.size() == length);
    for (std::uint64_t i = 0; i < length; ++i)
        walkValue(value.elementAt(offsets[i]), file, depth + 1);
    // element(i) walks from the start; it must agree with the offsets (checked at both ends
    // only: calling it for every i would be quadratic).
    if (length > 0) {
        FUZZ_CHECK(value.element(0).offset() == offsets.front());
        FUZZ_CHECK(value.element(length - 1).offset() == offsets.back());
    }
}

void walkFile(const gguf::GgufFile& file)
{
    const Bounds bounds{file.mapping().data(), file.fileSize()};
    FUZZ_CHECK(file.dataOffset() <= file.fileSize());
    std::string json;
    gguf::JsonWriter writer(json);
    writer.beginObject();
    for (const gguf::MetadataEntry& entry : file.metadata()) {
        FUZZ_CHECK(!entry.key.empty() && bounds.contains(entry.key.data(), entry.key.size()));
        FUZZ_CHECK(file.findMetadata(entry.key) == &entry);
        walkValue(entry.value, bounds, 0);
        (void)gguf::formatValue(entry.value);
        writer.key(entry.key);
        gguf::writeValueJson(writer, entry.value);
    }
    writer.endObject();
    for (const gguf::TensorInfo& tensor : file.tensors()) {
        FUZZ_CHECK(file.findTensor(tensor.name) == &tensor);
        FUZZ_CHECK(bounds.contains(tensor.name.data(), tensor.name.size()));
        FUZZ_CHECK(tensor.nDims <= 4);
        FUZZ_CHECK(tensor.fileOffset == file.dataOffset() + tensor.offset);
        FUZZ_CHECK(tensor.nbytes == 0 || bounds.contains(tensor.data, tensor.nbytes));
        if (tensor.traits) {
            FUZZ_CHECK(tensor.ne[0] % tensor.traits->blockSize == 0);
            FUZZ_CHECK(tensor.nbytes == tensor.rowBytes() * tensor.rowCount());
        }
        (void)gguf::typeName(tensor.typeId);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static fuzz::MemoryFile input("gguf-fuzz-input");
    const std::string& path = input.write(data, size);

    const auto file = gguf::GgufFile::open(path);
    if (!file) {
        const gguf::Error& error = file.error();
        FUZZ_CHECK(!error.message.empty());
        FUZZ_CHECK(error.offset == gguf::Error::kNoOffset || error.offset <= size);
        return 0;
    }
    walkFile(**file);
    FUZZ_CHECK((*file)->mapping().stillIntact());

    const auto model = gguf::Model::open(path);
    // A file that parses is a model unless its split keys promise shards that a memfd path (no
    // NAME-0000K-of-0000N name) cannot lead to: then the model says so instead of showing part.
    if (!model) {
        FUZZ_CHECK(model.error().message.find("split") != std::string::npos);
        return 0;
    }
    const gguf::ModelSummary summary = (*model)->summary();
    FUZZ_CHECK(summary.fileSize == size);
    const gguf::ExpertIndex experts = gguf::ExpertIndex::build(**model);
    for (const gguf::ExpertLayer& layer : experts.layers())
        FUZZ_CHECK(experts.findLayer(layer.layer) != nullptr);
    return 0;
}
