#pragma once
// The figure each node of a model graph is coloured by, from what the session holds per tensor
// (the tensor index: type and size; a TensorFigureSet: measured figures). A node reading several
// tensors shows the figure of the whole: bits per weight over all its elements, the type of its
// largest tensor, the worst (largest) measured figure of its tensors. NaN (type: -1) where none
// of its tensors has one.

#include "core/graph/ModelGraph.h"
#include "ui/session/TensorFigures.h"

#include <vector>

struct NodeFigures {
    std::vector<double> values;  // one per node
    double minimum = 0.0;        // over the finite values; 0 and 0 when there is none
    double maximum = 0.0;
};

NodeFigures nodeBitsPerWeight(const gguf::Model& model, const gguf::ModelGraph& graph);
NodeFigures nodeFigures(const gguf::Model& model, const gguf::ModelGraph& graph, const TensorFigureSet& figures);
// The type id of each node's largest tensor (by bytes), -1 for a node without a tensor.
std::vector<int> nodeTypes(const gguf::Model& model, const gguf::ModelGraph& graph);
