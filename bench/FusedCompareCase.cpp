#include "FusedCompareCase.h"

#include "Measure.h"

#include "app/threads/ParallelRows.h"
#include "core/compare/ModelComparison.h"
#include "core/gguf/Model.h"
#include "core/gguf/Dequantize.h"
#include "core/kernels/KernelIsa.h"
#include "core/types/GgmlType.h"
#include "core/write/GgufWriter.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <cstring>
#include <ctime>
#include <vector>

namespace bench {

namespace {

bool writeTensorFile(const std::string& path, const gguf::TensorInfo& tensor)
{
    gguf::GgufWriter writer;
    writer.setValue("general.architecture", gguf::EncodedValue::string("llama"));
    const gguf::Status added = writer.addTensor({"blk.0.ffn_down.weight", tensor.typeId, {tensor.ne[0], tensor.ne[1]}},
                                                [&tensor](gguf::ByteSink& out) { return out.write(tensor.data, tensor.nbytes); });
    return added && writer.writeFile(path);
}

double processCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Wall and process CPU seconds of `work`, medians of the policy's runs, each run cold.
struct ProcessTiming {
    double wall = 0;
    double cpu = 0;
};

ProcessTiming measureProcess(const std::function<void()>& work, const RepeatPolicy& policy, const std::function<void()>& cold)
{
    std::vector<double> walls, cpus;
    work();
    double measured = 0;
    for (int run = 0; run < policy.maxRuns && (run < policy.minRuns || measured < policy.minSeconds); ++run) {
        cold();
        const double w0 = nowSeconds();
        const double c0 = processCpuSeconds();
        work();
        const double w = nowSeconds() - w0;
        walls.push_back(w);
        cpus.push_back(processCpuSeconds() - c0);
        measured += w;
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    return {median(walls), median(cpus)};
}

}  // namespace

void runFusedCompareCase(const BenchOptions& options, const SyntheticTensor& tensor, const SyntheticTensor& reference,
                         Workspace& workspace, Report& report)
{
    const std::string typeName = tensor.info().traits->name;
    const std::string otherPath = options.workDir + "/gguf-explorer-bench-fused-" + typeName + ".gguf";
    const std::string referencePath = options.workDir + "/gguf-explorer-bench-fused-reference.gguf";
    if (!writeTensorFile(otherPath, tensor.info()) || !writeTensorFile(referencePath, reference.info())) {
        std::fprintf(stderr, "gguf-explorer-bench: cannot write the fused compare files in %s\n", options.workDir.c_str());
        return;
    }
    auto referenceModel = gguf::Model::open(referencePath);
    auto otherModel = gguf::Model::open(otherPath);
    if (!referenceModel || !otherModel) {
        std::fprintf(stderr, "gguf-explorer-bench: cannot open the fused compare files\n");
        return;
    }
    gguf::ComparisonOptions comparisonOptions;
    comparisonOptions.referenceIndex = 0;
    auto comparison = gguf::ModelComparison::create({*referenceModel, *otherModel}, comparisonOptions);
    if (!comparison || comparison->rows().size() != 1 || !comparison->rows()[0].cells[0].ok()) {
        std::fprintf(stderr, "gguf-explorer-bench: fused compare: no comparable cell\n");
        return;
    }
    const gguf::TensorInfo& a = *comparison->rows()[0].reference;
    const gguf::TensorInfo& b = *comparison->rows()[0].cells[0].tensor;
    const RepeatPolicy& policy = workspace.policy();
    const auto cold = [&] {
        evictFromCache(a.data, a.nbytes);
        evictFromCache(b.data, b.nbytes);
        workspace.evictOutput();
    };
    const std::uint64_t elements = a.elementCount();
    const std::span<float> out = workspace.output().first(static_cast<std::size_t>(elements));
    const double bytesOut = double(elements) * sizeof(float);

    // Each input's dequantization on one thread, CPU time (robust to the other work on the machine).
    const auto dequantCpuGbps = [&](const gguf::TensorInfo& t) {
        const Timing timing = measure([&] { (void)gguf::dequantizeRows(t, 0, t.rowCount(), out); }, policy, cold);
        return bytesOut / timing.cpu / 1e9;
    };
    const double referenceGbps = dequantCpuGbps(a);
    const double otherGbps = dequantCpuGbps(b);
    const double slower = std::min(referenceGbps, otherGbps);

    // The part of a range that runs in the cell's turn (one range at a time), against the part
    // that runs before it on any thread: what limits the speed-up whatever the machine's load.
    const gguf::ElementRange firstRange = comparison->cellRanges(0, 0).front();
    std::vector<float> referenceValues(static_cast<std::size_t>(firstRange.size()));
    std::vector<float> otherValues(referenceValues.size());
    gguf::PreparedErrorRange prepared;
    const Timing reconstructTime = measure(
        [&] { (void)comparison->reconstruct(0, 0, firstRange, referenceValues, otherValues); }, policy);
    const Timing prepareTime = measure([&] { prepared.prepare(firstRange.begin, referenceValues, otherValues); }, policy);
    const Timing turnTime = measure(
        [&] {
            gguf::ErrorAccumulator accumulator;
            (void)accumulator.addPrepared(prepared, referenceValues, otherValues);
        },
        policy);
    const double serialFraction = turnTime.cpu / (reconstructTime.cpu + prepareTime.cpu + turnTime.cpu);

    ProcessTiming single{};
    for (const unsigned threads : {1u, 2u}) {
        gguf::ParallelRows pool(threads);  // started once, outside the timed runs
        gguf::ComparisonRunOptions run;
        run.executor = &pool;
        bool ok = true;
        const ProcessTiming t = measureProcess([&] { ok = ok && bool(gguf::runComparison(*comparison, run)); }, policy, cold);
        if (!ok) {
            std::fprintf(stderr, "gguf-explorer-bench: fused compare failed\n");
            return;
        }
        const LoadAverage load = loadAverage();
        Row row;
        row.caseName = "fused_compare";
        row.type = typeName;
        row.threads = threads;
        row.elements = elements;
        row.seconds = t.wall;
        row.gbpsOut = bytesOut / t.wall / 1e9;
        row.kernel = gguf::kernelIsaName(gguf::activeKernelIsa(*b.traits));
        const double cpuGbps = bytesOut / t.cpu / 1e9;
        row.extra = {{"cpu_gbps", cpuGbps}, {"load_1min", load.one}};
        if (threads == 1) {
            single = t;
            row.extra.push_back({"dequant_ref_cpu_gbps", referenceGbps});
            row.extra.push_back({"dequant_other_cpu_gbps", otherGbps});
            row.extra.push_back({"x_slower_dequant", cpuGbps / slower});  // goal >= 0.5
        } else {
            row.extra.push_back({"x_1_thread_wall", single.wall / t.wall});           // goal: towards 2
            row.extra.push_back({"cpu_per_element_x_1_thread", t.cpu / single.cpu});  // 1.0: no overhead for the second thread
            row.extra.push_back({"x_slower_dequant_per_thread", cpuGbps / slower});
            const double perElement = 1e9 / double(firstRange.size());
            row.extra.push_back({"range_reconstruct_ns", reconstructTime.cpu * perElement});  // per pair: both dequantizations
            row.extra.push_back({"range_sums_ns", prepareTime.cpu * perElement});             // before the turn, any thread
            row.extra.push_back({"range_turn_ns", turnTime.cpu * perElement});                // in the turn, one range at a time
            row.extra.push_back({"in_turn_fraction", serialFraction});                      // of one range's CPU time
            row.extra.push_back({"amdahl_2_thread_bound", 2.0 / (1.0 + serialFraction)});  // the best x_1_thread it allows
        }
        row.note = "vs f16 file, runComparison (ComparisonEngine)";
        report.add(row);
    }
    std::remove(otherPath.c_str());
    std::remove(referencePath.c_str());
}

}  // namespace bench
