#pragma once
// The scan file: a ScanRecord as JSON, complete or partial (a shard's, or one a stopped run left).
// Written atomically (a temporary file beside the target, renamed over it), so a kill at any
// moment leaves either the previous file or the new one, and a run resumes from it. Numbers are
// written with 17 significant digits and read back exactly, so a record that goes through a file
// and back (shards, merge) is the same to the bit. Merging and comparing scans: ScanComparison.h.

#include "core/gguf/Model.h"
#include "core/sensitivity/SensitivityScan.h"

#include <string>
#include <string_view>
#include <vector>

namespace gguf {

inline constexpr const char* kScanFormat = "gguf-explorer sensitivity scan";
inline constexpr std::uint64_t kMaxScanFileBytes = std::uint64_t{1} << 30;
// The most groups a scan file may hold when no model bounds them: one group is one tensor, and
// the largest models known have about a thousand (DeepSeek-V3: 61 blocks of about a dozen).
inline constexpr std::size_t kMaxScanGroups = std::size_t{1} << 16;

// Bounds checked while a scan file is read, so a hostile file costs no more memory than a scan
// of the model could: the groups (each a tensor), and with them the probes (at most one per
// group and type, in the scan's order).
struct ScanFileLimits {
    std::size_t maxGroups = kMaxScanGroups;
    std::string groupsBound = "any model has (" + std::to_string(kMaxScanGroups) + ")";  // for the error

    // For a scan to be used with `model`: no more groups than it has tensors.
    static ScanFileLimits forModel(const Model& model);
};

std::string scanRecordJson(const ScanRecord& record);
// `where` names the source in errors (a path). Errors carry the byte offset of what is wrong.
Result<ScanRecord> parseScanRecord(std::string_view text, const std::string& where, const ScanFileLimits& limits = {});

Status writeScanFile(const std::string& path, const ScanRecord& record);
// Reads the file in pieces: the memory it takes is the record's, not the file's.
Result<ScanRecord> readScanFile(const std::string& path, const ScanFileLimits& limits = {});

// A probe's figures by tensor name and type, or nullptr.
const ProbeFigures* findFigures(const ScanRecord& record, std::string_view tensor, std::uint32_t type);

}  // namespace gguf
