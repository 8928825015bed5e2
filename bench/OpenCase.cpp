#include "OpenCase.h"

#include "Measure.h"
#include "core/gguf/Model.h"
#include "SparseModelFile.h"

#include "ProcessProbe.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace bench {

namespace {

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

bool runOpenCase(const std::string& workDir, const std::string& cliPath, int runs, Report& report)
{
    SparseModelFile file;
    std::string error;
    const std::string path = workDir + "/gguf-explorer-bench-70b-layout.gguf";
    if (!writeSparse70bModel(path, file, error)) {
        std::fprintf(stderr, "gguf-explorer-bench: cannot write the 70B-layout file: %s\n", error.c_str());
        return false;
    }

    // The first open is the one a person waits for; later ones show the steady state.
    std::vector<double> seconds;
    std::vector<double> residentMiB;
    std::size_t tensors = 0;
    for (int i = 0; i < runs; ++i) {
        const std::uint64_t before = residentBytes();
        const double start = nowSeconds();
        auto model = gguf::Model::open(path);
        const double elapsed = nowSeconds() - start;
        if (!model) {
            std::fprintf(stderr, "gguf-explorer-bench: opening the 70B-layout file failed: %s\n", model.error().toString().c_str());
            std::remove(path.c_str());
            return false;
        }
        tensors = model.value()->tensors().size();
        seconds.push_back(elapsed);
        const std::uint64_t after = residentBytes();
        residentMiB.push_back(static_cast<double>(after - std::min(before, after)) / kMiB);
    }
    Row row;
    row.caseName = "open_70b";
    row.type = "-";
    row.elements = file.parameterCount;
    row.seconds = median(seconds);
    row.kernel = "-";
    row.extra = {{"first_open_seconds", seconds.front()},
                 {"rss_delta_mb", median(residentMiB)},
                 {"tensors", static_cast<double>(tensors)},
                 {"header_mb", static_cast<double>(file.headerBytes) / kMiB},
                 {"file_gb", static_cast<double>(file.fileBytes) / 1e9}};
    row.note = "in process: Model::open";
    report.add(row);

    if (!cliPath.empty()) {
        std::vector<double> processSeconds;
        std::vector<double> processResident;
        for (int i = 0; i < runs; ++i) {
            const ProcessFigures run = probeProcess({cliPath, "info", path});
            if (!run.ok)
                break;
            processSeconds.push_back(run.seconds);
            processResident.push_back(run.maxResidentMiB);
        }
        if (processSeconds.empty()) {
            std::fprintf(stderr, "gguf-explorer-bench: %s info failed on the 70B-layout file\n", cliPath.c_str());
        } else {
            row.caseName = "info_process_70b";
            row.seconds = median(processSeconds);
            row.extra = {{"max_rss_mb", median(processResident)}, {"tensors", static_cast<double>(tensors)}};
            row.note = "whole `gguf-explorer-cli info` process";
            report.add(row);
        }
    }
    std::remove(path.c_str());
    return true;
}

}  // namespace bench
