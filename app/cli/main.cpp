// gguf-explorer-cli: the scriptable face of the core. Every failure is one line on stderr and a
// non-zero exit status.

#include "Commands.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {
const char* const kUsage =
    "usage: gguf-explorer-cli COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  info FILE                                   model summary: architecture, size, types\n"
    "  meta FILE [--json]                          every metadata key and value\n"
    "  tensors FILE [--json] [--filter REGEX]      the tensor index\n"
    "  export FILE TENSOR [--expert N] [--format f32|npy|csv] [-o PATH|-]\n"
    "                                              dequantized values (default: f32 to stdout)\n"
    "  stats FILE TENSOR [--expert N] [--json] [--bins N]\n"
    "                                              min, max, mean, std, rms, zero/NaN/Inf, histogram\n"
    "\n"
    "FILE may be any shard of a split model (name-00001-of-00003.gguf); all shards are opened.\n";
}

int main(int argc, char** argv)
{
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "help") == 0) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string command = argv[1];
    const std::vector<std::string> words(argv + 2, argv + argc);
    if (command == "info")
        return runInfo(words);
    if (command == "meta")
        return runMeta(words);
    if (command == "tensors")
        return runTensors(words);
    if (command == "export")
        return runExport(words);
    if (command == "stats")
        return runStats(words);
    return reportFailure("unknown command '" + command + "' (try --help)", 2);
}
