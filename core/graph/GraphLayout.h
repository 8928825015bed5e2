#pragma once
// Where each node of a model graph goes, top to bottom: a node's row is one below the lowest of
// its inputs (the longest path from a source), the nodes of a row side by side in graph order,
// each row centred on x = 0. Linear in nodes and edges (a 94-layer model expanded, ~3,000 nodes,
// lays out in well under a millisecond), so the page calls it directly.

#include "core/graph/ModelGraph.h"

#include <vector>

namespace gguf {

struct GraphLayoutMetrics {
    double nodeWidth = 150;
    double nodeHeight = 34;
    double columnGap = 24;
    double rowGap = 26;
};

struct NodePlace {
    double x = 0;  // top-left corner
    double y = 0;
    int row = 0;
};

struct GraphLayout {
    std::vector<NodePlace> places;  // one per node
    double left = 0, top = 0, right = 0, bottom = 0;  // the bounds of all nodes
    int rowCount = 0;
};

GraphLayout layoutGraph(const ModelGraph& graph, const GraphLayoutMetrics& metrics = {});

}  // namespace gguf
