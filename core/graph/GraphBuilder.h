#pragma once
// The pieces the model graph's builders share (ModelGraph.cpp, BlockGraph.cpp, NameGroupedGraph.cpp):
// a set of tensors that steps claim by name, and a graph under construction.

#include "core/forward/BlockDescription.h"
#include "core/graph/ModelGraph.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf::graph_detail {

// Tensors not yet read by a node, by their name after a prefix ("blk.3." or ""): a stem claims
// "stem", "stem.weight", "stem.bias", "stem.scale" ... but not "stem_norm.weight".
class TensorPool {
public:
    void add(std::string suffix, int index) { m_entries.push_back({std::move(suffix), index}); }
    bool has(std::string_view stem) const;
    bool hasAny(std::initializer_list<std::string_view> stems) const;
    std::vector<int> take(std::initializer_list<std::string_view> stems);
    // The unclaimed ones, in file order, with their names after the prefix.
    const std::vector<std::pair<std::string, int>>& entries() const { return m_entries; }
    std::vector<int> takeAll();

private:
    static bool matches(std::string_view suffix, std::string_view stem);
    std::vector<std::pair<std::string, int>> m_entries;
};

class GraphBuilder {
public:
    // A node reading `tensors`, fed by `inputs` (entries of -1 are skipped); its index.
    int add(GraphNodeKind kind, std::string label, int layer, std::vector<int> tensors, std::initializer_list<int> inputs);
    int add(GraphNodeKind kind, std::string label, int layer, std::vector<int> tensors, const std::vector<int>& inputs);
    // A node for the tensors of `stems` in `pool` fed by `input`, or -1 when the pool has none.
    int step(GraphNodeKind kind, std::string label, int layer, TensorPool& pool, std::initializer_list<std::string_view> stems,
             std::initializer_list<int> inputs);
    ModelGraph& graph() { return m_graph; }

private:
    ModelGraph m_graph;
};

// -1 -> fallback.
inline int orElse(int node, int fallback) { return node >= 0 ? node : fallback; }

// One block of an architecture the pass runs, from `input`; returns the node its output leaves.
int addDescribedLayer(GraphBuilder& builder, const BlockDescription& description, int layer, TensorPool& pool, int input);
// One block of any other architecture: a node per name group (attn_*, ffn_*, ...), chained.
int addNameGroupedLayer(GraphBuilder& builder, int layer, TensorPool& pool, int input);

}  // namespace gguf::graph_detail
