#include "BillionHeatmapCase.h"

#include "core/types/GgmlType.h"
#include "core/analysis/HeatmapReducer.h"
#include "SyntheticTensor.h"

#include <cstdio>
#include <vector>

namespace bench {

namespace {

constexpr std::uint64_t kRowLength = 8192;
constexpr double kMiB = 1024.0 * 1024.0;

// What a view does: allocate the cells, reduce grid-row ranges on the pool, done.
bool heatmap(const gguf::TensorSlice& slice, unsigned threads, gguf::ParallelRows& pool)
{
    const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid({0, slice.rowCount, 0, slice.rowLength()}, 1080, 1920, gguf::CellAggregate::Mean);
    std::vector<float> cells(std::size_t{grid.rows} * grid.columns);
    const std::vector<gguf::RowRange> ranges = gguf::planRowRanges(0, grid.rows, threads <= 1 ? 1 : std::size_t{threads} * 8);
    bool ok = true;
    auto reduce = [&](gguf::RowRange range) {
        const std::span<float> part(cells.data() + range.begin * grid.columns, static_cast<std::size_t>(range.size() * grid.columns));
        ok = gguf::reduceHeatmapRows(slice, grid, static_cast<std::uint32_t>(range.begin), static_cast<std::uint32_t>(range.end), part).ok() && ok;
    };
    if (threads <= 1) {
        for (const gguf::RowRange& range : ranges)
            reduce(range);
    } else {
        pool.forEachRange(ranges, reduce);
    }
    return ok;
}

}  // namespace

void runBillionHeatmapCase(std::uint64_t rows, Workspace& workspace, Report& report)
{
    const SyntheticTensor tensor(*gguf::findTypeByName("q4_K"), kRowLength, rows, 1);
    const gguf::TensorSlice slice = gguf::wholeTensor(tensor.info());
    RepeatPolicy policy = workspace.policy();
    policy.minRuns = 3;
    policy.minSeconds = 0;
    for (const unsigned threads : {workspace.allThreads(), 1u}) {
        const bool peakResettable = resetPeakResident();
        const std::uint64_t before = residentBytes();
        bool ok = true;
        const Timing timing = measure([&] { ok = heatmap(slice, threads, workspace.pool()) && ok; }, policy,
                                      [&] { evictFromCache(tensor.info().data, tensor.bytes()); });
        const double seconds = timing.wall;
        const std::uint64_t peak = peakResidentBytes();
        if (!ok) {
            std::fprintf(stderr, "gguf-explorer-bench: the 1-billion-element heatmap failed\n");
            return;
        }
        Row row;
        row.caseName = "heatmap_1b";
        row.type = tensor.info().traits->name;
        row.threads = threads;
        row.elements = tensor.info().elementCount();
        row.seconds = seconds;
        row.gbpsOut = static_cast<double>(row.elements) * sizeof(float) / seconds / 1e9;
        row.kernel = gguf::kernelIsaName(gguf::activeKernelIsa(*tensor.info().traits));
        row.extra = {{"tensor_mb", static_cast<double>(tensor.bytes()) / kMiB}};
        if (threads == 1)
            row.extra.push_back({"cpu_seconds", timing.cpu});
        // Only the first run: later ones reuse the memory the first one freed.
        if (peakResettable && threads == workspace.allThreads())
            row.extra.push_back({"peak_extra_mb", static_cast<double>(peak - std::min(peak, before)) / kMiB});
        row.note = "1920x1080 mean";
        report.add(row);
        if (threads == 1)
            break;
    }
}

}  // namespace bench
