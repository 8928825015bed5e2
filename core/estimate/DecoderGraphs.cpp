// The pre-norm decoders: llama.cpp's llama.cpp, qwen2.cpp, qwen3.cpp, qwen3moe.cpp, phi3.cpp,
// glm4-moe.cpp, openai-moe.cpp, seed-oss.cpp, ernie4-5-moe.cpp,
// hy-v3.cpp, minimax-m2.cpp, mistral3.cpp, llama4.cpp, mimo2.cpp and step35.cpp graphs. They share one block (norm, Q/K/V, rope, attention,
// residual, norm, FFN or experts, residual) and differ in the details each names below.

#include "core/estimate/ArchitectureGraphs.h"

namespace gguf {

namespace {
struct DecoderStyle {
    bool qkNorm = false;          // Qwen3, HY V3: RMS norm of Q and K per head (GLM-4.5: when present)
    bool scaledQuery = false;     // Phi-3: Q scaled before attention
    bool residualFirst = false;   // Phi-3 adds (residual, FFN) after the FFN where the others add (FFN, residual)
    bool postAttentionNorm = false;  // GLM-4.5, gpt-oss: the FFN's norm is post_attention_norm
    bool sharedExpert = false;    // GLM-4.5, ERNIE 4.5, HY V3: routed + shared experts (when the file has them)
    bool sinks = false;           // gpt-oss, mimo2: attention sinks (where the layer has them)
    bool rowsAfterLoop = false;   // gpt-oss, step35: the output rows picked after the loop, not in the last layer
    bool headGate = false;        // step35: sigmoid(attn_gate . x) per head on the attention, before attn_output
    bool normsBeforeRopes = false;  // MiniMax-M2: Q and K normed (over all heads) before either is roped
    std::size_t noRopeStep = 0;     // Llama 4: layers (il + 1) % step == 0 scale Q by the temperature instead of roping
    bool normAfterRope = false;     // Llama 4: weightless RMS norm of the roped Q and K
    FfnActivation dense = FfnActivation::Silu;
};

DecoderStyle styleOf(const std::string& arch)
{
    DecoderStyle s;
    if (arch == "qwen3" || arch == "qwen3moe" || arch == "glm4moe")
        s.qkNorm = true;
    if (arch == "phi3") {
        s.scaledQuery = true;
        s.residualFirst = true;
        s.dense = FfnActivation::SwigluFused;
    }
    if (arch == "glm4moe") {
        s.postAttentionNorm = true;
        s.sharedExpert = true;
    }
    if (arch == "seed_oss")
        s.postAttentionNorm = true;
    if (arch == "ernie4_5-moe")
        s.sharedExpert = true;
    if (arch == "hy_v3") {
        s.qkNorm = true;
        s.sharedExpert = true;
    }
    if (arch == "minimax-m2") {
        s.qkNorm = true;
        s.normsBeforeRopes = true;
    }
    if (arch == "llama4") {
        s.sharedExpert = true;
        s.noRopeStep = 4;
        s.normAfterRope = true;
    }
    if (arch == "gpt-oss") {
        s.postAttentionNorm = true;
        s.sinks = true;
        s.rowsAfterLoop = true;
    }
    if (arch == "mimo2")
        s.sinks = true;
    if (arch == "step35") {
        s.qkNorm = true;
        s.sharedExpert = true;
        s.rowsAfterLoop = true;
        s.headGate = true;
    }
    return s;
}

TensorId rope(LlmGraph& m, TensorId x, TensorId positions, TensorId factors)
{
    return m.g.sameAs(GraphOp::Rope, x, positions, factors);
}

// step35's head-wise gate on the attention output [head_v * heads, tokens], then attn_output.
TensorId gatedHeads(LlmGraph& m, std::size_t il, TensorId normed, TensorId attention, std::int64_t heads)
{
    ComputeGraph& g = m.g;
    if (const TensorId w = m.weight(il, "attn_gate.weight"); w != kNoTensor) {
        const TensorId gate = g.sameAs(GraphOp::Unary, g.mulMat(w, normed));
        const GraphTensor& a = g.tensor(attention);
        const std::int64_t width = a.ne[0], tokens = a.ne[1];
        TensorId heads3d = g.reshape(attention, {width / heads, heads, tokens});
        heads3d = g.sameAs(GraphOp::Mul, heads3d, g.reshape(gate, {1, heads, tokens}));
        attention = g.reshape(heads3d, {width, tokens});
    }
    return g.mulMat(m.weight(il, "attn_output.weight"), attention);
}
}  // namespace

void buildDecoderGraph(LlmGraph& m)
{
    ComputeGraph& g = m.g;
    const DecoderStyle style = styleOf(m.shape.architecture);
    TensorId inpL = m.inputEmbedding();
    const TensorId positions = m.inputPositions();
    // Mistral 3's attention temperature: one factor per token, multiplied into Q after its rope.
    const TensorId temperature = m.hp.attentionTemperature ? g.input(GgmlTypeId::F32, {1, 1, m.tokens}) : kNoTensor;
    const AttentionInputs attention = m.attentionInputs(m.shape.hasSlidingLayers() ? CacheKind::SlidingKeysAndValues : CacheKind::KeysAndValues);
    const TensorId outputIds = m.inputOutputIds();
    // Llama 3's rope_freqs, Phi-3's long or short factors: a weight either way, which one does not
    // change what is allocated.
    TensorId factors = m.weight("rope_freqs.weight");
    if (factors == kNoTensor)
        factors = m.weight("rope_factors_long.weight");

    const auto layers = static_cast<std::size_t>(m.hp.graphLayers);
    for (std::size_t il = 0; il < layers && !g.overflowed(); ++il) {
        const EstimateLayer& layer = m.shape.layers[il];
        TensorId residual = inpL;
        TensorId cur = m.norm(inpL, m.weight(il, "attn_norm.weight"), m.weight(il, "attn_norm.bias"));
        QkvProjection p = m.qkv(il, cur, static_cast<std::int64_t>(layer.keyLength), static_cast<std::int64_t>(layer.heads),
                                static_cast<std::int64_t>(layer.kvHeads), static_cast<std::int64_t>(layer.valueLength));
        const auto normed = [&](TensorId x, const char* name) {
            return style.qkNorm && m.weight(il, name) != kNoTensor ? m.norm(x, m.weight(il, name)) : x;
        };
        const bool roped = style.noRopeStep == 0 || (il + 1) % style.noRopeStep != 0;
        if (!roped) {
            if (temperature != kNoTensor)
                p.q = g.sameAs(GraphOp::Mul, p.q, temperature);
        } else if (style.normsBeforeRopes) {
            p.q = normed(p.q, "attn_q_norm.weight");
            p.k = normed(p.k, "attn_k_norm.weight");
            p.q = rope(m, p.q, positions, factors);
            p.k = rope(m, p.k, positions, factors);
        } else {
            p.q = rope(m, normed(p.q, "attn_q_norm.weight"), positions, factors);
            p.k = rope(m, normed(p.k, "attn_k_norm.weight"), positions, factors);
        }
        if (roped && style.noRopeStep == 0 && temperature != kNoTensor)
            p.q = g.sameAs(GraphOp::Mul, p.q, temperature);
        if (roped && style.normAfterRope && m.hp.experts != 128) {
            p.q = g.sameAs(GraphOp::RmsNorm, p.q);
            p.k = g.sameAs(GraphOp::RmsNorm, p.k);
        }
        if (style.scaledQuery)
            p.q = g.sameAs(GraphOp::Scale, p.q);
        const TensorId normedInput = cur;
        cur = m.attention(attention, il, style.headGate ? kNoTensor : m.weight(il, "attn_output.weight"), m.weight(il, "attn_output.bias"),
                          p.q, p.k, p.v, style.sinks ? m.weight(il, "attn_sinks.weight") : kNoTensor);
        if (style.headGate)
            cur = gatedHeads(m, il, normedInput, cur, static_cast<std::int64_t>(layer.heads));
        if (m.hp.attentionValueScale)
            cur = g.sameAs(GraphOp::Scale, cur);
        if (il + 1 == layers && !style.rowsAfterLoop) {
            cur = m.outputRows(cur, outputIds);
            residual = m.outputRows(residual, outputIds);
        }
        const TensorId ffnInput = g.sameAs(GraphOp::Add, cur, residual);
        const char* normRole = style.postAttentionNorm ? "post_attention_norm" : "ffn_norm";
        cur = m.norm(ffnInput, m.weight(il, std::string(normRole) + ".weight"), m.weight(il, std::string(normRole) + ".bias"));
        const bool moe = m.weight(il, "ffn_gate_inp.weight") != kNoTensor && static_cast<std::int64_t>(il) >= m.hp.denseLeadingLayers;
        if (!moe) {
            cur = m.ffn(il, cur, "", style.dense);
        } else if (style.sharedExpert && m.weight(il, "ffn_up_shexp.weight") != kNoTensor) {
            const TensorId routed = m.moeFfn(il, cur);
            const TensorId shared = m.ffn(il, cur, "_shexp", FfnActivation::Silu);
            cur = g.sameAs(GraphOp::Add, routed, shared);
        } else {
            cur = m.moeFfn(il, cur);
        }
        cur = style.residualFirst ? g.sameAs(GraphOp::Add, ffnInput, cur) : g.sameAs(GraphOp::Add, cur, ffnInput);
        inpL = cur;
    }
    TensorId cur = inpL;
    if (style.rowsAfterLoop) {
        g.markOutput(cur);  // the hidden state before the output rows (res->t_h_nextn)
        cur = m.outputRows(cur, outputIds);
    }
    cur = m.outputNorm(cur);
    m.logits(cur);
}

}  // namespace gguf
