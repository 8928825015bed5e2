#pragma once
// Opens the model a manifest describes and picks out the file the manifest is about: for a
// split shard that is one shard of the model opened through shard 1.

#include "Manifest.h"
#include "core/gguf/Model.h"

#include <QString>

#include <memory>
#include <vector>

namespace testsupport {

struct ManifestModel {
    std::shared_ptr<const gguf::Model> model;
    std::uint32_t shardIndex = 0;
    const gguf::GgufFile* file = nullptr;            // the shard the manifest describes
    std::vector<const gguf::TensorInfo*> tensors;    // that shard's tensors, in file order
};

// "name-0000K-of-0000N.gguf" -> "name-00001-of-0000N.gguf"; other paths unchanged.
QString firstShardPath(const QString& path);
bool isSplitShard(const QString& path);

gguf::Result<ManifestModel> openManifestModel(const Manifest& manifest);

}  // namespace testsupport
