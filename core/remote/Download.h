#pragma once
// Saves a remote model to a folder: every shard of a split model, each through range requests
// (so a cut connection resumes, and a later run resumes a `.part` file as long as the server
// still has the same file), checked against the SHA-256 the Hub publishes for LFS files (its
// X-Linked-Etag, or an ETag that is a SHA-256) where there is one, and renamed into place only
// when complete and verified: the target name never holds a partial or unverified file.

#include "core/remote/RemoteOptions.h"
#include "core/base/Result.h"

#include <functional>
#include <string>
#include <vector>

namespace gguf::remote {

struct DownloadedFile {
    std::string path;
    std::uint64_t bytes = 0;
    std::uint64_t resumedFrom = 0;  // bytes a previous run had already saved
    std::string sha256;             // of the saved file
    std::string expectedSha256;     // from the server; empty when it gives none
};

struct DownloadOptions {
    RemoteOptions remote;
    // (file name, bytes saved, file size), from the downloading thread.
    std::function<void(const std::string&, std::uint64_t, std::uint64_t)> progress;
};

Result<std::vector<DownloadedFile>> downloadModel(const std::string& name, const std::string& directory, const DownloadOptions& options);

}  // namespace gguf::remote
