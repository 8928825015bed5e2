// gguf-explorer-forward-bench: tokens per second of the forward pass (core/forward) on a
// 7B-shaped llama layer stack (or a Mixtral- / Qwen3-MoE-shaped one) with synthetic f32 weights,
// and the memory it holds; optionally side by side with llama.cpp's CPU backend on the same
// file, the same tokens and the same threads.
//
// The file has `--layers` layers (default 2 dense, 1 Mixtral, 2 Qwen3-MoE); a converted copy
// (`gguf-explorer-cli convert FILE OUT --preset Q4_K_M`) can be timed with `--file OUT`. The
// per-layer time is measured and the 32-layer figure extrapolated from it, printed as such.
//
// --llama-cpp DIR runs llama.cpp from node-llama-cpp installed in DIR (`npm i -E
// node-llama-cpp@3.21.1`, its prebuilt libllama / libggml): as paired processes, one of ours
// then one of llama.cpp's per repeat, each timing one evaluation of the same tokens. Nothing
// else in the build uses it. Two jobs are timed on each side: every position's logits, and the
// last position's alone (a plain prompt evaluation, where both prune the last layer's FFN to
// that position); the second has no per-position cost in node-llama-cpp's binding.
//
// usage: gguf-explorer-forward-bench [--shape dense|mixtral|qwen3moe] [--layers N] [--tokens N]
//        [--threads N] [--sums lanes,sgemm,double] [--repeats N] [--file PATH] [--keep]
//        [--llama-cpp DIR] [--f32-activations | --llama-activations] [--scan-probes N]
//
// Without --file (or with a --file that does not exist yet) the bench writes the synthetic file,
// and removes it at the end unless --keep; a --file that was already there is never removed.
//
// --scan-probes N then prepares the sensitivity scan on the same tokens (one chunk) and times N
// of its probes, spread over its probe list: seconds per probe and per whole pass (ScanProbes.h).
//
// Ours runs with the pass's default arithmetic (ForwardOptions::activations): q8_0 / q8_K
// activations into quantized weights, whose products are then integer dot products
// (kernels/QuantizedDot.h), f32 elsewhere. --f32-activations runs the slower f32 mode;
// --llama-activations all of llama.cpp's rounding (also f16 before f16 products, its attention).

#include "ScanProbes.h"
#include "SyntheticLlamaFile.h"
#include "app/threads/ParallelRows.h"
#include "core/base/LargeBufferReuse.h"
#include "core/forward/ForwardPass.h"
#include "core/kernels/KernelIsaCap.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef GGUFX_LLAMA_CPP_SCRIPT
#define GGUFX_LLAMA_CPP_SCRIPT "llama-cpp-side-by-side.mjs"
#endif

namespace {

using Clock = std::chrono::steady_clock;

// VmHWM (peak resident set) in bytes, from /proc/self/status.
std::uint64_t peakResidentBytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoull(line.substr(6)) * 1024;
    return 0;
}

double gib(std::uint64_t bytes)
{
    return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

// The number after `"key":` in a JSON line, or -1.
double jsonNumber(const std::string& line, const char* key)
{
    const std::string quoted = std::string("\"") + key + "\":";
    const auto at = line.find(quoted);
    return at == std::string::npos ? -1.0 : std::strtod(line.c_str() + at + quoted.size(), nullptr);
}

struct LlamaRun {
    double tokensPerSecond = -1.0;
    double peakGib = -1.0;
    std::string error;
};

// One evaluation by llama.cpp in a process of its own (node-llama-cpp in `dir`).
LlamaRun runLlamaCpp(const std::string& dir, const std::string& path, std::int64_t tokens, unsigned threads, std::int64_t vocabulary,
                     const char* logits)
{
    const std::string command = "node '" GGUFX_LLAMA_CPP_SCRIPT "' '" + dir + "' '" + path + "' " + std::to_string(tokens) + " 1 "
                              + std::to_string(threads) + " " + std::to_string(vocabulary) + " " + logits + " 2>&1";
    LlamaRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
        run.error = "cannot start node";
        return run;
    }
    char buffer[4096];
    std::string all;
    while (std::fgets(buffer, sizeof buffer, pipe)) {
        const std::string line = buffer;
        all += line;
        if (const double rate = jsonNumber(line, "tokensPerSecond"); rate > 0)
            run.tokensPerSecond = rate;
        if (const double peak = jsonNumber(line, "peakRssGiB"); peak > 0)
            run.peakGib = peak;
    }
    if (pclose(pipe) != 0 || run.tokensPerSecond < 0)
        run.error = all.empty() ? "node failed" : all;
    return run;
}

