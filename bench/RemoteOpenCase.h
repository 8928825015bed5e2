#pragma once
// Opening the 70B-layout model (SparseModelFile.h) over HTTP from a local lighttpd (127.0.0.1):
// time until the tensor index is usable, requests and bytes; then a zoomed heatmap window of
// 64 rows of the 1.05e9-weight output matrix, fetched and reduced. Loopback has no latency, so
// the figures are the reader's own cost, not a network's.

#include "Report.h"

#include <string>

namespace bench {

// Skips (returns true, says why on stderr) when lighttpd is not installed.
bool runRemoteOpenCase(const std::string& workDir, int runs, Report& report);

}  // namespace bench
