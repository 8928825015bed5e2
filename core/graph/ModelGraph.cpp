#include "core/graph/ModelGraph.h"

#include "core/graph/GraphBuilder.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace gguf {

namespace {

using graph_detail::GraphBuilder;
using graph_detail::TensorPool;
using graph_detail::orElse;

// "blk.12.attn_q.weight" -> 12 and "attn_q.weight"; false for a name outside the blocks (or a
// layer number that does not fit an int, which is then just a tensor outside them).
bool splitBlockName(std::string_view name, int& layer, std::string_view& suffix)
{
    constexpr std::string_view prefix = "blk.";
    if (!name.starts_with(prefix))
        return false;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [end, error] = std::from_chars(first, last, layer);
    if (error != std::errc{} || end == first || end == last || *end != '.' || layer < 0)
        return false;
    suffix = std::string_view(end + 1, static_cast<std::size_t>(last - end - 1));
    return true;
}

// The parts a collapsed block runs, from its steps' kinds: "attention, MoE".
std::string blockDetail(const std::vector<GraphNodeKind>& kinds)
{
    const auto has = [&](GraphNodeKind kind) { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); };
    std::string detail;
    if (has(GraphNodeKind::Attention))
        detail = "attention";
    else if (has(GraphNodeKind::Recurrent))
        detail = "recurrent";
    else if (has(GraphNodeKind::ShortConv))
        detail = "short conv";
    if (has(GraphNodeKind::Experts))
        detail += has(GraphNodeKind::SharedExpert) ? ", MoE + shared" : ", MoE";
    else if (has(GraphNodeKind::Activation))
        detail += ", FFN";
    return detail.starts_with(", ") ? detail.substr(2) : detail;
}

}  // namespace

namespace graph_detail {

int addNameGroupedLayer(GraphBuilder& builder, int layer, TensorPool& pool, int input)
{
    // Groups by the name's first word ("attn" of attn_q.weight, "shortconv" of shortconv.conv.weight),
    // in the order the file first has them (by map, not by search: a hostile file may have
    // thousands of groups in a layer).
    std::vector<std::string> order;
    std::map<std::string, std::vector<int>> groups;
    for (const auto& [suffix, index] : pool.entries()) {
        auto [group, inserted] = groups.try_emplace(suffix.substr(0, suffix.find_first_of("_.")));
        if (inserted)
            order.push_back(group->first);
        group->second.push_back(index);
    }
    int previous = input;
    for (const std::string& name : order) {
        std::vector<int>& tensors = groups[name];
        std::sort(tensors.begin(), tensors.end());
        previous = builder.add(GraphNodeKind::Other, name + "_*", layer, std::move(tensors), {previous});
    }
    pool.takeAll();
    return previous;
}

}  // namespace graph_detail

