#include "core/imatrix/ColumnImportance.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gguf {

std::vector<float> columnImportance(const ImportanceEntry& entry, std::size_t expert)
{
    if (expert != kAllExperts)
        return entry.quantWeights(expert);
    const std::size_t columns = entry.columnCount();
    const std::size_t experts = entry.expertCount();
    if (columns == 0 || experts == 0)
        return {};
    if (experts == 1)
        return entry.quantWeights(0);
    if (entry.legacy) {
        // Per-expert counts are lost: every expert weighs the same.
        std::vector<double> sum(columns, 0.0);
        const std::vector<float> all = entry.allQuantWeights();
        for (std::size_t e = 0; e < experts; ++e)
            for (std::size_t c = 0; c < columns; ++c)
                sum[c] += all[e * columns + c];
        std::vector<float> out(columns);
        for (std::size_t c = 0; c < columns; ++c)
            out[c] = static_cast<float>(sum[c] / static_cast<double>(experts));
        return out;
    }
    // GGUF entries are bound per expert only when stored that way (rows == experts).
    std::vector<double> sums(columns, 0.0);
    double tokens = 0.0;
    for (std::size_t e = 0; e < experts && e < entry.counts.size(); ++e) {
        if (!(entry.counts[e] > 0.0f))
            continue;
        tokens += entry.counts[e];
        for (std::size_t c = 0; c < columns; ++c)
            sums[c] += entry.sums[e * columns + c];
    }
    std::vector<float> out(columns, 1.0f);
    if (tokens > 0.0)
        for (std::size_t c = 0; c < columns; ++c)
            out[c] = static_cast<float>(sums[c] / tokens);
    return out;
}

std::vector<ImportantColumn> topColumns(const std::vector<float>& importance, std::size_t count)
{
    std::vector<std::size_t> order(importance.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto key = [&](std::size_t i) { return std::isnan(importance[i]) ? -INFINITY : importance[i]; };
    const std::size_t n = std::min(count, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(), [&](std::size_t a, std::size_t b) {
        return key(a) > key(b) || (key(a) == key(b) && a < b);
    });
    double total = 0.0;
    for (float v : importance)
        if (std::isfinite(v))
            total += v;
    std::vector<ImportantColumn> out;
    out.reserve(n);
    for (std::size_t k = 0; k < n; ++k)
        out.push_back(ImportantColumn{order[k], importance[order[k]], total > 0.0 ? importance[order[k]] / total : 0.0});
    return out;
}

}  // namespace gguf
