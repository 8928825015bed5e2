#include "BenchOptions.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <cctype>
#include <cstdlib>

namespace bench {

namespace {

// Every case main() runs; --cases takes any of them (and a new case is one name here).
constexpr std::string_view kCaseNames[] = {"dequantize", "fused", "open", "heatmap", "quantize", "compare", "save", "tokenize"};


std::set<std::string> commaList(const std::string& text, bool lowercase)
{
    std::set<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, end - start);
        if (lowercase)
            std::transform(item.begin(), item.end(), item.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (!item.empty())
            items.insert(item);
        start = end + 1;
    }
    return items;
}

bool positiveNumber(const std::string& text, std::uint64_t& value)
{
    char* rest = nullptr;
    value = std::strtoull(text.c_str(), &rest, 10);
    return !text.empty() && *rest == '\0' && value > 0;
}

}  // namespace

const char* BenchOptions::usage()
{
    return "usage: gguf-explorer-bench [--json] [--quick] [--cases LIST] [--types LIST] [--elements N]\n"
           "                           [--heatmap-rows N] [--workdir DIR] [--ggml-lib PATH] [--gguf-tools PATH]\n"
           "                           [--baseline-cli PATH]\n"
           "\n"
           "  --json           one JSON object per result line instead of the table\n"
           "  --quick          fewer repetitions and a small heatmap tensor (a smoke test, not figures)\n"
           "  --cases LIST     of dequantize, fused, open, heatmap, quantize, compare, tokenize (default: all)\n"
           "                   and save (Save As of a 1 GiB file, beside a plain copy)\n"
           "  --types LIST     ggml type names, e.g. q4_K,q8_0 (default: every type)\n"
           "  --elements N     elements per throughput tensor, a multiple of 4096 (default 16777216)\n"
           "  --heatmap-rows N rows of the [8192, N] Q4_K heatmap tensor (default 128256: 1.05e9 elements)\n"
           "  --workdir DIR    where the sparse 70B-layout file is written and removed (default $TMPDIR or /tmp)\n"
           "  --ggml-lib PATH  libggml-base.so: quantize next to ggml_quantize_chunk and dequantize next to its\n"
           "                   to_float, outputs compared (those rows are skipped without)\n"
           "  --gguf-tools PATH antirez's gguf-tools: `show` timed next to `info` in the open case (skipped without)\n"
           "  --baseline-cli PATH another gguf-explorer-cli (an older build) timed next to this one\n"
           "  --vocab-dir DIR  ggml-vocab-*.gguf for the tokenize case (default: the fixtures' llama.cpp/vocab)\n"
           "\n"
           "GGUFX_KERNELS=scalar|sse4.1|avx2 caps the kernels (AVX-512 runs only without a cap), GGUFX_THREADS=N the threads.\n"
           "Each row's kernel column names the instruction set it ran.\n";
}

bool BenchOptions::wantsType(const std::string& name) const
{
    if (types.empty())
        return true;
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return types.count(lower) > 0;
}

std::optional<BenchOptions> BenchOptions::parse(const std::vector<std::string>& arguments, std::string& error)
{
    BenchOptions options;
    const char* tmp = std::getenv("TMPDIR");
    options.workDir = tmp && *tmp ? tmp : "/tmp";
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        const bool hasValue = i + 1 < arguments.size();
        std::uint64_t number = 0;
        if (argument == "--help" || argument == "-h") {
            error.clear();
            return std::nullopt;
        } else if (argument == "--json") {
            options.json = true;
        } else if (argument == "--quick") {
            options.quick = true;
        } else if (argument == "--cases" && hasValue) {
            options.cases = commaList(arguments[++i], true);
            for (const std::string& name : options.cases) {
                if (std::find(std::begin(kCaseNames), std::end(kCaseNames), name) == std::end(kCaseNames)) {
                    error = "unknown case '" + name + "'";
                    return std::nullopt;
                }
            }
        } else if (argument == "--types" && hasValue) {
            options.types = commaList(arguments[++i], true);
        } else if (argument == "--elements" && hasValue && positiveNumber(arguments[i + 1], number) && number % 4096 == 0) {
            options.elements = number;
            ++i;
        } else if (argument == "--heatmap-rows" && hasValue && positiveNumber(arguments[i + 1], number) && number >= 1080) {
            options.heatmapRows = number;
            ++i;
        } else if (argument == "--vocab-dir" && hasValue) {
            options.vocabDir = arguments[++i];
        } else if (argument == "--workdir" && hasValue) {
            options.workDir = arguments[++i];
        } else if (argument == "--ggml-lib" && hasValue) {
            options.ggmlLib = arguments[++i];
        } else if (argument == "--gguf-tools" && hasValue) {
            options.ggufTools = arguments[++i];
        } else if (argument == "--baseline-cli" && hasValue) {
            options.baselineCli = arguments[++i];
        } else {
            error = "bad argument '" + argument + "'";
            return std::nullopt;
        }
    }
    if (options.quick && options.heatmapRows == 128256)
        options.heatmapRows = 8192;
    if (options.quick)
        options.openRuns = 3;
    return options;
}

}  // namespace bench
