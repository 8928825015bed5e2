#pragma once
// Opening a 70B-layout model (SparseModelFile.h): time until the tensor index is usable and the
// resident memory it took, in this process and as a whole `gguf-explorer-cli info` process.

#include "Report.h"

#include <string>

namespace bench {

// `cliPath` may be empty (no CLI built): then only the in-process figures are reported.
// Returns false (with a message on stderr) when the file cannot be written.
bool runOpenCase(const std::string& workDir, const std::string& cliPath, int runs, Report& report);

}  // namespace bench
