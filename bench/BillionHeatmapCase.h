#pragma once
// The heatmap of a 1-billion-element Q4_K tensor (Llama-3-70B's output matrix, [8192, 128256])
// at 1920x1080 cells: wall time from request to finished cells, and the peak memory it added.

#include "Report.h"
#include "Workspace.h"

#include <cstdint>

namespace bench {

// `rows` < 128256 runs a smaller tensor of the same width (for quick runs).
void runBillionHeatmapCase(std::uint64_t rows, Workspace& workspace, Report& report);

}  // namespace bench
