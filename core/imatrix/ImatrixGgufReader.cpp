// The GGUF-based imatrix: keys imatrix.datasets (arr[str]), imatrix.chunk_count and
// imatrix.chunk_size (u32); per weight an f32 `<weight>.in_sum2` [columns, rows] and an f32
// `<weight>.counts` with one value per row. Other tensors are ignored, as llama-quantize does.

#include "core/gguf/ByteCursor.h"
#include "core/gguf/GgufFile.h"
#include "core/imatrix/ImatrixReaders.h"
#include "core/types/GgmlType.h"

#include <map>

namespace gguf {

namespace {

constexpr std::string_view kSumsSuffix = ".in_sum2";
constexpr std::string_view kCountsSuffix = ".counts";

bool removeSuffix(std::string_view& name, std::string_view suffix)
{
    if (name.size() < suffix.size() || name.substr(name.size() - suffix.size()) != suffix)
        return false;
    name.remove_suffix(suffix.size());
    return true;
}

Status readU32Key(const GgufFile& file, std::string_view key, std::int64_t& out)
{
    const MetadataEntry* entry = file.findMetadata(key);
    if (!entry)
        return imatrixError("missing imatrix metadata key '" + std::string(key) + "' (llama-quantize refuses such a file)");
    // ggml's gguf_get_val_u32 asserts the type, so anything else would abort llama-quantize.
    if (entry->value.type() != ValueType::U32)
        return imatrixError("key '" + std::string(key) + "' is " + valueTypeName(entry->value.type()) + ", expected u32",
                     entry->keyOffset);
    out = static_cast<std::int64_t>(*entry->value.toUInt());
    return Ok{};
}

Status readFloats(const TensorInfo& tensor, std::vector<float>& out)
{
    const std::uint64_t count = tensor.elementCount();
    // The parser placed the tensor inside the file, so count * 4 bytes exist.
    out.resize(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i)
        out[i] = ByteCursor::decode<float>(tensor.data + 4 * i, tensor.bigEndian);
    return Ok{};
}

Status checkF32(const TensorInfo& tensor)
{
    if (tensor.typeId != 0)
        return imatrixError("tensor '" + std::string(tensor.name) + "' is " + typeName(tensor.typeId) + ", expected f32", tensor.infoOffset);
    if (tensor.elementCount() > 0 && tensor.data == nullptr)
        return imatrixError("tensor '" + std::string(tensor.name) + "' has no data in the file", tensor.fileOffset);
    return Ok{};
}

}  // namespace

Status ImatrixGgufReader::read(const GgufFile& file, ImportanceMatrix& out)
{
    if (Status status = readU32Key(file, "imatrix.chunk_count", out.m_chunkCount); !status)
        return status;
    if (Status status = readU32Key(file, "imatrix.chunk_size", out.m_chunkSize); !status)
        return status;
    const MetadataEntry* datasets = file.findMetadata("imatrix.datasets");
    if (!datasets)
        return imatrixError("missing imatrix metadata key 'imatrix.datasets' (llama-quantize refuses such a file)");
    if (!datasets->value.isArray() || datasets->value.elementType() != ValueType::String)
        return imatrixError("key 'imatrix.datasets' is " + datasets->value.typeName() + ", expected arr[str]", datasets->keyOffset);
    for (std::uint64_t offset : datasets->value.elementOffsets())
        out.m_datasets.emplace_back(datasets->value.elementAt(offset).toStringView());

    if (file.tensors().empty())
        return imatrixError("the imatrix holds no tensors");
    struct Pair {
        const TensorInfo* sums = nullptr;
        const TensorInfo* counts = nullptr;
    };
    std::map<std::string_view, Pair> pairs;  // sorted by weight name, like llama-quantize's std::map
    std::size_t ignored = 0;
    for (const TensorInfo& tensor : file.tensors()) {
        std::string_view name = tensor.name;
        if (removeSuffix(name, kSumsSuffix))
            pairs[name].sums = &tensor;
        else if (removeSuffix(name, kCountsSuffix))
            pairs[name].counts = &tensor;
        else
            ++ignored;
    }
    if (ignored > 0)
        out.m_notes.push_back(std::to_string(ignored) + " tensor(s) are neither .in_sum2 nor .counts and were ignored");

    for (const auto& [name, pair] : pairs) {
        if (!pair.sums || !pair.counts) {
            const TensorInfo* present = pair.sums ? pair.sums : pair.counts;
            return imatrixError("tensor '" + std::string(present->name) + "' has no matching " + (pair.sums ? "counts" : "in_sum2")
                             + " tensor (mismatched sums and counts for " + std::string(name) + ")",
                         present->infoOffset);
        }
        if (Status status = checkF32(*pair.sums); !status)
            return status;
        if (Status status = checkF32(*pair.counts); !status)
            return status;
        const TensorInfo& sums = *pair.sums;
        if (sums.ne[2] != 1 || sums.ne[3] != 1)
            return imatrixError("tensor '" + std::string(sums.name) + "' has " + std::to_string(sums.nDims)
                             + " dimensions; in_sum2 is [columns] or [columns, experts]",
                         sums.infoOffset);
        if (sums.ne[0] <= 0 || sums.elementCount() == 0)
            return imatrixError("tensor '" + std::string(sums.name) + "' is empty", sums.infoOffset);
        if (pair.counts->elementCount() != static_cast<std::uint64_t>(sums.ne[1]))
            return imatrixError("tensor '" + std::string(pair.counts->name) + "' has " + std::to_string(pair.counts->elementCount())
                             + " counts for the " + std::to_string(sums.ne[1]) + " rows of its in_sum2",
                         pair.counts->infoOffset);
        ImportanceEntry entry;
        entry.name = std::string(name);
        entry.storedColumns = sums.ne[0];
        entry.storedRows = sums.ne[1];
        entry.rowLength = sums.ne[0];
        entry.sumsOffset = sums.fileOffset;
        entry.countsOffset = pair.counts->fileOffset;
        readFloats(sums, entry.sums);
        readFloats(*pair.counts, entry.counts);
        out.m_entries.push_back(std::move(entry));
    }
    return Ok{};
}

}  // namespace gguf
