#include "core/gguf/Model.h"

#include "core/gguf/CompanionScales.h"

#include "core/gguf/SplitName.h"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>

namespace gguf {

namespace {
// split.count and split.no as llama.cpp writes them (u16), but any non-negative integer type is
// read. Absent: an empty optional. Present but not a non-negative integer: a precise error.
Result<std::optional<std::uint64_t>> readSplitKey(const GgufFile& file, std::string_view key)
{
    const MetadataEntry* entry = file.findMetadata(key);
    if (!entry)
        return std::optional<std::uint64_t>();
    if (const auto value = entry->value.toUInt())
        return std::optional<std::uint64_t>(*value);
    const auto signedValue = entry->value.toInt();
    const std::string shown = signedValue ? std::to_string(*signedValue) : "of type " + entry->value.typeName();
    return Error{"key '" + std::string(key) + "' is " + shown + "; it must be a non-negative integer", entry->value.offset(),
                 file.path()};
}

Result<std::uint64_t> readShardCount(const GgufFile& file)
{
    auto count = readSplitKey(file, "split.count");
    if (!count)
        return count.error();
    if (count.value() && *count.value() == 0)
        return Error{"key 'split.count' is 0; a model has at least one shard", file.findMetadata("split.count")->value.offset(),
                     file.path()};
    return count.value().value_or(0);  // 0: the key is absent
}

// Why a shard could not be opened, in the words that fit: missing only when it does not exist.
Error shardOpenError(Error error, int k, const SplitName& split, bool local)
{
    const std::string path = split.shardPath(k);
    struct stat info {};
    const bool missing = local && ::stat(path.c_str(), &info) != 0 && errno == ENOENT;
    const bool unopenable = error.message.rfind("cannot open", 0) == 0;
    error.message = "shard " + std::to_string(k) + " of " + std::to_string(split.count) + " of the split model (" + path + ") "
                  + (missing ? "is missing: " : unopenable ? "cannot be opened: " : "is invalid: ") + error.message;
    return error;
}
}  // namespace

Result<std::shared_ptr<const Model>> Model::open(const std::string& path, HeaderRetention retention)
{
    return open(path, {}, retention);
}

Result<std::shared_ptr<const Model>> Model::open(const std::string& path, const FileOpener& openFile)
{
    return open(path, openFile, HeaderRetention::Full);
}

Result<std::shared_ptr<const Model>> Model::open(const std::string& path, const FileOpener& openFile, HeaderRetention retention)
{
    const auto openOne = [&](const std::string& name) { return openFile ? openFile(name) : GgufFile::open(name, retention); };
    auto first = openOne(path);
    if (!first)
        return first.error();

    std::shared_ptr<Model> model(new Model());
    const auto split = SplitName::parse(path);
    const auto declared = readShardCount(**first);
    if (!declared)
        return declared.error();
    const std::uint64_t declaredCount = declared.value();
    if (declaredCount == 0 && split && split->count > 1)
        return Error{"the file name says shard " + std::to_string(split->index) + " of " + std::to_string(split->count)
                     + " of a split model, but the file has no key 'split.count'", Error::kNoOffset, path};
    if (declaredCount > 1 && !split)
        return Error{"key 'split.count' says this is one of " + std::to_string(declaredCount) + " shards, but the file name is not "
                     "of the form NAME-0000K-of-0000N.gguf, so the other shards cannot be found",
                     first.value()->findMetadata("split.count")->value.offset(), path};
    if (declaredCount >= 1 && split && declaredCount != static_cast<std::uint64_t>(split->count))
        return Error{"split.count is " + std::to_string(declaredCount) + " but the file name says "
                     + std::to_string(split->count) + " shards", first.value()->findMetadata("split.count")->value.offset(), path};
    if (declaredCount <= 1) {
        if (Status s = model->addShard(std::move(first.value())); !s)
            return s.error();
        if (Status s = model->checkSplitKeys(); !s)
            return s.error();
        return std::shared_ptr<const Model>(std::move(model));
    }

    // Every shard must agree with the name and with each other, so the verdict is the same
    // whichever shard was opened.
    for (int k = 1; k <= split->count; ++k) {
        std::shared_ptr<const GgufFile> shard;
        if (k == split->index) {
            shard = first.value();
        } else {
            auto opened = openOne(split->shardPath(k));
            if (!opened)
                return shardOpenError(opened.error(), k, *split, !openFile);
            shard = std::move(opened.value());
        }
        const auto count = readShardCount(*shard);
        if (!count)
            return count.error();
        if (count.value() != static_cast<std::uint64_t>(split->count))
            return Error{"split.count is " + (count.value() ? std::to_string(count.value()) : std::string("missing")) + ", expected "
                         + std::to_string(split->count) + " as in the file name of shard " + std::to_string(k),
                         count.value() ? shard->findMetadata("split.count")->value.offset() : Error::kNoOffset, shard->path()};
        const auto number = readSplitKey(*shard, "split.no");
        if (!number)
            return number.error();
        if (!number.value() || *number.value() != static_cast<std::uint64_t>(k - 1))
            return Error{"split.no is " + (number.value() ? std::to_string(*number.value()) : std::string("missing")) + ", expected "
                         + std::to_string(k - 1) + " for shard " + std::to_string(k), Error::kNoOffset, shard->path()};
        if (Status s = model->addShard(std::move(shard)); !s)
            return s.error();
    }
    if (Status s = model->checkSplitKeys(); !s)
        return s.error();
    return std::shared_ptr<const Model>(std::move(model));
}

// Every shard that states split.tensors.count must state the number of tensors of all shards.
Status Model::checkSplitKeys() const
{
    const MetadataEntry* firstSave = m_shards.front()->findMetadata(kSplitSaveIdKey);
    for (std::size_t k = 1; k < m_shards.size(); ++k) {
        const MetadataEntry* save = m_shards[k]->findMetadata(kSplitSaveIdKey);
        const auto idOf = [](const MetadataEntry* entry) { return entry ? "'" + std::string(entry->value.toStringView()) + "'" : std::string("none"); };
        if (bool(save) != bool(firstSave) || (save && save->value.toStringView() != firstSave->value.toStringView()))
            return Error{"shard " + std::to_string(k + 1) + " is not of the same save as shard 1 (" + std::string(kSplitSaveIdKey) + " " + idOf(save)
                             + " against " + idOf(firstSave) + "): the set mixes the files of two saves",
                         save ? save->value.offset() : Error::kNoOffset, m_shards[k]->path()};
    }
    for (const auto& shard : m_shards) {
        const MetadataEntry* total = shard->findMetadata("split.tensors.count");
        if (!total)
            continue;
        const auto expected = total->value.toUInt();
        if (!expected || *expected != tensors().size())
            return Error{"split.tensors.count says " + (expected ? std::to_string(*expected) : "a value of type " + total->value.typeName())
                         + " tensors but the " + std::to_string(m_shards.size()) + (m_shards.size() == 1 ? " shard holds " : " shards hold ")
                         + std::to_string(tensors().size()), total->value.offset(), shard->path()};
    }
    return Ok{};
}

Status Model::checkUnchanged() const
{
    for (const auto& shard : m_shards)
        if (Status unchanged = shard->mapping().checkUnchanged(); !unchanged)
            return Error{"the file changed on disk while it was being read (" + unchanged.error().message
                             + "); what was read from it cannot be trusted, run the command again",
                         Error::kNoOffset, shard->path()};
    return Ok{};
}

Status Model::addShard(std::shared_ptr<const GgufFile> shard)
{
    // The first shard's index serves as it is (its file has no duplicate names, and every
    // TensorInfo says shard 0); a second shard starts the merged copy.
    if (m_shards.empty()) {
        m_shards.push_back(std::move(shard));
        return Ok{};
    }
    if (m_shards.size() == 1) {
        const std::vector<TensorInfo>& first = m_shards.front()->tensors();
        m_tensors.reserve(first.size() + shard->tensors().size());
        for (const TensorInfo& info : first) {
            m_tensorsByName.emplace(info.name, m_tensors.size());
            m_tensors.push_back(info);
        }
    }
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
    // The merged copy's weights point at their scales in it, whichever shard holds them.
    linkOutputScales(m_tensors, [this](std::string_view name) { return findTensor(name); });
    return Ok{};
}

const TensorInfo* Model::findTensor(std::string_view name) const
{
    if (m_shards.size() == 1)
        return m_shards.front()->findTensor(name);
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
    for (const TensorInfo& tensor : tensors()) {
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
