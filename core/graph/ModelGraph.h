#pragma once
// The model as a graph of the steps its forward pass runs, for the app's Graph page: per block the
// norms, the projections (q, k, v, output, FFN gate / up / down), rope, attention, the router,
// experts and shared expert, the recurrent or short-convolution mixer and the residual adds, each
// linked to the tensors it reads, and the edges the values flow along. Built from the
// architecture's BlockDescription and the tensors each layer has (so a layer without a router runs
// the dense FFN, a layer without q runs the recurrent mixer, as the pass decides); an architecture
// the pass does not run gets one node per tensor-name group of each blk.N (attn_*, ffn_*, ...).
// Plain data and no Qt: the session layer colours and lays it out (GraphLayout.h).

#include "core/gguf/Model.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace gguf {

enum class GraphNodeKind {
    Embedding,    // token embedding lookup (and its scale, norm)
    Norm,         // an RMS / layer norm and its weight
    Projection,   // a weight matrix product (q, k, v, output, FFN gate / up / down, LM head)
    Rope,         // rotary position embedding (reads rope_freqs where the file has it)
    Attention,    // softmax(q k^T) v over the KV cache (reads attention sinks where present)
    Router,       // the MoE router (ffn_gate_inp, its choice bias)
    Experts,      // the routed experts' gate / up / down
    SharedExpert, // the shared expert beside them
    Recurrent,    // Gated DeltaNet: conv1d, decay, the delta rule, its norm
    ShortConv,    // LFM2's gated short convolution
    Activation,   // the FFN's gated activation
    Add,          // a residual add
    Output,       // the logits
    Block,        // a whole blk.N, collapsed
    Other,        // tensors the steps above do not read (grouped by name for unknown architectures)
};

struct GraphNode {
    GraphNodeKind kind = GraphNodeKind::Other;
    std::string label;           // "attn_q", "RoPE", "blk.3"
    std::string detail;          // a Block's parts ("attention, MoE"); empty for the others
    int layer = -1;              // the N of the blk.N it belongs to; -1 outside the blocks
    std::vector<int> tensors;    // indices into Model::tensors() of what it reads, ascending
};

struct GraphEdge {
    int from = 0;
    int to = 0;
    bool operator==(const GraphEdge&) const = default;
};

struct ModelGraph {
    std::vector<GraphNode> nodes;   // in a topological order (every edge goes to a later node)
    std::vector<GraphEdge> edges;
    std::vector<int> layers;        // the N of every blk.N the file has, ascending
    bool fromBlockDescription = false;  // false: grouped from tensor names
};

// The graph of `model`: from its architecture's block description when the pass runs it, else
// grouped from tensor names. Every tensor of the model is read by a node; a blk.N tensor by one
// node of layer N (a tensor outside the blocks may be read by several: rope_freqs by every RoPE,
// a tied token_embd by the embedding and the output).
ModelGraph buildModelGraph(const Model& model);

// The same graph with every layer not in `expandedLayers` drawn as one Block node that reads all
// of the layer's tensors (its edges those of its steps to and from outside the layer). The nodes
// keep their order, so the result is topologically ordered too.
ModelGraph collapseLayers(const ModelGraph& graph, const std::set<int>& expandedLayers);

}  // namespace gguf
