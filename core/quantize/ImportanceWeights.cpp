#include "quantize/ImportanceWeights.h"

#include "gguf/GgufFile.h"
#include "types/GgmlType.h"

#include <cstring>

namespace gguf {

namespace {

constexpr std::string_view kSumsSuffix = ".in_sum2";
constexpr std::string_view kCountsSuffix = ".counts";

float loadF32(const std::uint8_t* p, bool bigEndian)
{
    std::uint8_t b[4];
    std::memcpy(b, p, 4);
    if (bigEndian)
        std::swap(b[0], b[3]), std::swap(b[1], b[2]);
    float value = 0.0f;
    std::memcpy(&value, b, 4);
    return value;
}

}  // namespace

Result<ImportanceWeights> ImportanceWeights::loadGguf(const std::string& path)
{
    auto opened = GgufFile::open(path);
    if (!opened)
        return opened.error();
    const GgufFile& file = **opened;
    ImportanceWeights result;
    result.m_path = path;
    if (const MetadataEntry* chunks = file.findMetadata("imatrix.chunk_count"))
        result.m_chunkCount = static_cast<std::uint32_t>(chunks->value.toUInt().value_or(0));

    for (const TensorInfo& sums : file.tensors()) {
        if (sums.name.size() <= kSumsSuffix.size() || !sums.name.ends_with(kSumsSuffix))
            continue;
        const std::string weightName(sums.name.substr(0, sums.name.size() - kSumsSuffix.size()));
        const TensorInfo* counts = file.findTensor(weightName + std::string(kCountsSuffix));
        auto fail = [&](const std::string& what) {
            return Error{"imatrix entry '" + weightName + "': " + what, file.dataOffset() + sums.offset, path};
        };
        if (!counts)
            return fail("has " + std::string(sums.name) + " but no " + weightName + std::string(kCountsSuffix));
        if (sums.typeId != typeIdValue(GgmlTypeId::F32) || counts->typeId != typeIdValue(GgmlTypeId::F32))
            return fail("in_sum2 and counts must be f32");
        const std::uint64_t experts = counts->elementCount();
        if (experts == 0 || sums.elementCount() % experts != 0 || sums.ne[0] <= 0)
            return fail(std::to_string(sums.elementCount()) + " sums do not divide into " + std::to_string(experts) + " experts");
        Entry entry;
        entry.experts = experts;
        entry.columns = sums.elementCount() / experts;
        entry.weights.resize(static_cast<std::size_t>(sums.elementCount()));
        for (std::uint64_t e = 0; e < experts; ++e) {
            const float count = loadF32(counts->data + 4 * e, file.bigEndian());
            for (std::uint64_t i = 0; i < entry.columns; ++i) {
                const std::uint64_t at = e * entry.columns + i;
                entry.weights[at] = count > 0.0f ? loadF32(sums.data + 4 * at, file.bigEndian()) / count : 1.0f;
            }
        }
        result.m_entries.emplace(weightName, std::move(entry));
    }
    if (result.m_entries.empty())
        return Error{"no importance entries (<name>.in_sum2 with <name>.counts) in this file", Error::kNoOffset, path};
    return result;
}

std::uint64_t ImportanceWeights::expertCount(std::string_view weightName) const
{
    const auto it = m_entries.find(weightName);
    return it == m_entries.end() ? 0 : it->second.experts;
}

Result<std::span<const float>> ImportanceWeights::row(std::string_view weightName, std::uint64_t expert, std::uint64_t columns) const
{
    const auto it = m_entries.find(weightName);
    if (it == m_entries.end())
        return std::span<const float>{};
    const Entry& entry = it->second;
    if (entry.columns != columns)
        return Error{"imatrix entry '" + std::string(weightName) + "' has " + std::to_string(entry.columns)
                     + " columns, the tensor's rows have " + std::to_string(columns), Error::kNoOffset, m_path};
    // A dense entry serves every expert, as llama-quantize's size check (ne[0] * ne[2]) allows only
    // when ne[2] is 1; a per-expert entry must have this expert.
    if (expert >= entry.experts)
        return Error{"imatrix entry '" + std::string(weightName) + "' has " + std::to_string(entry.experts)
                     + " expert(s), no expert " + std::to_string(expert), Error::kNoOffset, m_path};
    return std::span<const float>(entry.weights.data() + expert * columns, static_cast<std::size_t>(columns));
}

}  // namespace gguf
