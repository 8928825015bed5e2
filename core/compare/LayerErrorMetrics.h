#pragma once
// Error per layer (blk.N) of one column of a comparison, for the per-layer chart: the computed
// tensors of each layer combined as the metric table says (combineErrorMetrics), so the chart
// shows figures, not arithmetic of its own.

#include "core/compare/ErrorMetricTable.h"
#include "core/compare/ModelComparison.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gguf {

struct LayerErrorMetrics {
    std::uint32_t layer = 0;
    std::size_t tensorCount = 0;  // computed tensors combined
    ErrorMetrics metrics;
};

// One entry per layer with at least one computed tensor in `column`, in layer order. With a
// non-empty `kind` only tensors of that kind (TensorNameParts::kind, e.g. "ffn_down") count.
std::vector<LayerErrorMetrics> layerErrorMetrics(const ModelComparison& comparison, const ComparisonResults& results,
                                                 std::size_t column, std::string_view kind = {});

}  // namespace gguf
