// gguf-explorer-forward-bench: tokens per second of the forward pass (core/forward) on a
// 7B-shaped llama layer stack with synthetic f32 weights, and the memory it holds. The file has
// `--layers` layers of Llama-2-7B's shape (default 2, about 2.6 GB); the per-layer time is
// measured and the 32-layer figure extrapolated from it, printed as such.
//
// usage: gguf-explorer-forward-bench [--layers N] [--tokens N] [--file PATH] [--keep]

#include "SyntheticLlamaFile.h"
#include "forward/ForwardPass.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// VmHWM (peak resident set) and VmRSS in bytes, from /proc/self/status.
std::pair<std::uint64_t, std::uint64_t> residentBytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    std::uint64_t peak = 0, now = 0;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0)
            peak = std::stoull(line.substr(6)) * 1024;
        if (line.rfind("VmRSS:", 0) == 0)
            now = std::stoull(line.substr(6)) * 1024;
    }
    return {peak, now};
}

double gib(std::uint64_t bytes)
{
    return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv)
{
    forwardbench::LlamaShape shape;
    std::int64_t tokenCount = 128;
    std::string path = "/tmp/ggufx-forward-bench-7b.gguf";
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--layers" && i + 1 < argc)
            shape.layers = std::stoll(argv[++i]);
        else if (arg == "--tokens" && i + 1 < argc)
            tokenCount = std::stoll(argv[++i]);
        else if (arg == "--file" && i + 1 < argc)
            path = argv[++i];
        else if (arg == "--keep")
            keep = true;
        else {
            std::fprintf(stderr, "usage: gguf-explorer-forward-bench [--layers N] [--tokens N] [--file PATH] [--keep]\n");
            return 2;
        }
    }
    if (access(path.c_str(), R_OK) != 0) {
        const auto start = Clock::now();
        if (const std::string error = forwardbench::writeSyntheticLlama(path, shape); !error.empty()) {
            std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), error.c_str());
            return 1;
        }
        std::printf("# wrote %s (%lld layers of 7B shape) in %.1f s\n", path.c_str(), static_cast<long long>(shape.layers),
                    std::chrono::duration<double>(Clock::now() - start).count());
    }
    auto model = gguf::Model::open(path);
    if (!model) {
        std::fprintf(stderr, "%s\n", model.error().toString().c_str());
        return 1;
    }
    std::minstd_rand random(7);
    std::vector<std::int32_t> tokens;
    for (std::int64_t i = 0; i < tokenCount; ++i)
        tokens.push_back(static_cast<std::int32_t>(random() % static_cast<unsigned>(shape.vocabulary)));

    std::printf("%-8s %7s %7s %12s %12s %14s %13s %11s\n", "sums", "tokens", "layers", "s/layer", "s/output", "tok/s (file)",
                "tok/s (32 L)", "weights GiB");
    const char* const sumNames[] = {"lanes", "sgemm", "double"};
    for (const int sums : {0, 1, 2}) {
        for (int repeat = 0; repeat < 2; ++repeat) {  // the first run also warms the page cache
            gguf::ForwardOptions options;
            options.accumulateInDouble = sums == 2;
            options.accumulateWithBlas = sums == 1;
            options.keepHiddenStates = false;
            std::vector<Clock::time_point> marks{Clock::now()};
            options.progress = [&](std::int64_t, std::int64_t) { marks.push_back(Clock::now()); };
            auto result = gguf::runForward(**model, tokens, options);
            if (!result) {
                std::fprintf(stderr, "%s\n", result.error().toString().c_str());
                return 1;
            }
            if (repeat == 0)
                continue;
            const double total = std::chrono::duration<double>(marks.back() - marks.front()).count();
            const double output = std::chrono::duration<double>(marks.back() - marks[marks.size() - 2]).count();
            const double perLayer = (total - output) / static_cast<double>(shape.layers);
            const double full = 32.0 * perLayer + output;
            std::printf("%-8s %7lld %7lld %12.3f %12.3f %14.1f %13.2f %11.2f\n", sumNames[sums],
                        static_cast<long long>(tokenCount), static_cast<long long>(shape.layers), perLayer, output,
                        static_cast<double>(tokenCount) / total, static_cast<double>(tokenCount) / full, gib(result->peakWeightBytes));
        }
    }
    const auto [peak, now] = residentBytes();
    std::printf("# peak resident %.2f GiB (includes the mapped file's pages read so far: %.2f GiB file)\n", gib(peak),
                gib(static_cast<std::uint64_t>((*model)->summary().fileSize)));
    (void)now;
    if (!keep)
        std::remove(path.c_str());
    return 0;
}
