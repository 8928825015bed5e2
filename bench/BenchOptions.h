#pragma once
// Command line of gguf-explorer-bench.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace bench {

struct BenchOptions {
    bool json = false;
    bool quick = false;              // fewer repetitions, smaller 1B case: a smoke test
    std::set<std::string> cases;     // empty: all of dequantize, fused, open, heatmap, quantize, compare
    std::set<std::string> types;     // ggml names; empty: every type
    std::uint64_t elements = std::uint64_t{1} << 24;  // per throughput tensor (16M)
    std::uint64_t heatmapRows = 128256;               // of the [8192, rows] Q4_K tensor
    std::string workDir;             // for the sparse 70B-layout file
    int openRuns = 11;
    std::string ggmlLib;      // libggml-base.so for the quantizer anchor (quantize case)
    std::string ggufTools;    // antirez's gguf-tools binary for the open anchor
    std::string baselineCli;  // another gguf-explorer-cli (e.g. an older build), measured alongside
    std::string vocabDir;     // ggml-vocab-*.gguf for the tokenize case (default: the fixtures' llama.cpp/vocab)

    bool wants(const std::string& name) const { return cases.empty() || cases.count(name) > 0; }
    bool wantsType(const std::string& name) const;

    // nullopt with `error` set on a bad command line (or --help, with `error` empty).
    static std::optional<BenchOptions> parse(const std::vector<std::string>& arguments, std::string& error);
    static const char* usage();
};

}  // namespace bench
