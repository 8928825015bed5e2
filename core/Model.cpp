#include "Model.h"

#include "SplitName.h"

#include <algorithm>

namespace gguf {

namespace {
std::optional<std::uint64_t> splitUInt(const GgufFile& file, std::string_view key)
{
    const MetadataEntry* entry = file.findMetadata(key);
    return entry ? entry->value.toUInt() : std::nullopt;
}
}  // namespace

Result<std::shared_ptr<const Model>> Model::open(const std::string& path)
{
    auto first = GgufFile::open(path);
    if (!first)
        return first.error();

    std::shared_ptr<Model> model(new Model());
    const auto split = SplitName::parse(path);
    const auto declaredCount = splitUInt(**first, "split.count");
    if (!split || !declaredCount || *declaredCount <= 1) {
        if (Status s = model->addShard(std::move(first.value())); !s)
            return s.error();
        return std::shared_ptr<const Model>(std::move(model));
    }
    if (*declaredCount != static_cast<std::uint64_t>(split->count))
        return Error{"split.count is " + std::to_string(*declaredCount) + " but the file name says "
                     + std::to_string(split->count) + " shards", Error::kNoOffset, path};

    for (int k = 1; k <= split->count; ++k) {
        std::shared_ptr<const GgufFile> shard;
        if (k == split->index) {
            shard = first.value();
        } else {
            auto opened = GgufFile::open(split->shardPath(k));
            if (!opened) {
                Error error = opened.error();
                const bool missing = error.message.rfind("cannot open", 0) == 0;
                error.message = "shard " + std::to_string(k) + " of " + std::to_string(split->count) + " of the split model ("
                              + split->shardPath(k) + ") " + (missing ? "is missing: " : "is invalid: ") + error.message;
                return error;
            }
            shard = std::move(opened.value());
        }
        const auto number = splitUInt(*shard, "split.no");
        if (!number || *number != static_cast<std::uint64_t>(k - 1))
            return Error{"split.no is " + (number ? std::to_string(*number) : std::string("missing")) + ", expected "
                         + std::to_string(k - 1) + " for shard " + std::to_string(k), Error::kNoOffset, shard->path()};
        if (Status s = model->addShard(std::move(shard)); !s)
            return s.error();
    }
    if (Status s = model->checkSplitKeys(split->shardPath(1)); !s)
        return s.error();
    return std::shared_ptr<const Model>(std::move(model));
}

Status Model::checkSplitKeys(const std::string& firstPath) const
{
    const MetadataEntry* total = primary().findMetadata("split.tensors.count");
    if (!total)
        return Ok{};
    const auto expected = total->value.toUInt();
    if (!expected || *expected != m_tensors.size())
        return Error{"split.tensors.count says " + (expected ? std::to_string(*expected) : std::string("?")) + " tensors but the "
                     + std::to_string(m_shards.size()) + " shards hold " + std::to_string(m_tensors.size()),
                     total->value.offset(), firstPath};
    return Ok{};
}

Status Model::addShard(std::shared_ptr<const GgufFile> shard)
{
    const auto shardIndex = static_cast<std::uint32_t>(m_shards.size());
    m_tensors.reserve(m_tensors.size() + shard->tensors().size());
    for (const TensorInfo& info : shard->tensors()) {
        if (m_tensorsByName.count(info.name))
            return Error{"tensor '" + std::string(info.name) + "' appears in more than one shard", info.infoOffset, shard->path()};
        m_tensorsByName.emplace(info.name, m_tensors.size());
        m_tensors.push_back(info);
        m_tensors.back().shard = shardIndex;
    }
    m_shards.push_back(std::move(shard));
    return Ok{};
}

const TensorInfo* Model::findTensor(std::string_view name) const
{
    const auto it = m_tensorsByName.find(name);
    return it == m_tensorsByName.end() ? nullptr : &m_tensors[it->second];
}

std::string Model::metadataString(std::string_view key) const
{
    const MetadataEntry* entry = findMetadata(key);
    return entry ? std::string(entry->value.toStringView()) : std::string();
}

std::optional<std::uint64_t> Model::metadataUInt(std::string_view key) const
{
    const MetadataEntry* entry = findMetadata(key);
    return entry ? entry->value.toUInt() : std::nullopt;
}

ModelSummary Model::summary() const
{
    ModelSummary summary;
    summary.architecture = metadataString("general.architecture");
    summary.name = metadataString("general.name");
    for (const auto& shard : m_shards)
        summary.fileSize += shard->fileSize();
    for (const TensorInfo& tensor : m_tensors) {
        summary.parameterCount += tensor.elementCount();
        summary.tensorBytes += tensor.nbytes;
        auto it = std::find_if(summary.typeTotals.begin(), summary.typeTotals.end(),
                               [&](const TypeTotal& total) { return total.typeId == tensor.typeId; });
        if (it == summary.typeTotals.end())
            it = summary.typeTotals.insert(summary.typeTotals.end(), TypeTotal{tensor.typeId, 0, 0, 0});
        ++it->tensorCount;
        it->elementCount += tensor.elementCount();
        it->byteCount += tensor.nbytes;
    }
    std::sort(summary.typeTotals.begin(), summary.typeTotals.end(),
              [](const TypeTotal& a, const TypeTotal& b) { return a.typeId < b.typeId; });
    if (summary.parameterCount > 0)
        summary.averageBitsPerWeight = 8.0 * static_cast<double>(summary.tensorBytes) / static_cast<double>(summary.parameterCount);
    return summary;
}

}  // namespace gguf
