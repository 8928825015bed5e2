// llama.cpp's deepseek2.cpp graph: queries through a low-rank projection (q_lora) or directly,
// the compressed KV and its rope part from one projection; with MLA weights (attn_k_b, attn_v_b)
// the query is absorbed into the latent space, the cache holds the latent and rope part only
// (K-only, V a view of it) and attn_v_b expands the result per head; without them K and V are
// rebuilt per head. Leading dense layers, then routed experts beside a shared expert.

#include "core/estimate/ArchitectureGraphs.h"

namespace gguf {

namespace {
TensorId rope(ComputeGraph& g, TensorId x, TensorId positions)
{
    return g.sameAs(GraphOp::Rope, x, positions);
}

std::uint64_t f32Row(std::int64_t elements)
{
    return static_cast<std::uint64_t>(elements) * 4;
}
}  // namespace

void buildDeepSeekGraph(LlmGraph& m)
{
    ComputeGraph& g = m.g;
    const bool mla = m.shape.mla;
    TensorId inpL = m.inputEmbedding();
    const TensorId attentionScale = m.hp.attentionTemperature ? g.input(GgmlTypeId::F32, {1, 1, m.tokens}) : kNoTensor;
    const TensorId positions = m.inputPositions();
    const AttentionInputs attention = m.attentionInputs(mla ? CacheKind::KeysOnly : CacheKind::KeysAndValues);
    const TensorId outputIds = m.inputOutputIds();

    const std::int64_t rank = static_cast<std::int64_t>(m.shape.kvLoraRank);
    const std::int64_t ropeDims = m.hp.ropeDimensions;
    const std::int64_t headK = m.hp.mlaKeyLength;    // per head: nope + rope
    const std::int64_t headV = m.hp.mlaValueLength;
    const std::int64_t nope = headK - ropeDims;

    const auto layers = static_cast<std::size_t>(m.hp.graphLayers);
    for (std::size_t il = 0; il < layers && !g.overflowed(); ++il) {
        const auto heads = static_cast<std::int64_t>(m.shape.layers[il].heads);
        TensorId residual = inpL;
        TensorId cur = m.norm(inpL, m.weight(il, "attn_norm.weight"));
        TensorId q = kNoTensor;
        if (m.weight(il, "attn_q_a.weight") != kNoTensor) {
            q = g.mulMat(m.weight(il, "attn_q_a.weight"), cur);
            q = m.norm(q, m.weight(il, "attn_q_a_norm.weight"));
            q = g.mulMat(m.weight(il, "attn_q_b.weight"), q);
        } else {
            q = g.mulMat(m.weight(il, "attn_q.weight"), cur);
        }
        q = g.reshape(q, {headK, heads, m.tokens});
        const TensorId compressed = g.mulMat(m.weight(il, "attn_kv_a_mqa.weight"), cur);
        const std::uint64_t row = f32Row(rank + ropeDims);
        TensorId latent = g.view(compressed, {rank, m.tokens}, {row});
        TensorId kRope = g.view(compressed, {ropeDims, 1, m.tokens}, {row, row}, f32Row(rank));
        kRope = rope(g, kRope, positions);
        latent = m.norm(latent, m.weight(il, "attn_kv_a_norm.weight"));
        const GraphTensor qt = g.tensor(q);
        if (mla) {
            TensorId qNope = g.view(q, {nope, heads, m.tokens}, {qt.nb[1], qt.nb[2]});
            TensorId qRope = g.view(q, {ropeDims, heads, m.tokens}, {qt.nb[1], qt.nb[2]}, f32Row(nope));
            qRope = rope(g, qRope, positions);
            qNope = g.permute(qNope, 0, 2, 1, 3);
            TensorId absorbed = g.mulMat(m.weight(il, "attn_k_b.weight"), qNope);
            absorbed = g.permute(absorbed, 0, 2, 1, 3);
            TensorId qCur = g.concat(absorbed, qRope, 0);
            latent = g.reshape(latent, {rank, 1, m.tokens});
            const TensorId kCur = g.concat(latent, kRope, 0);
            if (attentionScale != kNoTensor)
                qCur = g.sameAs(GraphOp::Mul, qCur, attentionScale);
            cur = m.attention(attention, il, m.weight(il, "attn_output.weight"), kNoTensor, qCur, kCur, latent, kNoTensor,
                              m.weight(il, "attn_v_b.weight"));
        } else {
            const TensorId kv = g.mulMat(m.weight(il, "attn_kv_b.weight"), latent);
            const std::uint64_t kvRow = f32Row(nope + headV);
            const TensorId kNope = g.view(kv, {nope, heads, m.tokens}, {kvRow, kvRow * static_cast<std::uint64_t>(heads)});
            TensorId vCur = g.view(kv, {headV, heads, m.tokens}, {kvRow, kvRow * static_cast<std::uint64_t>(heads)}, f32Row(nope));
            vCur = g.cont(vCur);
            TensorId qCur = rope(g, q, positions);
            const TensorId kCur = g.concat(kNope, g.repeat(kRope, {ropeDims, heads, m.tokens, 1}), 0);
            if (attentionScale != kNoTensor)
                qCur = g.sameAs(GraphOp::Mul, qCur, attentionScale);
            cur = m.attention(attention, il, m.weight(il, "attn_output.weight"), kNoTensor, qCur, kCur, vCur);
        }
        if (il + 1 == layers) {
            cur = m.outputRows(cur, outputIds);
            residual = m.outputRows(residual, outputIds);
        }
        const TensorId ffnInput = g.sameAs(GraphOp::Add, cur, residual);
        cur = m.norm(ffnInput, m.weight(il, "ffn_norm.weight"));
        if (static_cast<std::int64_t>(il) < m.hp.denseLeadingLayers) {
            cur = m.ffn(il, cur, "", FfnActivation::Silu);
        } else {
            const TensorId routed = m.moeFfn(il, cur);
            const TensorId shared = m.ffn(il, cur, "_shexp", FfnActivation::Silu);
            cur = g.sameAs(GraphOp::Add, routed, shared);
        }
        inpL = g.sameAs(GraphOp::Add, cur, ffnInput);
    }
    m.logits(m.outputNorm(inpL));
}

}  // namespace gguf
