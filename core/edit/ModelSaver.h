#pragma once
// Save As: writes a copy of an opened model with metadata edits applied. The header is written
// anew (same magic, byte order and version; a v1 file becomes v3, the layout every current
// reader takes), offsets are recomputed for the alignment in force (general.alignment, else 32),
// and every tensor's bytes are copied unchanged, in file order, by the kernel where it can
// (FileRangeCopy), never whole in memory. Inputs are only read. Each output file is written to
// a temporary file beside it and renamed into place once every byte is written and every input
// is checked unchanged; a split model is saved as a split model with the same shards, the edits
// applied to the first shard (which carries the model metadata), every shard marked with one
// new kSplitSaveIdKey, and the set committed all or nothing (write/AtomicFileSet.h).

#include "core/base/Result.h"
#include "core/edit/FileRangeCopy.h"
#include "core/edit/MetadataEdits.h"
#include "core/gguf/Model.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gguf {

struct SaveOptions {
    const std::atomic<bool>* cancel = nullptr;
    // Tensor bytes copied so far / in all; called from the saving thread.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    FileRangeCopy::Method firstCopyMethod = FileRangeCopy::Method::CopyFileRange;
};

struct SaveReport {
    std::vector<std::string> paths;   // the files written, one per shard
    std::uint64_t bytesWritten = 0;   // all files together
    std::uint64_t tensorBytes = 0;    // tensor data copied
    FileRangeCopy::Method copyMethod = FileRangeCopy::Method::CopyFileRange;  // the method the last bytes took
};

// The file names a save to `outputPath` writes: `outputPath` itself for a one-file model; for a
// model of N shards `PREFIX-0000K-of-0000N.gguf`, PREFIX being `outputPath` without its
// `-0000K-of-0000N.gguf` (when it names N shards) or `.gguf` ending.
std::vector<std::string> savedShardPaths(const Model& model, const std::string& outputPath);

Result<SaveReport> saveModelAs(const Model& model, const MetadataEdits& edits, const std::string& outputPath,
                               const SaveOptions& options = {});

}  // namespace gguf
