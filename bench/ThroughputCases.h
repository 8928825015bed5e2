#pragma once
// The per-type throughput cases over one synthetic tensor: plain dequantization (single thread,
// all cores, and the scalar kernel for comparison) and the fused paths whose output stays in
// cache (dequantize -> heatmap, -> statistics, -> error metrics against an f16 reference).
// Each row carries the memset and memcpy of the same output size measured just before it.

#include "Report.h"
#include "SyntheticTensor.h"
#include "Workspace.h"

namespace bench {

void runDequantizeCases(const SyntheticTensor& tensor, Workspace& workspace, Report& report);
void runFusedCases(const SyntheticTensor& tensor, const SyntheticTensor& reference, Workspace& workspace, Report& report);

}  // namespace bench
