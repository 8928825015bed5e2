// llama.cpp's gemma2.cpp, gemma3.cpp and gemma4.cpp graphs: scaled embeddings, norms after the
// attention and the FFN too, Q scaled before attention; Gemma 3 and 4 normalise Q and K per head;
// Gemma 4 adds per-layer head sizes, layers that read another layer's cache, experts beside the
// dense FFN, per-layer embeddings (E2B/E4B) and an output scale per layer.

#include "core/estimate/ArchitectureGraphs.h"

namespace gguf {

namespace {
TensorId rope(LlmGraph& m, TensorId x, TensorId positions, TensorId factors)
{
    return m.g.sameAs(GraphOp::Rope, x, positions, factors);
}

// Gemma 3n/4: the per-layer inputs of every token, [per_layer, tokens, layers] (build_inp_per_layer
// and project_per_layer_inputs).
TensorId perLayerInputs(LlmGraph& m, TensorId embeddings)
{
    ComputeGraph& g = m.g;
    const std::int64_t width = m.hp.embeddingPerLayer;
    const std::int64_t layers = static_cast<std::int64_t>(m.shape.layers.size());
    const TensorId ids = g.input(GgmlTypeId::I32, {m.tokens});
    TensorId inputs = g.getRows(m.weight("per_layer_token_embd.weight"), ids);
    inputs = g.reshape(inputs, {width, layers, m.tokens});
    inputs = g.sameAs(GraphOp::Scale, inputs);
    g.expand(inputs);
    TensorId projected = g.mulMat(m.weight("per_layer_model_proj.weight"), embeddings);
    projected = g.sameAs(GraphOp::Scale, projected);
    projected = g.reshape(projected, {width, layers, m.tokens});
    projected = m.norm(projected, m.weight("per_layer_proj_norm.weight"));
    inputs = g.sameAs(GraphOp::Add, projected, inputs);
    inputs = g.sameAs(GraphOp::Scale, inputs);
    return g.cont(g.permute(inputs, 0, 2, 1, 3));
}

TensorId layerNorm(LlmGraph& m, std::size_t il, TensorId x, const char* role)
{
    return m.norm(x, m.weight(il, std::string(role) + ".weight"));
}

// Gemma 4's FFN: the dense one, and on expert layers the experts beside it, each normed.
TensorId gemma4Ffn(LlmGraph& m, std::size_t il, TensorId attnOut)
{
    ComputeGraph& g = m.g;
    if (m.weight(il, "ffn_gate_inp.weight") == kNoTensor)
        return m.ffn(il, layerNorm(m, il, attnOut, "ffn_norm"), "", FfnActivation::Gelu);
    TensorId mlp = m.ffn(il, layerNorm(m, il, attnOut, "ffn_norm"), "", FfnActivation::Gelu);
    mlp = layerNorm(m, il, mlp, "post_ffw_norm_1");
    TensorId moe = layerNorm(m, il, attnOut, "pre_ffw_norm_2");
    TensorId router = g.sameAs(GraphOp::RmsNorm, attnOut);
    router = g.sameAs(GraphOp::Scale, router);
    router = g.sameAs(GraphOp::Mul, router, m.weight(il, "ffn_gate_inp.scale"));
    const TensorId logits = g.mulMat(m.weight(il, "ffn_gate_inp.weight"), router);
    moe = m.moeFfn(il, moe, logits);
    moe = layerNorm(m, il, moe, "post_ffw_norm_2");
    return g.sameAs(GraphOp::Add, mlp, moe);
}
}  // namespace

void buildGemmaGraph(LlmGraph& m)
{
    ComputeGraph& g = m.g;
    const bool gemma4 = m.shape.architecture == "gemma4";
    const bool qkNorm = m.shape.architecture != "gemma2";
    TensorId inpL = g.sameAs(GraphOp::Scale, m.inputEmbedding());
    const TensorId positions = m.inputPositions();
    const AttentionInputs attention = m.attentionInputs(m.shape.hasSlidingLayers() ? CacheKind::SlidingKeysAndValues : CacheKind::KeysAndValues);
    const TensorId outputIds = m.inputOutputIds();
    TensorId perLayer = kNoTensor;
    if (gemma4 && m.weight("per_layer_token_embd.weight") != kNoTensor)
        perLayer = perLayerInputs(m, inpL);

    const auto layers = static_cast<std::size_t>(m.hp.graphLayers);
    for (std::size_t il = 0; il < layers && !g.overflowed(); ++il) {
        const EstimateLayer& layer = m.shape.layers[il];
        const auto head = static_cast<std::int64_t>(layer.keyLength);
        const auto heads = static_cast<std::int64_t>(layer.heads);
        const auto kvHeads = static_cast<std::int64_t>(layer.kvHeads);
        TensorId cur = layerNorm(m, il, inpL, "attn_norm");
        if (gemma4) {
            const TensorId factors = layer.slidingWindow ? kNoTensor : m.weight("rope_freqs.weight");
            TensorId q = g.reshape(m.project(il, "attn_q", cur), {head, heads, m.tokens});
            q = rope(m, layerNorm(m, il, q, "attn_q_norm"), positions, factors);
            TensorId k = kNoTensor, v = kNoTensor;
            if (layer.ownsCache) {
                k = m.project(il, "attn_k", cur);
                v = m.weight(il, "attn_v.weight") != kNoTensor ? m.project(il, "attn_v", cur) : k;  // K = V without attn_v
                k = g.reshape(k, {head, kvHeads, m.tokens});
                v = g.reshape(v, {head, kvHeads, m.tokens});
                k = layerNorm(m, il, k, "attn_k_norm");
                v = g.sameAs(GraphOp::RmsNorm, v);
                k = rope(m, k, positions, factors);
            }
            cur = m.attention(attention, il, m.weight(il, "attn_output.weight"), kNoTensor, q, k, v);
        } else {
            QkvProjection p = m.qkv(il, cur, head, heads, kvHeads);
            if (qkNorm)
                p.q = layerNorm(m, il, p.q, "attn_q_norm");
            p.q = rope(m, p.q, positions, kNoTensor);
            if (qkNorm)
                p.k = layerNorm(m, il, p.k, "attn_k_norm");
            p.k = rope(m, p.k, positions, kNoTensor);
            p.q = g.sameAs(GraphOp::Scale, p.q);
            cur = m.attention(attention, il, m.weight(il, "attn_output.weight"), kNoTensor, p.q, p.k, p.v);
            if (il + 1 == layers) {
                cur = m.outputRows(cur, outputIds);
                inpL = m.outputRows(inpL, outputIds);
            }
        }
        cur = layerNorm(m, il, cur, "post_attention_norm");
        const TensorId attnOut = g.sameAs(GraphOp::Add, cur, inpL);
        cur = gemma4 ? gemma4Ffn(m, il, attnOut) : m.ffn(il, layerNorm(m, il, attnOut, "ffn_norm"), "", FfnActivation::Gelu);
        cur = layerNorm(m, il, cur, "post_ffw_norm");
        cur = g.sameAs(GraphOp::Add, cur, attnOut);
        if (perLayer != kNoTensor) {
            const TensorId residual = cur;
            cur = g.mulMat(m.weight(il, "inp_gate.weight"), cur);
            cur = g.sameAs(GraphOp::Unary, cur);
            const GraphTensor p = g.tensor(perLayer);
            const TensorId slice = g.view(perLayer, {p.ne[0], p.ne[1]}, {p.nb[1]}, p.nb[2] * il);
            cur = g.sameAs(GraphOp::Mul, cur, slice);
            cur = g.mulMat(m.weight(il, "proj.weight"), cur);
            cur = layerNorm(m, il, cur, "post_norm");
            cur = g.sameAs(GraphOp::Add, residual, cur);
        }
        if (const TensorId scale = m.weight(il, "layer_output_scale.weight"); scale != kNoTensor)
            cur = g.sameAs(GraphOp::Mul, cur, scale);
        inpL = cur;
    }
    TensorId cur = m.outputNorm(inpL);
    if (gemma4) {
        g.markOutput(cur);  // res->t_h_nextn, before the output rows
        cur = m.outputRows(cur, outputIds);
    }
    m.logits(cur);
}

}  // namespace gguf
