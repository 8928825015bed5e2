#include "RemoteOpenCase.h"

#include "LocalWebServer.h"
#include "Measure.h"
#include "SparseModelFile.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/gguf/TensorSlice.h"
#include "core/remote/RemoteModel.h"

#include <algorithm>
#include <cstdio>
#include <sys/stat.h>
#include <vector>

namespace bench {

namespace {
double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}
}  // namespace

bool runRemoteOpenCase(const std::string& workDir, int runs, Report& report)
{
    const std::string root = workDir + "/gguf-explorer-bench-www";
    ::mkdir(root.c_str(), 0755);
    SparseModelFile file;
    std::string error;
    const std::string path = root + "/model-70b.gguf";
    if (!writeSparse70bModel(path, file, error)) {
        std::fprintf(stderr, "gguf-explorer-bench: cannot write the 70B-layout file: %s\n", error.c_str());
        return false;
    }
    testsupport::LocalWebServer server;
    if (!server.start(root, root, error)) {
        std::fprintf(stderr, "gguf-explorer-bench: remote case skipped: %s\n", error.c_str());
        std::remove(path.c_str());
        return true;
    }
    std::vector<double> openSeconds, windowSeconds;
    gguf::remote::RemoteTraffic openTraffic, windowTraffic;
    for (int i = 0; i < std::max(1, runs); ++i) {
        const double start = nowSeconds();
        auto model = gguf::remote::openRemoteModel(server.url("/model-70b.gguf"));
        openSeconds.push_back(nowSeconds() - start);
        if (!model) {
            std::fprintf(stderr, "gguf-explorer-bench: remote open failed: %s\n", model.error().toString().c_str());
            break;
        }
        openTraffic = gguf::remote::remoteTraffic(*model.value());
        const gguf::TensorInfo* output = model.value()->findTensor("output.weight");
        const gguf::HeatmapRegion region{100000, 100064, 0, static_cast<std::uint64_t>(output->ne[0])};
        const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, 64, 1024, gguf::CellAggregate::Mean);
        std::vector<float> cells(std::size_t(grid.rows) * grid.columns);
        const double windowStart = nowSeconds();
        if (!gguf::reduceHeatmapRows(gguf::wholeTensor(*output), grid, 0, grid.rows, cells))
            break;
        windowSeconds.push_back(nowSeconds() - windowStart);
        const auto after = gguf::remote::remoteTraffic(*model.value());
        windowTraffic = {after.requests - openTraffic.requests, after.bytesReceived - openTraffic.bytesReceived, after.residentBytes};
    }
    if (!windowSeconds.empty()) {
        Row row;
        row.caseName = "remote_open_70b";
        row.type = "-";
        row.elements = file.parameterCount;
        row.seconds = median(openSeconds);
        row.kernel = "-";
        row.extra = {{"first_open_seconds", openSeconds.front()},
                     {"requests", static_cast<double>(openTraffic.requests)},
                     {"fetched_mb", static_cast<double>(openTraffic.bytesReceived) / (1 << 20)},
                     {"header_mb", static_cast<double>(file.headerBytes) / (1 << 20)}};
        row.note = "http://127.0.0.1 (lighttpd), header by doubling range requests";
        report.add(row);
        row.caseName = "remote_window_64_rows";
        row.elements = 64 * 8192;
        row.seconds = median(windowSeconds);
        row.extra = {{"requests", static_cast<double>(windowTraffic.requests)},
                     {"fetched_kb", static_cast<double>(windowTraffic.bytesReceived) / 1024}};
        row.note = "64 rows of the [8192, 128256] Q6_K output.weight, all columns";
        report.add(row);
    }
    std::remove(path.c_str());
    ::rmdir(root.c_str());
    return true;
}

}  // namespace bench
