#pragma once
// The compare path itself (ModelComparison + ComparisonEngine, what `compare` and the GUI run)
// on two one-tensor files, next to the dequantization of each input: the goal is at
// least half the slower input's dequantization speed per thread, and scaling with threads.

#include "BenchOptions.h"
#include "Report.h"
#include "SyntheticTensor.h"
#include "Workspace.h"

namespace bench {

void runFusedCompareCase(const BenchOptions& options, const SyntheticTensor& tensor, const SyntheticTensor& reference,
                         Workspace& workspace, Report& report);

}  // namespace bench
