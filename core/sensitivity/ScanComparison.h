#pragma once
// Two scans, or a scan and a model, compared before figures are merged, resumed or planned with:
// figures of another model, text, importance matrix or arithmetic would otherwise be used without
// a trace. Each check names the first thing that differs.

#include "core/gguf/Model.h"
#include "core/sensitivity/SensitivityScan.h"

#include <string>
#include <vector>

namespace gguf {

// How a scan is named in a difference: "part 2", "the file", "this run".
struct NamedScan {
    const ScanRecord& record;
    std::string name;
};

// The first difference between two scans, as a phrase ("the types differ: part 2 has q4_K, part
// 1 q4_K,q8_0"); empty when they are one scan (one model, text, imatrix, arithmetic and settings,
// the same groups and probes), shards and figures aside. `comparePaths`: the model's and the
// imatrix's recorded paths too (merge; a resumed run records its own).
std::string scanDifference(const NamedScan& a, const NamedScan& b, bool comparePaths);

// The union of shards of one scan: each part must be one scan with the first (scanDifference),
// and a probe measured in two of them must have the same figures. The result has no shard mark.
Result<ScanRecord> mergeScanRecords(const std::vector<ScanRecord>& parts);

// Whether `record` is a scan of `model`, for planning with it: every group a tensor of the model
// with the elements and row length the scan recorded, the model's tensor names and shapes the
// ones the scan was made on, and, when `importance` is given and the scan recorded a hash of its
// weights, the same weights.
Status checkScanForModel(const ScanRecord& record, const Model& model, const ImportanceLookup& importance);

}  // namespace gguf
