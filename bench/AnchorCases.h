#pragma once
// Cases measured next to an outside anchor in the same run, interleaved run by run and reported
// as best of N (the machine is shared: the best run is the one least disturbed):
// - quantize: this project's quantizers against ggml's ggml_quantize_chunk (--ggml-lib), in
//   process on the same values (bytes compared too), and the whole `convert` process;
// - compare: `compare --simulate q4_K` on a one-tensor file with 1 and 2 threads;
// - open anchors: `info` on the 70B layout and on a 3000-tensor file, against gguf-tools `show`
//   (--gguf-tools) and an older gguf-explorer-cli (--baseline-cli), when given.
// Each anchor that is not given (or fails to load) is skipped with a note.

#include "BenchOptions.h"
#include "Report.h"

#include <string>

namespace bench {

void runQuantizeAnchorCases(const BenchOptions& options, const std::string& cliPath, Report& report);
void runCompareThreadsCase(const BenchOptions& options, const std::string& cliPath, Report& report);
void runOpenAnchorCases(const BenchOptions& options, const std::string& cliPath, Report& report);

}  // namespace bench
