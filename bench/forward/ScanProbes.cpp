#include "ScanProbes.h"

#include "app/threads/ParallelRows.h"
#include "core/sensitivity/SensitivityScan.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace forwardbench {

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}
}  // namespace

std::string timeScanProbes(const gguf::Model& model, std::span<const std::int32_t> tokens, std::int64_t probes)
{
    gguf::ScanOptions options;
    options.chunkSize = static_cast<std::int64_t>(tokens.size());  // one chunk: the bench's tokens
    options.bosToken = 1;
    options.executor = &gguf::ParallelRows::shared();
    const auto start = Clock::now();
    auto scan = gguf::SensitivityScan::prepare(model, tokens, options);
    if (!scan)
        return scan.error().toString();
    const double pass = secondsSince(start);
    const auto& all = (*scan)->probes();
    std::printf("# scan: %zu probes (%zu groups), reference pass %.2f s (%lld tokens, residual kept), mean layers rerun %.2f of %lld + output\n",
                all.size(), (*scan)->groups().size(), pass, static_cast<long long>(tokens.size()), (*scan)->meanLayersRerun(),
                static_cast<long long>((*scan)->layerCount()));
    std::printf("%-28s %-8s %8s %10s %10s\n", "probe group", "type", "layers", "seconds", "÷ pass");
    const std::size_t count = std::min<std::size_t>(all.size(), static_cast<std::size_t>(std::max<std::int64_t>(1, probes)));
    double total = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t index = i * all.size() / count;
        const auto probeStart = Clock::now();
        auto figures = (*scan)->runProbe(index);
        if (!figures)
            return figures.error().toString();
        const double seconds = secondsSince(probeStart);
        total += seconds;
        std::printf("%-28s %-8s %8lld %10.2f %10.2f\n", (*scan)->groups()[all[index].group].tensor.c_str(),
                    gguf::typeName(all[index].type).c_str(), static_cast<long long>(figures->layersRerun), seconds, seconds / pass);
        std::fflush(stdout);
    }
    const double mean = total / static_cast<double>(count);
    std::printf("# scan: mean probe %.2f s = %.2f passes; the whole scan (%zu probes, one chunk) ≈ %.0f s\n", mean, mean / pass, all.size(),
                mean * static_cast<double>(all.size()) + pass);
    return {};
}

}  // namespace forwardbench
