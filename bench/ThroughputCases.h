#pragma once
// The per-type throughput cases over one synthetic tensor: plain dequantization (single thread,
// all cores, and the scalar kernel for comparison) and the fused paths whose output stays in
// cache (dequantize -> heatmap, -> statistics, -> error metrics against an f16 reference).
// Each row carries the memset and memcpy of the same output size measured just before it.

#include "Report.h"
#include "SyntheticTensor.h"
#include "Workspace.h"

namespace bench {

class GgmlAnchor;

// With `ggml` (a loaded --ggml-lib), also ggml's to_float on the same bytes, interleaved with
// ours on one thread, with the ratio of CPU times and whether every output bit agrees.
void runDequantizeCases(const SyntheticTensor& tensor, Workspace& workspace, Report& report, const GgmlAnchor* ggml = nullptr);
void runFusedCases(const SyntheticTensor& tensor, const SyntheticTensor& reference, Workspace& workspace, Report& report);

}  // namespace bench
