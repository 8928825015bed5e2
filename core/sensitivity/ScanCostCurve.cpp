#include "core/sensitivity/ScanCostCurve.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gguf {

namespace {

struct Pool {
    double weight = 0.0;      // sum of 1 / se^2
    double cost = 0.0;        // weighted mean
    double trimmed = 0.0;     // weighted mean of the trimmed means
    std::size_t first = 0;    // its cells: order[first, last)
    std::size_t last = 0;
    double standardError() const { return 1.0 / std::sqrt(weight); }
};

// A cell measured exactly (standard error 0: the stored type, or no position moved) still gets a
// finite weight, so pooling stays a weighted mean.
constexpr double kLeastVariance = 1e-30;

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
        const double weight = 1.0 / std::max(cell.standardError * cell.standardError, kLeastVariance);
        pools.push_back(Pool{weight, cell.cost, trimmedEverywhere ? *cell.trimmed : 0.0, i, i + 1});
        while (pools.size() >= 2) {
            const Pool& fewer = pools.back();
            const Pool& more = pools[pools.size() - 2];
            const double combined = std::hypot(fewer.standardError(), more.standardError());
            const bool worse = fewer.cost - more.cost > combined && (!trimmedEverywhere || fewer.trimmed > more.trimmed);
            if (worse)
                break;
            Pool merged = more;
            merged.weight = more.weight + fewer.weight;
            merged.cost = (more.cost * more.weight + fewer.cost * fewer.weight) / merged.weight;
            merged.trimmed = (more.trimmed * more.weight + fewer.trimmed * fewer.weight) / merged.weight;
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
