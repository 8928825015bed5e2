#include "core/graph/GraphLayout.h"

#include <algorithm>

namespace gguf {

GraphLayout layoutGraph(const ModelGraph& graph, const GraphLayoutMetrics& metrics)
{
    GraphLayout layout;
    const std::size_t count = graph.nodes.size();
    layout.places.resize(count);
    // Edges go to later nodes (ModelGraph's order), so one pass over them sorted by target ranks all.
    std::vector<GraphEdge> edges = graph.edges;
    std::sort(edges.begin(), edges.end(), [](const GraphEdge& a, const GraphEdge& b) { return a.to < b.to; });
    std::vector<int> row(count, 0);
    for (const GraphEdge& edge : edges)
        if (edge.from >= 0 && edge.to >= 0 && static_cast<std::size_t>(edge.to) < count && edge.from < edge.to)
            row[static_cast<std::size_t>(edge.to)] = std::max(row[static_cast<std::size_t>(edge.to)], row[static_cast<std::size_t>(edge.from)] + 1);
    const int rows = count == 0 ? 0 : *std::max_element(row.begin(), row.end()) + 1;
    std::vector<int> perRow(static_cast<std::size_t>(rows), 0);
    for (int r : row)
        ++perRow[static_cast<std::size_t>(r)];
    std::vector<int> placed(static_cast<std::size_t>(rows), 0);
    layout.rowCount = rows;
    for (std::size_t i = 0; i < count; ++i) {
        const auto r = static_cast<std::size_t>(row[i]);
        const double rowWidth = perRow[r] * metrics.nodeWidth + (perRow[r] - 1) * metrics.columnGap;
        NodePlace& place = layout.places[i];
        place.row = row[i];
        place.x = -rowWidth / 2 + placed[r]++ * (metrics.nodeWidth + metrics.columnGap);
        place.y = row[i] * (metrics.nodeHeight + metrics.rowGap);
        layout.left = std::min(layout.left, place.x);
        layout.right = std::max(layout.right, place.x + metrics.nodeWidth);
        layout.bottom = std::max(layout.bottom, place.y + metrics.nodeHeight);
    }
    return layout;
}

}  // namespace gguf
