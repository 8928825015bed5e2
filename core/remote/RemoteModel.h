#pragma once
// Opens a model that is not on this disk: the header comes over HTTP (growing reads until the
// tensor index is complete), the tensor bytes later, block-aligned, as views ask for them
// (gguf/RemoteRegion). A shard URL `…/name-00001-of-00003.gguf` opens every shard beside it.

#include "core/gguf/Model.h"
#include "core/remote/RemoteOptions.h"

namespace gguf::remote {

// `name`: an http(s) URL or hf://owner/repo/file.gguf[@rev].
Result<std::shared_ptr<const Model>> openRemoteModel(const std::string& name, const RemoteOptions& options = {});

// A local path or a remote name, whichever `name` is.
Result<std::shared_ptr<const Model>> openAnyModel(const std::string& name, const RemoteOptions& options = {});

struct RemoteTraffic {
    std::uint64_t requests = 0;
    std::uint64_t bytesReceived = 0;
    std::uint64_t residentBytes = 0;  // in the region cache now, header included
};
// Totals over the model's remote shards (zeros for a local model).
RemoteTraffic remoteTraffic(const Model& model);

}  // namespace gguf::remote
