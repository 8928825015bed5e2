#include "core/graph/GraphBuilder.h"

#include <algorithm>
#include <cstddef>

namespace gguf::graph_detail {

bool TensorPool::matches(std::string_view suffix, std::string_view stem)
{
    return suffix == stem || (suffix.size() > stem.size() && suffix.starts_with(stem) && suffix[stem.size()] == '.');
}

bool TensorPool::has(std::string_view stem) const
{
    return std::any_of(m_entries.begin(), m_entries.end(), [&](const auto& entry) { return matches(entry.first, stem); });
}

bool TensorPool::hasAny(std::initializer_list<std::string_view> stems) const
{
    return std::any_of(stems.begin(), stems.end(), [&](std::string_view stem) { return has(stem); });
}

std::vector<int> TensorPool::take(std::initializer_list<std::string_view> stems)
{
    std::vector<int> taken;
    std::erase_if(m_entries, [&](const auto& entry) {
        const bool claimed = std::any_of(stems.begin(), stems.end(), [&](std::string_view stem) { return matches(entry.first, stem); });
        if (claimed)
            taken.push_back(entry.second);
        return claimed;
    });
    std::sort(taken.begin(), taken.end());
    return taken;
}

std::vector<int> TensorPool::takeAll()
{
    std::vector<int> taken;
    for (const auto& entry : m_entries)
        taken.push_back(entry.second);
    m_entries.clear();
    std::sort(taken.begin(), taken.end());
    return taken;
}

int GraphBuilder::add(GraphNodeKind kind, std::string label, int layer, std::vector<int> tensors, const std::vector<int>& inputs)
{
    const int index = static_cast<int>(m_graph.nodes.size());
    m_graph.nodes.push_back(GraphNode{.kind = kind, .label = std::move(label), .detail = {}, .layer = layer, .tensors = std::move(tensors)});
    const auto firstOfNode = static_cast<std::ptrdiff_t>(m_graph.edges.size());
    for (int input : inputs) {
        const GraphEdge edge{input, index};
        // Only this node's edges can repeat (an input named twice, as v = k when a layer has no v).
        if (input >= 0 && std::find(m_graph.edges.begin() + firstOfNode, m_graph.edges.end(), edge) == m_graph.edges.end())
            m_graph.edges.push_back(edge);
    }
    return index;
}

int GraphBuilder::add(GraphNodeKind kind, std::string label, int layer, std::vector<int> tensors, std::initializer_list<int> inputs)
{
    return add(kind, std::move(label), layer, std::move(tensors), std::vector<int>(inputs));
}

int GraphBuilder::step(GraphNodeKind kind, std::string label, int layer, TensorPool& pool, std::initializer_list<std::string_view> stems,
                       std::initializer_list<int> inputs)
{
    std::vector<int> tensors = pool.take(stems);
    if (tensors.empty())
        return -1;
    return add(kind, std::move(label), layer, std::move(tensors), inputs);
}

}  // namespace gguf::graph_detail
