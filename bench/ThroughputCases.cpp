#include "ThroughputCases.h"

#include "GgmlAnchor.h"
#include "core/gguf/Dequantize.h"
#include "core/compare/ErrorMetrics.h"
#include "core/analysis/FusedStatistics.h"
#include "core/types/GgmlType.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/gguf/ParallelDequantize.h"
#include "core/analysis/Statistics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace bench {

namespace {

// A failed core call means the benchmark itself is broken: say so and stop.
template <class T>
void require(const gguf::Result<T>& result, const char* what)
{
    if (!result) {
        std::fprintf(stderr, "gguf-explorer-bench: %s failed: %s\n", what, result.error().toString().c_str());
        std::exit(1);
    }
}

std::vector<unsigned> threadCounts(const Workspace& workspace)
{
    if (workspace.allThreads() > 1)
        return {1, workspace.allThreads()};
    return {1};
}

Row throughputRow(const char* caseName, const gguf::TensorInfo& tensor, unsigned threads, Timing timing, const Baselines& baselines)
{
    const double seconds = timing.wall;
    Row row;
    row.caseName = caseName;
    row.type = tensor.traits->name;
    row.threads = threads;
    row.elements = tensor.elementCount();
    row.seconds = seconds;
    row.gbpsOut = static_cast<double>(row.elements) * sizeof(float) / seconds / 1e9;
    row.memsetGbps = baselines.memsetGbps;
    row.memcpyGbps = baselines.memcpyGbps;
    row.kernel = gguf::kernelIsaName(gguf::activeKernelIsa(*tensor.traits));
    if (threads == 1) {  // the same run per CPU-second: robust to other work on the machine
        const double cpuGbps = static_cast<double>(row.elements) * sizeof(float) / timing.cpu / 1e9;
        row.extra = {{"cpu_gbps", cpuGbps}, {"cpu_ratio_to_memset", cpuGbps / baselines.memsetCpuGbps}};
    }
    return row;
}

constexpr std::size_t kInCacheElements = 4096;
constexpr std::uint32_t kHeatmapRows = 1080;
constexpr std::uint32_t kHeatmapColumns = 1920;
constexpr std::uint64_t kErrorRowsPerTask = 64;

void heatmap(const gguf::TensorInfo& tensor, unsigned threads, Workspace& workspace, std::vector<float>& cells)
{
    const gguf::TensorSlice slice = gguf::wholeTensor(tensor);
    const gguf::HeatmapGrid grid =
        gguf::fitHeatmapGrid({0, slice.rowCount, 0, slice.rowLength()}, kHeatmapRows, kHeatmapColumns, gguf::CellAggregate::Mean);
    cells.resize(std::size_t{grid.rows} * grid.columns);
    if (threads <= 1) {
        require(gguf::reduceHeatmapRows(slice, grid, 0, grid.rows, cells), "heatmap");
        return;
    }
    // Several ranges per thread, so a slow thread does not hold the others up.
    workspace.pool().forEachRange(gguf::planRowRanges(0, grid.rows, std::size_t{threads} * 8), [&](gguf::RowRange range) {
        const std::span<float> part(cells.data() + range.begin * grid.columns, static_cast<std::size_t>(range.size() * grid.columns));
        require(gguf::reduceHeatmapRows(slice, grid, static_cast<std::uint32_t>(range.begin), static_cast<std::uint32_t>(range.end), part),
                "heatmap");
    });
}

// Error metrics of `tensor` against `reference`, in fixed row ranges merged in order (the figures
// do not depend on the thread count), each range dequantizing kErrorRowsPerChunk rows of both at
// a time: a chunk of both sides stays in L2 while the sums read it.
constexpr std::uint64_t kErrorRowsPerChunk = 16;

gguf::ErrorMetrics errorMetrics(const gguf::TensorInfo& tensor, const gguf::TensorInfo& reference, unsigned threads, Workspace& workspace)
{
    const std::vector<gguf::RowRange> ranges = gguf::fixedRowRanges(0, tensor.rowCount(), kErrorRowsPerTask);
    std::vector<gguf::ErrorAccumulator> parts(ranges.size());
    auto accumulate = [&](std::size_t index) {
        const auto rowLength = static_cast<std::size_t>(tensor.ne[0]);
        std::vector<float> values(rowLength * kErrorRowsPerChunk);
        std::vector<float> expected(rowLength * kErrorRowsPerChunk);
        for (std::uint64_t row = ranges[index].begin; row < ranges[index].end; row += kErrorRowsPerChunk) {
            const std::uint64_t end = std::min(ranges[index].end, row + kErrorRowsPerChunk);
            const auto n = static_cast<std::size_t>((end - row) * rowLength);
            require(gguf::dequantizeRows(tensor, row, end, std::span(values).first(n)), "dequantize");
            require(gguf::dequantizeRows(reference, row, end, std::span(expected).first(n)), "dequantize reference");
            parts[index].add(std::span(expected).first(n), std::span(values).first(n));
        }
    };
    if (threads <= 1) {
        for (std::size_t i = 0; i < ranges.size(); ++i)
            accumulate(i);
    } else {
        workspace.pool().run(ranges.size(), accumulate);
    }
    gguf::ErrorAccumulator total;
    for (const gguf::ErrorAccumulator& part : parts)
        total.merge(part);
    return total.result();
}

double bestOf(std::vector<double> runs)
{
    return runs.empty() ? 0.0 : *std::min_element(runs.begin(), runs.end());
}

// ggml's to_float next to ours on the same bytes, one thread, interleaved run by run so both
// see the same machine. Each run starts with the tensor and its own output out of cache, and
// both outputs were touched before (no page fault is timed). The ratio is of the best CPU times
// of this thread: on a shared machine the wall clock measures the neighbours too.
void runDequantizeAnchor(const SyntheticTensor& synthetic, Workspace& workspace, const GgmlAnchor& ggml, Report& report)
{
    const gguf::TensorInfo& tensor = synthetic.info();
    std::string why;  // or, when found, which ggml function
    const GgmlAnchor::ToFloat toFloat = ggml.toFloat(*tensor.traits, why);
    if (!toFloat) {
        std::fprintf(stderr, "# dequantize %s: no ggml anchor (%s)\n", tensor.traits->name, why.c_str());
        return;
    }
    const auto elements = static_cast<std::size_t>(tensor.elementCount());
    const std::span<float> ours = workspace.output().first(elements);
    std::vector<float> theirs(elements);  // zero-filled: every page touched before timing
    const int runs = workspace.policy().minRuns < 5 ? 3 : 9;
    std::vector<double> oursWall, oursCpu, ggmlWall, ggmlCpu;
    auto timed = [](std::vector<double>& wall, std::vector<double>& cpu, const auto& work) {
        const double startCpu = threadCpuSeconds();
        const double start = nowSeconds();
        work();
        wall.push_back(nowSeconds() - start);
        cpu.push_back(threadCpuSeconds() - startCpu);
    };
    // The same bytes in 4096-element chunks into one L1-resident buffer each: the kernels' speed
    // when the output is consumed from cache (the fused paths), with no memory writes. The
    // tensor is evicted before each: whoever ran second would otherwise find it in cache.
    const gguf::DequantizeBlocksFn kernel = tensor.traits->dequantize;
    const std::size_t blocks = elements / tensor.traits->blockSize;
    const std::size_t chunkBlocks = kInCacheElements / tensor.traits->blockSize;
    std::vector<float> oursChunk(kInCacheElements), theirsChunk(kInCacheElements);
    std::vector<double> oursCachedWall, oursCachedCpu, ggmlCachedWall, ggmlCachedCpu;
    for (int run = 0; run < runs; ++run) {
        evictFromCache(tensor.data, synthetic.bytes());  // both read the tensor from memory
        timed(oursCachedWall, oursCachedCpu, [&] {
            for (std::size_t b = 0; b < blocks; b += chunkBlocks)
                kernel(tensor.data + b * tensor.traits->blockBytes, oursChunk.data(), std::min(chunkBlocks, blocks - b));
        });
        evictFromCache(tensor.data, synthetic.bytes());
        timed(ggmlCachedWall, ggmlCachedCpu, [&] {
            for (std::size_t b = 0; b < blocks; b += chunkBlocks)
                toFloat(tensor.data + b * tensor.traits->blockBytes, theirsChunk.data(),
                        static_cast<std::int64_t>(std::min(chunkBlocks, blocks - b) * tensor.traits->blockSize));
        });
        evictFromCache(tensor.data, synthetic.bytes());
        workspace.evictOutput();
        timed(oursWall, oursCpu, [&] { require(gguf::dequantizeRows(tensor, 0, tensor.rowCount(), ours), "dequantize"); });
        evictFromCache(tensor.data, synthetic.bytes());
        evictFromCache(theirs.data(), elements * sizeof(float));
        timed(ggmlWall, ggmlCpu, [&] { toFloat(tensor.data, theirs.data(), static_cast<std::int64_t>(elements)); });
    }
    const bool bitsEqual = std::memcmp(ours.data(), theirs.data(), elements * sizeof(float)) == 0;
    const double bytesOut = static_cast<double>(elements) * sizeof(float);
    Row row;
    row.caseName = "dequant_vs_ggml";
    row.type = tensor.traits->name;
    row.elements = elements;
    row.seconds = bestOf(oursWall);
    row.gbpsOut = bytesOut / row.seconds / 1e9;
    row.kernel = gguf::kernelIsaName(gguf::activeKernelIsa(*tensor.traits));
    row.extra = {{"cpu_gbps", bytesOut / bestOf(oursCpu) / 1e9},
                 {"ggml_cpu_gbps", bytesOut / bestOf(ggmlCpu) / 1e9},
                 {"x_ggml_cpu", bestOf(ggmlCpu) / bestOf(oursCpu)},
                 {"x_ggml", bestOf(ggmlWall) / bestOf(oursWall)},
                 {"bits_equal", bitsEqual ? 1.0 : 0.0},
                 {"in_cache_cpu_gbps", bytesOut / bestOf(oursCachedCpu) / 1e9},
                 {"ggml_in_cache_cpu_gbps", bytesOut / bestOf(ggmlCachedCpu) / 1e9},
                 {"x_ggml_in_cache_cpu", bestOf(ggmlCachedCpu) / bestOf(oursCachedCpu)}};
    row.note = "interleaved with ggml " + why + ", best of " + std::to_string(runs);
    report.add(row);
}

}  // namespace

