#include "ui/session/GraphNodeFigures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

void setRange(NodeFigures& figures)
{
    bool any = false;
    for (double value : figures.values) {
        if (!std::isfinite(value))
            continue;
        figures.minimum = any ? std::min(figures.minimum, value) : value;
        figures.maximum = any ? std::max(figures.maximum, value) : value;
        any = true;
    }
}

}  // namespace

NodeFigures nodeBitsPerWeight(const gguf::Model& model, const gguf::ModelGraph& graph)
{
    NodeFigures figures;
    for (const gguf::GraphNode& node : graph.nodes) {
        double bits = 0, elements = 0;
        for (int index : node.tensors) {
            const gguf::TensorInfo& tensor = model.tensors()[static_cast<std::size_t>(index)];
            if (!tensor.sizeKnown())
                continue;
            bits += 8.0 * static_cast<double>(tensor.nbytes);
            elements += static_cast<double>(tensor.elementCount());
        }
        figures.values.push_back(elements > 0 ? bits / elements : kNone);
    }
    setRange(figures);
    return figures;
}

NodeFigures nodeFigures(const gguf::Model& model, const gguf::ModelGraph& graph, const TensorFigureSet& set)
{
    NodeFigures figures;
    for (const gguf::GraphNode& node : graph.nodes) {
        double worst = kNone;
        for (int index : node.tensors) {
            const auto found = set.values.find(std::string(model.tensors()[static_cast<std::size_t>(index)].name));
            if (found != set.values.end() && std::isfinite(found->second))
                worst = std::isfinite(worst) ? std::max(worst, found->second) : found->second;
        }
        figures.values.push_back(worst);
    }
    setRange(figures);
    return figures;
}

std::vector<int> nodeTypes(const gguf::Model& model, const gguf::ModelGraph& graph)
{
    std::vector<int> types;
    for (const gguf::GraphNode& node : graph.nodes) {
        int type = -1;
        std::uint64_t largest = 0;
        for (int index : node.tensors) {
            const gguf::TensorInfo& tensor = model.tensors()[static_cast<std::size_t>(index)];
            if (type < 0 || tensor.nbytes > largest) {
                type = static_cast<int>(tensor.typeId);
                largest = tensor.nbytes;
            }
        }
        types.push_back(type);
    }
    return types;
}
