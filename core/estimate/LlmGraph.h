#pragma once
// The pieces every llama.cpp model graph is built from (llm_graph_context in src/llama-graph.cpp
// at 80fb11a), recorded into a ComputeGraph for the worst-case ubatch llama.cpp reserves: the
// token inputs, the KV cache inputs and stores, attention with and without flash attention, the
// norms, the dense and mixture-of-experts feed-forward blocks and the output. Each makes the ops
// and the ggml_build_forward_expand calls llama.cpp makes, in its order, since the allocator's
// reuse depends on the node order. The architectures (ArchitectureGraphs.h) put them together.

#include "core/estimate/ComputeGraph.h"
#include "core/estimate/EstimateShape.h"
#include "core/estimate/GraphHyperparameters.h"
#include "core/gguf/Model.h"

#include <map>
#include <string>
#include <string_view>

namespace gguf {

// The context's side: llama_cparams and the caches' sizes.
struct GraphSettings {
    std::int64_t tokens = 512;  // n_ubatch: the worst-case ubatch, every token an output
    std::int64_t fullCells = 0;  // n_kv of the cache of full-attention layers
    std::int64_t slidingCells = 0;
    bool flashAttention = true;
    const TypeTraits* keyType = nullptr;  // the caches' element types
    const TypeTraits* valueType = nullptr;
};

// The graph inputs of one KV cache (llm_graph_input_attn_kv*): the row indices of the store and
// the mask; the Hadamard rotations of a quantized cache.
struct CacheInputs {
    TensorId keyRows = kNoTensor;
    TensorId valueRows = kNoTensor;
    TensorId mask = kNoTensor;
    TensorId keyRotation = kNoTensor;
    TensorId valueRotation = kNoTensor;
};

// How the layer's attention reaches its cache (which build_attn overload llama.cpp calls).
enum class CacheKind {
    KeysAndValues,         // llm_graph_input_attn_kv: Q, V, K enter the graph in that order
    SlidingKeysAndValues,  // llm_graph_input_attn_kv_iswa: Q, K, V; a layer may read another's cache
    KeysOnly,              // llm_graph_input_attn_k (MLA): V is a view of the cached K
};

struct AttentionInputs {
    CacheKind kind = CacheKind::KeysAndValues;
    CacheInputs full;
    CacheInputs sliding;  // SlidingKeysAndValues only
};

struct QkvProjection {
    TensorId q = kNoTensor;
    TensorId k = kNoTensor;
    TensorId v = kNoTensor;
};

// What build_ffn applies between the projections: a (gated) SiLU or GELU, or SwiGLU over a fused
// gate+up projection, which halves its width.
enum class FfnActivation { Silu, Gelu, SwigluFused };

class LlmGraph {
public:
    LlmGraph(ComputeGraph& graph, const Model& model, const EstimateShape& shape, const GraphHyperparameters& hp,
             const GraphSettings& settings);

    ComputeGraph& g;
    const EstimateShape& shape;
    const GraphHyperparameters& hp;
    const GraphSettings& settings;
    const std::int64_t tokens;
    const std::int64_t embedding;

    // A weight of the file by name ("output.weight"), or of layer il by role ("attn_q.weight");
    // kNoTensor when the file has none.
    TensorId weight(std::string_view name);
    TensorId weight(std::size_t il, std::string_view role);
    // False once a weight had a dimension past 2^31: the graph's sizes are then not to be trusted
    // to fit the products made of them.
    bool weightsInBounds() const { return m_weightsInBounds; }

    TensorId inputEmbedding();           // build_inp_embd
    TensorId inputPositions();           // build_inp_pos
    TensorId inputOutputIds();           // build_inp_out_ids
    AttentionInputs attentionInputs(CacheKind kind);

    TensorId norm(TensorId x, TensorId scale, TensorId bias = kNoTensor);  // build_norm, RMS
    // build_lora_mm: the product with layer il's `role`.weight, times its `role`.scale if any.
    TensorId project(std::size_t il, std::string_view role, TensorId x);
    // build_qkv: separate or fused projections with their biases, shaped [head, heads, tokens]
    // (V's head valueSize wide when above 0, else headSize).
    QkvProjection qkv(std::size_t il, TensorId x, std::int64_t headSize, std::int64_t heads, std::int64_t kvHeads, std::int64_t valueSize = 0);

    // build_attn: stores K and V of the ubatch, attends over the whole cache, projects the result.
    TensorId attention(const AttentionInputs& inputs, std::size_t il, TensorId wo, TensorId woBias, TensorId q, TensorId k,
                       TensorId v, TensorId sinks = kNoTensor, TensorId vMla = kNoTensor);

    // build_ffn over layer il's ffn_up<suffix>, ffn_gate<suffix> (a parallel gate, when there is
    // one) and ffn_down<suffix>, with their biases and scales.
    TensorId ffn(std::size_t il, TensorId x, std::string_view suffix, FfnActivation activation);
    // build_moe_ffn for layer il; `logits` replaces the router's product when the caller made it.
    TensorId moeFfn(std::size_t il, TensorId x, TensorId logits = kNoTensor);

    // The last layer keeps only the rows of the outputs (all of them in the worst case).
    TensorId outputRows(TensorId x, TensorId outputIds) { return g.getRows(x, outputIds); }
    TensorId outputNorm(TensorId x);
    // The output projection of the embeddings, the final softcap; marks both as results.
    TensorId logits(TensorId embeddings);

private:
    std::int64_t cellsOf(std::size_t il) const;
    TensorId cacheTensor(std::size_t il, bool value);
    TensorId cachedKeys(std::size_t il);
    TensorId cachedValues(std::size_t il);
    TensorId storeKeys(const CacheInputs& inputs, std::size_t il, TensorId k);
    TensorId storeValues(const CacheInputs& inputs, std::size_t il, TensorId v);
    TensorId attend(TensorId q, TensorId k, TensorId v, TensorId mask, TensorId sinks, TensorId vMla);
    TensorId hadamard(TensorId x, TensorId rotation);
    CacheInputs cacheInputs(bool keysOnly, std::int64_t cells, bool sliding);

    const Model& m_model;
    std::map<std::string, TensorId, std::less<>> m_weights;
    std::map<std::pair<std::size_t, bool>, TensorId> m_caches;
    bool m_weightsInBounds = true;
};

}  // namespace gguf