void runDequantizeCases(const SyntheticTensor& synthetic, Workspace& workspace, Report& report, const GgmlAnchor* ggml)
{
    const gguf::TensorInfo& tensor = synthetic.info();
    const std::uint64_t rows = tensor.rowCount();
    const std::span<float> out = workspace.output().first(static_cast<std::size_t>(tensor.elementCount()));
    const RepeatPolicy& policy = workspace.policy();

    // Every timed run starts with the tensor and the output out of cache (Measure.h).
    const auto cold = [&] {
        workspace.evictOutput();
        evictFromCache(tensor.data, synthetic.bytes());
    };
    const Baselines single = workspace.measureBaselines(1);
    const Timing timing = measure([&] { require(gguf::dequantizeRows(tensor, 0, rows, out), "dequantize"); }, policy, cold);
    const double seconds = timing.wall;
    const gguf::DequantizeBlocksFn scalar = tensor.traits->kernels[static_cast<std::size_t>(gguf::KernelIsa::Scalar)];
    const std::size_t blocks = static_cast<std::size_t>(tensor.elementCount() / tensor.traits->blockSize);
    const double scalarSeconds = medianSeconds([&] { scalar(tensor.data, out.data(), blocks); }, policy, cold);
    // The same work into one 16 KiB buffer that stays in L1: what the kernel computes per second
    // when memory is not the limit (the fused paths' situation).
    auto inCacheGbps = [&](gguf::DequantizeBlocksFn kernel) {
        const std::size_t chunkBlocks = kInCacheElements / tensor.traits->blockSize;
        const double s = medianSeconds(
            [&] {
                for (std::size_t b = 0; b < blocks; b += chunkBlocks)
                    kernel(tensor.data + b * tensor.traits->blockBytes, out.data(), std::min(chunkBlocks, blocks - b));
            },
            policy);
        return static_cast<double>(tensor.elementCount()) * sizeof(float) / s / 1e9;
    };
    Row row = throughputRow("dequantize", tensor, 1, timing, single);
    const double scalarGbps = static_cast<double>(tensor.elementCount()) * sizeof(float) / scalarSeconds / 1e9;
    const double cached = inCacheGbps(tensor.traits->dequantize);
    const double scalarCached = inCacheGbps(scalar);
    row.extra.insert(row.extra.end(), {{"scalar_gbps", scalarGbps},
                                       {"speedup_vs_scalar", scalarSeconds / seconds},
                                       {"in_cache_gbps", cached},
                                       {"scalar_in_cache_gbps", scalarCached},
                                       {"in_cache_speedup", cached / scalarCached}});
    report.add(row);

    const unsigned threads = workspace.allThreads();
    if (threads > 1) {
        const Baselines all = workspace.measureBaselines(threads);
        const Timing parallel = measure(
            [&] { require(gguf::dequantizeRowsParallel(tensor, 0, rows, out, &workspace.pool()), "parallel dequantize"); }, policy, cold);
        report.add(throughputRow("dequantize", tensor, threads, parallel, all));
    }
    if (ggml)
        runDequantizeAnchor(synthetic, workspace, *ggml, report);
}