struct OurRun {
    double seconds = 0.0;
    double perLayer = 0.0;
    double output = 0.0;
    std::uint64_t weightBytes = 0;
};

}  // namespace

int main(int argc, char** argv)
{
    gguf::keepLargeBuffersForReuse();  // as the CLI and the GUI do
    std::string shapeName = "dense";
    std::int64_t layers = 0;
    std::int64_t tokenCount = 128;
    unsigned threads = 0;
    std::string sumsList = "lanes,sgemm,double";
    int repeats = 1;
    std::string path;
    std::string llamaDir;
    bool keep = false;
    gguf::ActivationArithmetic activations = gguf::ActivationArithmetic::QuantizedAsLlamaCpp;
    std::int64_t scanProbes = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--shape" && hasValue)
            shapeName = argv[++i];
        else if (arg == "--layers" && hasValue)
            layers = std::stoll(argv[++i]);
        else if (arg == "--tokens" && hasValue)
            tokenCount = std::stoll(argv[++i]);
        else if (arg == "--threads" && hasValue)
            threads = static_cast<unsigned>(std::stoul(argv[++i]));
        else if (arg == "--sums" && hasValue)
            sumsList = argv[++i];
        else if (arg == "--repeats" && hasValue)
            repeats = std::max(1, std::stoi(argv[++i]));
        else if (arg == "--file" && hasValue)
            path = argv[++i];
        else if (arg == "--llama-cpp" && hasValue)
            llamaDir = argv[++i];
        else if (arg == "--scan-probes" && hasValue)
            scanProbes = std::stoll(argv[++i]);
        else if (arg == "--keep")
            keep = true;
        else if (arg == "--llama-activations")
            activations = gguf::ActivationArithmetic::LlamaCpp;
        else if (arg == "--f32-activations")
            activations = gguf::ActivationArithmetic::Float32;
        else {
            std::fprintf(stderr,
                         "usage: gguf-explorer-forward-bench [--shape dense|mixtral|qwen3moe] [--layers N] [--tokens N] [--threads N]\n"
                         "       [--sums lanes,sgemm,double] [--repeats N] [--file PATH] [--keep] [--llama-cpp DIR]\n"
                         "       [--f32-activations | --llama-activations] [--scan-probes N]\n");
            return 2;
        }
    }
    forwardbench::LlamaShape shape = shapeName == "mixtral" ? forwardbench::mixtralShape()
                                   : shapeName == "qwen3moe" ? forwardbench::qwen3MoeShape()
                                                             : forwardbench::LlamaShape{};
    if (shapeName != "dense" && shapeName != "mixtral" && shapeName != "qwen3moe") {
        std::fprintf(stderr, "--shape must be dense, mixtral or qwen3moe\n");
        return 2;
    }
    if (layers > 0)
        shape.layers = layers;
    if (path.empty())
        path = "/tmp/ggufx-forward-bench-" + shapeName + ".gguf";
    // Both thread pools (ours, created on first use, and OpenBLAS's, loaded at the first
    // product) read their size from the environment.
    if (threads > 0)
        setenv("GGUFX_THREADS", std::to_string(threads).c_str(), 1);
    const unsigned usedThreads = threads > 0 ? threads : gguf::machineThreadCount();

    // Only a file the bench wrote itself is removed at the end (unless --keep): one named by
    // --file that was there before is the caller's (a converted copy, say) and stays.
    bool wroteFile = false;
    if (access(path.c_str(), R_OK) != 0) {
        wroteFile = true;
        const auto start = Clock::now();
        if (const std::string error = forwardbench::writeSyntheticLlama(path, shape); !error.empty()) {
            std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), error.c_str());
            return 1;
        }
        std::printf("# wrote %s (%lld layers, %s shape) in %.1f s\n", path.c_str(), static_cast<long long>(shape.layers), shapeName.c_str(),
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

    // lastOnly: the last position's logits alone (ForwardOptions::firstLogitPosition), the job of
    // llama.cpp's plain prompt evaluation ("last").
    const auto runOurs = [&](int sums, OurRun& out, bool lastOnly) -> bool {
        gguf::ForwardOptions options;
        options.firstLogitPosition = lastOnly ? tokenCount - 1 : 0;
        options.executor = &gguf::ParallelRows::shared();
        options.accumulateInDouble = sums == 2;
        options.accumulateWithBlas = sums == 1;
        options.keepHiddenStates = false;
        options.activations = activations;
        std::vector<Clock::time_point> marks{Clock::now()};
        options.progress = [&](std::int64_t, std::int64_t) { marks.push_back(Clock::now()); };
        auto result = gguf::runForward(**model, tokens, options);
        if (!result) {
            std::fprintf(stderr, "%s\n", result.error().toString().c_str());
            return false;
        }
        const auto layerCount = static_cast<double>(result->hyperparameters.layerCount);
        out.seconds = std::chrono::duration<double>(marks.back() - marks.front()).count();
        out.output = std::chrono::duration<double>(marks.back() - marks[marks.size() - 2]).count();
        out.perLayer = (out.seconds - out.output) / layerCount;
        out.weightBytes = result->peakWeightBytes;
        return true;
    };

    // The products' instruction set (GGUFX_KERNELS=avx2 runs an AVX-512 machine's products as an AVX2 one's).
    std::printf("# %s, %lld tokens, %u threads, %s, %s activations, kernels %s\n", path.c_str(), static_cast<long long>(tokenCount),
                usedThreads, shapeName.c_str(), gguf::activationArithmeticName(activations), gguf::activeKernelIsaName());
    std::printf("%-7s %7s %10s %10s %11s %12s %12s %11s %11s %8s %11s %11s %8s\n", "sums", "repeat", "s/layer", "s/output", "tok/s ours",
                "tok/s layers", "tok/s 32 L", "weights GiB", "llama.cpp", "ratio", "ours last", "llama last", "ratio");
    const char* const sumNames[] = {"lanes", "sgemm", "double"};
    bool warmed = false;
    double llamaPeak = -1.0;
    for (int sums = 0; sums < 3; ++sums) {
        if (sumsList.find(sumNames[sums]) == std::string::npos)
            continue;
        OurRun run;
        if (!warmed) {  // the first run warms the page cache (and loads OpenBLAS)
            if (!runOurs(sums, run, false))
                return 1;
            warmed = true;
        }
        for (int repeat = 0; repeat < repeats; ++repeat) {
            OurRun last;
            if (!runOurs(sums, last, true) || !runOurs(sums, run, false))
                return 1;
            const double oursLast = static_cast<double>(tokenCount) / last.seconds;
            const double ours = static_cast<double>(tokenCount) / run.seconds;
            const double layersOnly = static_cast<double>(tokenCount) / (run.seconds - run.output);
            const double full = static_cast<double>(tokenCount) / (32.0 * run.perLayer + run.output);
            LlamaRun llama, llamaLast;
            if (!llamaDir.empty() && sums == 0) {
                llama = runLlamaCpp(llamaDir, path, tokenCount, usedThreads, shape.vocabulary, "all");
                llamaLast = runLlamaCpp(llamaDir, path, tokenCount, usedThreads, shape.vocabulary, "last");
                for (const LlamaRun* r : {&llama, &llamaLast}) {
                    if (!r->error.empty())
                        std::fprintf(stderr, "llama.cpp: %s\n", r->error.c_str());
                    llamaPeak = std::max(llamaPeak, r->peakGib);
                }
            }
            std::printf("%-7s %7d %10.3f %10.3f %11.1f %12.1f %12.2f %11.2f", sumNames[sums], repeat, run.perLayer, run.output, ours,
                        layersOnly, full, gib(run.weightBytes));
            if (llama.tokensPerSecond > 0)
                std::printf(" %11.1f %8.2f", llama.tokensPerSecond, ours / llama.tokensPerSecond);
            else
                std::printf(" %11s %8s", "-", "-");
            std::printf(" %11.1f", oursLast);
            if (llamaLast.tokensPerSecond > 0)
                std::printf(" %11.1f %8.2f\n", llamaLast.tokensPerSecond, oursLast / llamaLast.tokensPerSecond);
            else
                std::printf(" %11s %8s\n", "-", "-");
            std::fflush(stdout);
        }
    }
    if (scanProbes > 0)
        if (const std::string error = forwardbench::timeScanProbes(**model, tokens, scanProbes); !error.empty()) {
            std::fprintf(stderr, "scan: %s\n", error.c_str());
            return 1;
        }
    std::printf("# peak resident: ours %.2f GiB", gib(peakResidentBytes()));
    if (llamaPeak > 0)
        std::printf(", llama.cpp %.2f GiB", llamaPeak);
    std::printf(" (both count the mapped file's pages read: %.2f GiB file)\n", gib(static_cast<std::uint64_t>((*model)->summary().fileSize)));
    std::printf("# ours and `llama.cpp` compute every position's logits (llama.cpp: controlledEvaluate asking each position's next\n"
                "# token, which also pays the binding per position); `ours last` and `llama last` the last position's logits only\n"
                "# (llama.cpp's plain prompt evaluation; both then run the last layer's FFN for that position alone)\n");
    if (wroteFile && !keep)
        std::remove(path.c_str());
    return 0;
}
