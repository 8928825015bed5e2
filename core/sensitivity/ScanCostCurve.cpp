#include "core/sensitivity/ScanCostCurve.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gguf {

namespace {

struct Pool {
    double cost = 0.0;        // the mean of its cells' costs
    double variance = 0.0;    // of that mean
    double trimmed = 0.0;     // the mean of its cells' trimmed means
    std::size_t first = 0;    // its cells: order[first, last)
    std::size_t last = 0;
    double count() const { return double(last - first); }
};

}  // namespace

std::vector<double> monotoneCosts(const std::vector<CostCell>& cells)
{
    const bool trimmedEverywhere = std::all_of(cells.begin(), cells.end(), [](const CostCell& c) { return c.trimmed.has_value(); });
    // Most bytes first; among equal bytes the cheaper first, so ties add no constraint of their own.
    std::vector<std::size_t> order(cells.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return cells[a].bytes != cells[b].bytes ? cells[a].bytes > cells[b].bytes : cells[a].cost < cells[b].cost;
    });
    std::vector<Pool> pools;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const CostCell& cell = cells[order[i]];
        pools.push_back(Pool{cell.cost, cell.standardError * cell.standardError, trimmedEverywhere ? *cell.trimmed : 0.0, i, i + 1});
        while (pools.size() >= 2) {
            const Pool& fewer = pools.back();
            const Pool& more = pools[pools.size() - 2];
            const double combined = std::sqrt(fewer.variance + more.variance);
            const bool worse = fewer.cost - more.cost > combined && (!trimmedEverywhere || fewer.trimmed > more.trimmed);
            if (worse)
                break;
            // The plain mean, not weighted by 1 / SE^2: on a MoE a cell's standard error grows
            // with its mean (one routed position makes both), so inverse-variance weights would
            // pull every pool down to its luckiest cell.
            const double n = more.count(), m = fewer.count();
            Pool merged = more;
            merged.cost = (more.cost * n + fewer.cost * m) / (n + m);
            merged.variance = (more.variance * n * n + fewer.variance * m * m) / ((n + m) * (n + m));
            merged.trimmed = (more.trimmed * n + fewer.trimmed * m) / (n + m);
            merged.last = fewer.last;
            pools.pop_back();
            pools.back() = merged;
        }
    }
    std::vector<double> fitted(cells.size(), 0.0);
    for (const Pool& pool : pools)
        for (std::size_t i = pool.first; i < pool.last; ++i)
            fitted[order[i]] = pool.cost;
    return fitted;
}

}  // namespace gguf
