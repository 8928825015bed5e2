// gguf-explorer-bench: measures dequantization and the paths built on it on this machine, next to
// the memset and memcpy of the same output size, so figures read as fractions of what the memory
// system can do. Prints a table, or with --json one JSON object per result.

#include "AnchorCases.h"
#include "BenchOptions.h"
#include "BillionHeatmapCase.h"
#include "GgmlAnchor.h"
#include "core/kernels/KernelIsaCap.h"
#include "core/types/GgmlType.h"
#include "Measure.h"
#include "OpenCase.h"
#include "RemoteOpenCase.h"
#include "ProcessProbe.h"
#include "SaveAsCase.h"
#include "Report.h"
#include "SyntheticTensor.h"
#include "ThroughputCases.h"
#include "FusedCompareCase.h"
#include "TokenizeCase.h"
#include "Workspace.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

std::string cpuModel()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
            return line.substr(line.find(':') + 2);
    }
    return "unknown CPU";
}

std::string cliPath()
{
#ifdef GGUFX_CLI_PATH
    return GGUFX_CLI_PATH;
#else
    return {};
#endif
}

void describeMachine(const bench::BenchOptions& options, unsigned threads, const char* when)
{
    const bench::LoadAverage load = bench::loadAverage();
    std::FILE* out = options.json ? stderr : stdout;
    // Dequantization and quantization run at most AVX2; the products (fused, heatmap) may run AVX-512.
    std::fprintf(out, "# %s: %s, %u threads, kernels %s (products %s), load average %.2f %.2f %.2f\n", when, cpuModel().c_str(), threads,
                 gguf::kernelIsaName(gguf::preferredKernelIsa()), gguf::activeKernelIsaName(), load.one, load.five, load.fifteen);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc >= 2 && std::string(argv[1]) == bench::kProbeOption)
        return bench::probeProcessMain(argc, argv);  // before anything is allocated: see ProcessProbe.h
    std::string error;
    const auto options = bench::BenchOptions::parse(std::vector<std::string>(argv + 1, argv + argc), error);
    if (!options) {
        if (!error.empty())
            std::fprintf(stderr, "gguf-explorer-bench: %s\n", error.c_str());
        std::fputs(bench::BenchOptions::usage(), error.empty() ? stdout : stderr);
        return error.empty() ? 0 : 2;
    }

    bench::RepeatPolicy policy;
    if (options->quick)
        policy = {2, 3, 0.0};
    bench::Workspace workspace(options->elements, policy);
    bench::Report report(options->json);
    describeMachine(*options, workspace.allThreads(), "start");

    // Memory figures first, while the heap holds nothing the cases below would leave behind.
    if (options->wants("open")) {
        report.heading("Opening a 70B-layout model (sparse file)");
        if (!bench::runOpenCase(options->workDir, cliPath(), options->openRuns, report))
            return 1;
        report.heading("Opening, whole processes next to their anchors");
        bench::runOpenAnchorCases(*options, cliPath(), report);
        report.heading("Opening it over HTTP from a local lighttpd");
        if (!bench::runRemoteOpenCase(options->workDir, options->openRuns, report))
            return 1;
    }
    if (options->wants("quantize")) {
        report.heading("Quantizing " + std::to_string(options->elements) + " f32 values, 1 thread, next to ggml");
        bench::runQuantizeAnchorCases(*options, cliPath(), report);
    }
    if (options->wants("compare")) {
        report.heading("compare on a one-tensor file, 1 and 2 threads");
        bench::runCompareThreadsCase(*options, cliPath(), report);
    }
    if (options->wants("save")) {
        report.heading("Save As with one metadata edit (core/edit), page cache warm");
        if (!bench::runSaveAsCase(*options, options->quick ? 64 : 1024, report))
            return 1;
    }
    if (options->wants("tokenize")) {
        report.heading("Tokenizing 8 MiB of text with each vocabulary of llama.cpp's test set, 1 thread");
#ifdef GGUFX_FIXTURES_DIR
        const std::string vocabDir = options->vocabDir.empty() ? std::string(GGUFX_FIXTURES_DIR) + "/llama.cpp/vocab" : options->vocabDir;
#else
        const std::string vocabDir = options->vocabDir;
#endif
        if (!bench::runTokenizeCases(vocabDir, options->quick, report))
            return 1;
    }
    if (options->wants("heatmap")) {
        report.heading("Heatmap of a Q4_K tensor [8192, " + std::to_string(options->heatmapRows) + "] at 1920x1080");
        bench::runBillionHeatmapCase(options->heatmapRows, workspace, report);
    }

    std::vector<const gguf::TypeTraits*> types;
    for (const gguf::TypeTraits* type = gguf::typeTableBegin(); type != gguf::typeTableEnd(); ++type) {
        if (options->wantsType(type->name))
            types.push_back(type);
    }
    // Each type's tensor is made once and serves both the plain and the fused cases.
    constexpr std::uint64_t kRowLength = 4096;
    std::map<std::uint32_t, std::unique_ptr<bench::SyntheticTensor>> tensors;
    auto tensorOf = [&](const gguf::TypeTraits& type) -> const bench::SyntheticTensor& {
        auto& tensor = tensors[type.id];
        if (!tensor)
            tensor = std::make_unique<bench::SyntheticTensor>(type, kRowLength, options->elements / kRowLength, type.id + 1);
        return *tensor;
    };

    if (options->wants("dequantize")) {
        report.heading("Dequantization into a " + std::to_string(options->elements * 4 >> 20) + " MiB f32 buffer");
        const bench::GgmlAnchor dequantizeAnchor(options->ggmlLib);
        if (!dequantizeAnchor.loaded())
            std::fprintf(stderr, "# dequantize: ggml anchor skipped (%s)\n", dequantizeAnchor.error().c_str());
        else if (!dequantizeAnchor.typeTraitsMismatch().empty())
            std::fprintf(stderr, "# dequantize: ggml anchor skipped (%s)\n", dequantizeAnchor.typeTraitsMismatch().c_str());
        const bool anchored = dequantizeAnchor.loaded() && dequantizeAnchor.typeTraitsMismatch().empty();
        for (const gguf::TypeTraits* type : types)
            bench::runDequantizeCases(tensorOf(*type), workspace, report, anchored ? &dequantizeAnchor : nullptr);
    }
    if (options->wants("fused")) {
        report.heading("Fused paths (the dequantized values stay in cache)");
        const bench::SyntheticTensor reference(*gguf::findTypeByName("f16"), kRowLength, options->elements / kRowLength, 999);
        for (const gguf::TypeTraits* type : types)
            bench::runFusedCases(tensorOf(*type), reference, workspace, report);
        report.heading("The compare path (runComparison) against the f16 file, next to each input's dequantization");
        for (const gguf::TypeTraits* type : types)
            bench::runFusedCompareCase(*options, tensorOf(*type), reference, workspace, report);
    }
    tensors.clear();
    describeMachine(*options, workspace.allThreads(), "end");
    return 0;
}
