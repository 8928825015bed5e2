#include "core/compare/LayerErrorMetrics.h"

#include <map>

namespace gguf {

std::vector<LayerErrorMetrics> layerErrorMetrics(const ModelComparison& comparison, const ComparisonResults& results,
                                                 std::size_t column, std::string_view kind)
{
    std::map<std::uint32_t, std::vector<const ErrorMetrics*>> parts;  // in row order within a layer
    for (std::size_t r = 0; r < comparison.rows().size() && r < results.cells.size(); ++r) {
        const ComparisonRow& row = comparison.rows()[r];
        if (column >= results.cells[r].size() || !row.nameParts.layer || !results.cells[r][column])
            continue;
        if (!kind.empty() && row.nameParts.kind != kind)
            continue;
        parts[*row.nameParts.layer].push_back(&*results.cells[r][column]);
    }
    std::vector<LayerErrorMetrics> layers;
    layers.reserve(parts.size());
    for (const auto& [layer, metrics] : parts)
        layers.push_back({layer, metrics.size(), combineErrorMetrics(metrics)});
    return layers;
}

}  // namespace gguf