ModelGraph buildModelGraph(const Model& model)
{
    const auto& tensors = model.tensors();
    const BlockDescription* description = findBlockDescription(model.summary().architecture);
    TensorPool globals;
    std::map<int, TensorPool> layers;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        int layer = 0;
        std::string_view suffix;
        if (splitBlockName(tensors[i].name, layer, suffix))
            layers[layer].add(std::string(suffix), static_cast<int>(i));
        else
            globals.add(std::string(tensors[i].name), static_cast<int>(i));
    }

    GraphBuilder builder;
    const std::string_view outputNorm = description ? description->hybrid.outputNorm : std::string_view("output_norm");
    const std::vector<int> ropeFreqs = globals.take({"rope_freqs"});
    const std::vector<int> embedding = globals.take({"token_embd"});
    int current = builder.add(GraphNodeKind::Embedding, "token_embd", -1, embedding, {});
    if (outputNorm != "token_embd_norm")
        current = orElse(builder.step(GraphNodeKind::Norm, "token_embd_norm", -1, globals, {"token_embd_norm"}, {current}), current);
    // Gemma 4's per-layer embeddings, which every block reads.
    builder.step(GraphNodeKind::Embedding, "per-layer embeddings", -1, globals,
                 {"per_layer_token_embd", "per_layer_model_proj", "per_layer_proj_norm"}, {});

    for (auto& [layer, pool] : layers) {
        builder.graph().layers.push_back(layer);
        const int first = static_cast<int>(builder.graph().nodes.size());
        current = description ? graph_detail::addDescribedLayer(builder, *description, layer, pool, current)
                              : graph_detail::addNameGroupedLayer(builder, layer, pool, current);
        // rope_freqs is read by every layer's RoPE.
        for (auto node = builder.graph().nodes.begin() + first; node != builder.graph().nodes.end(); ++node)
            if (node->kind == GraphNodeKind::Rope)
                node->tensors = ropeFreqs;
    }

    current = orElse(builder.step(GraphNodeKind::Norm, std::string(outputNorm), -1, globals, {outputNorm}, {current}), current);
    std::vector<int> head = globals.take({"output"});
    const bool tied = head.empty();
    builder.add(GraphNodeKind::Output, tied ? "output (tied to token_embd)" : "output", -1, tied ? embedding : std::move(head), {current});
    const bool ropeRead = std::any_of(builder.graph().nodes.begin(), builder.graph().nodes.end(),
                                      [](const GraphNode& node) { return node.kind == GraphNodeKind::Rope; });
    std::vector<int> rest = globals.takeAll();
    if (!ropeRead)
        rest.insert(rest.end(), ropeFreqs.begin(), ropeFreqs.end());
    std::sort(rest.begin(), rest.end());
    if (!rest.empty())
        builder.add(GraphNodeKind::Other, "other tensors", -1, std::move(rest), {});
    builder.graph().fromBlockDescription = description != nullptr;
    return std::move(builder.graph());
}

ModelGraph collapseLayers(const ModelGraph& graph, const std::set<int>& expandedLayers)
{
    ModelGraph collapsed;
    collapsed.layers = graph.layers;
    collapsed.fromBlockDescription = graph.fromBlockDescription;
    std::vector<int> newIndex(graph.nodes.size());
    std::map<int, int> blockOf;                       // layer -> its Block node
    std::map<int, std::vector<GraphNodeKind>> kinds;  // layer -> its steps' kinds
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const GraphNode& node = graph.nodes[i];
        if (node.layer < 0 || expandedLayers.contains(node.layer)) {
            newIndex[i] = static_cast<int>(collapsed.nodes.size());
            collapsed.nodes.push_back(node);
            continue;
        }
        auto [block, inserted] = blockOf.try_emplace(node.layer, static_cast<int>(collapsed.nodes.size()));
        if (inserted)
            collapsed.nodes.push_back(GraphNode{.kind = GraphNodeKind::Block, .label = "blk." + std::to_string(node.layer),
                                                .detail = {}, .layer = node.layer, .tensors = {}});
        GraphNode& target = collapsed.nodes[static_cast<std::size_t>(block->second)];
        target.tensors.insert(target.tensors.end(), node.tensors.begin(), node.tensors.end());
        kinds[node.layer].push_back(node.kind);
        newIndex[i] = block->second;
    }
    for (auto& [layer, block] : blockOf) {
        GraphNode& node = collapsed.nodes[static_cast<std::size_t>(block)];
        std::sort(node.tensors.begin(), node.tensors.end());
        node.tensors.erase(std::unique(node.tensors.begin(), node.tensors.end()), node.tensors.end());
        node.detail = blockDetail(kinds[layer]);
    }
    for (const GraphEdge& edge : graph.edges) {
        const GraphEdge mapped{newIndex[static_cast<std::size_t>(edge.from)], newIndex[static_cast<std::size_t>(edge.to)]};
        if (mapped.from != mapped.to)
            collapsed.edges.push_back(mapped);
    }
    std::sort(collapsed.edges.begin(), collapsed.edges.end(),
              [](const GraphEdge& a, const GraphEdge& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
    collapsed.edges.erase(std::unique(collapsed.edges.begin(), collapsed.edges.end()), collapsed.edges.end());
    return collapsed;
}

}  // namespace gguf
