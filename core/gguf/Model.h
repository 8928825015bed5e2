#pragma once
// A model as a person sees it: one GGUF file, or every shard of a split model presented as one.

#include "core/gguf/GgufFile.h"

#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gguf {

struct TypeTotal {
    std::uint32_t typeId = 0;
    std::uint64_t tensorCount = 0;
    std::uint64_t elementCount = 0;
    std::uint64_t byteCount = 0;
};

struct ModelSummary {
    std::string architecture;  // general.architecture, empty when absent
    std::string name;          // general.name, empty when absent
    std::uint64_t parameterCount = 0;  // elements over all tensors
    std::uint64_t tensorBytes = 0;     // tensor data over all tensors
    std::uint64_t fileSize = 0;        // all shards together
    double averageBitsPerWeight = 0.0;
    std::vector<TypeTotal> typeTotals;  // ordered by type id
};

class Model {
public:
    // Opens a file; a split-model shard (`name-0000K-of-0000N.gguf`) opens all N shards.
    // `retention`: see HeaderRetention (Summary for reports that read no big array).
    static Result<std::shared_ptr<const Model>> open(const std::string& path, HeaderRetention retention = HeaderRetention::Full);
    // The same with every file (the shards' names derived from `path` as above) opened by
    // `openFile`: core/remote opens URLs so.
    using FileOpener = std::function<Result<std::shared_ptr<const GgufFile>>(const std::string& path)>;
    static Result<std::shared_ptr<const Model>> open(const std::string& path, const FileOpener& openFile);

    const std::vector<std::shared_ptr<const GgufFile>>& shards() const { return m_shards; }
    // The shard that carries the model metadata (the first).
    const GgufFile& primary() const { return *m_shards.front(); }
    const std::vector<MetadataEntry>& metadata() const { return primary().metadata(); }
    const MetadataEntry* findMetadata(std::string_view key) const { return primary().findMetadata(key); }

    // All tensors of all shards, in shard then file order. A one-file model shows its file's own
    // index (shard 0 throughout), without a copy.
    const std::vector<TensorInfo>& tensors() const { return m_shards.size() == 1 ? m_shards.front()->tensors() : m_tensors; }
    const TensorInfo* findTensor(std::string_view name) const;

    // Ok while every shard on disk is still the file that was opened (size, mtime, ctime, inode,
    // no vanished pages); else "the file changed on disk ..." naming the shard. Commands check it
    // after reading tensor data, before they report or commit what they read.
    Status checkUnchanged() const;

    ModelSummary summary() const;
    std::string metadataString(std::string_view key) const;
    std::optional<std::uint64_t> metadataUInt(std::string_view key) const;

private:
    Model() = default;
    static Result<std::shared_ptr<const Model>> open(const std::string& path, const FileOpener& openFile, HeaderRetention retention);
    Status addShard(std::shared_ptr<const GgufFile> shard);
    Status checkSplitKeys() const;

    std::vector<std::shared_ptr<const GgufFile>> m_shards;
    // Split models only: copies carrying their shard index, and their index by name.
    std::vector<TensorInfo> m_tensors;
    std::map<std::string_view, std::size_t> m_tensorsByName;
};

}  // namespace gguf