void runFusedCases(const SyntheticTensor& synthetic, const SyntheticTensor& reference, Workspace& workspace, Report& report)
{
    const gguf::TensorInfo& tensor = synthetic.info();
    const gguf::TensorSlice slice = gguf::wholeTensor(tensor);
    const RepeatPolicy& policy = workspace.policy();
    const auto cold = [&] {  // the tensors are read from memory, not from cache (Measure.h)
        evictFromCache(tensor.data, synthetic.bytes());
        evictFromCache(reference.info().data, reference.bytes());
    };
    std::vector<float> cells;
    // The goal: per thread at least half the dequantization speed of the slower
    // input (one thread, CPU time, from memory like the fused runs).
    const std::span<float> out = workspace.output().first(static_cast<std::size_t>(tensor.elementCount()));
    const auto dequantCpuGbps = [&](const gguf::TensorInfo& t) {
        const Timing timing = measure([&] { require(gguf::dequantizeRows(t, 0, t.rowCount(), out), "dequantize"); }, policy, [&] {
            cold();
            workspace.evictOutput();
        });
        return static_cast<double>(t.elementCount()) * sizeof(float) / timing.cpu / 1e9;
    };
    const double slowerDequant = std::min(dequantCpuGbps(tensor), dequantCpuGbps(reference.info()));
    double singleErrorWall = 0;
    for (const unsigned threads : threadCounts(workspace)) {
        const Baselines baselines = workspace.measureBaselines(threads);
        Row row = throughputRow("fused_heatmap", tensor, threads, measure([&] { heatmap(tensor, threads, workspace, cells); }, policy, cold), baselines);
        row.note = "1920x1080 mean";
        report.add(row);
        const Timing error = measure([&] { errorMetrics(tensor, reference.info(), threads, workspace); }, policy, cold);
        row = throughputRow("fused_error", tensor, threads, error, baselines);
        row.note = "vs f16, ErrorAccumulator";
        if (threads == 1) {
            singleErrorWall = error.wall;
            row.extra.push_back({"slower_dequant_cpu_gbps", slowerDequant});
            row.extra.push_back({"x_slower_dequant", row.extra[0].second / slowerDequant});  // cpu_gbps; goal >= 0.5
        } else {
            row.extra.push_back({"x_1_thread_wall", singleErrorWall / error.wall});
        }
        report.add(row);
        if (threads != 1)
            continue;
        // Statistics add in storage order (Statistics.h), a chain no second thread can shorten.
        row = throughputRow("fused_stats", tensor, 1, measure([&] { require(gguf::fusedStatistics(slice), "statistics"); }, policy, cold), baselines);
        row.note = "FusedStatistics";
        report.add(row);
        row = throughputRow("stats_current", tensor, 1,
                            measure([&] { require(gguf::computeStatistics(slice, 20), "statistics"); }, policy, cold), baselines);
        row.note = "computeStatistics: 2 passes + histogram";
        report.add(row);
    }
}

}  // namespace bench
