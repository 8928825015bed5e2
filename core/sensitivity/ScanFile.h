#pragma once
// The scan file: a ScanRecord as JSON, complete or partial (a shard's, or one a stopped run left).
// Written atomically (a temporary file beside the target, renamed over it), so a kill at any
// moment leaves either the previous file or the new one, and a run resumes from it. Numbers are
// written with 17 significant digits and read back exactly, so a record that goes through a file
// and back (shards, merge) is the same to the bit.

#include "core/sensitivity/SensitivityScan.h"

#include <string>
#include <string_view>
#include <vector>

namespace gguf {

inline constexpr const char* kScanFormat = "gguf-explorer sensitivity scan";
inline constexpr std::uint64_t kMaxScanFileBytes = std::uint64_t{1} << 30;

std::string scanRecordJson(const ScanRecord& record);
// `where` names the source in errors (a path).
Result<ScanRecord> parseScanRecord(std::string_view text, const std::string& where);

Status writeScanFile(const std::string& path, const ScanRecord& record);
Result<ScanRecord> readScanFile(const std::string& path);

// The union of shards of one scan (same fingerprint and probes). A probe measured in two of them
// must have the same figures. The result has no shard mark.
Result<ScanRecord> mergeScanRecords(const std::vector<ScanRecord>& parts);

// A probe's figures by tensor name and type, or nullptr.
const ProbeFigures* findFigures(const ScanRecord& record, std::string_view tensor, std::uint32_t type);

}  // namespace gguf
