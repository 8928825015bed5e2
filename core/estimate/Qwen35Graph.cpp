// llama.cpp's qwen35.cpp, qwen35moe.cpp and qwen3next.cpp graphs (with delta-net-base.cpp): Gated DeltaNet layers
// (projections, the conv state read and written back, the short convolution, the fused gated
// delta net over the ubatch, the state written back, a gated norm) beside full-attention layers
// whose Q projection carries an output gate; a dense FFN, or experts with a sigmoid-gated shared
// expert.

#include "core/estimate/ArchitectureGraphs.h"

namespace gguf {

RecurrentInputs recurrentInputs(ComputeGraph& g)
{
    const TensorId copies = g.input(GgmlTypeId::I32, {1});
    return {g.view(copies, {1}, {}), g.view(copies, {0}, {}, 4)};
}

// build_rs: clear a state, read the sequences' states, copy the others back (none here).
TensorId readState(ComputeGraph& g, const RecurrentInputs& in, TensorId states, std::int64_t size)
{
    const TensorId rows = g.reshape(states, {size, 1});
    g.expand(g.viewOf(g.view(rows, {size}, {}), GraphOp::Scale));
    const TensorId current = g.getRows(rows, in.main);
    g.expand(current);
    const TensorId others = g.getRows(rows, in.extra);
    g.expand(g.cpy(others, g.view(states, {size, 0}, {g.tensor(states).nb[1]})));
    return current;
}

namespace {

struct BetaAndGate {
    TensorId beta = kNoTensor;  // sigmoid(b) [1, value heads, tokens, 1]
    TensorId gate = kNoTensor;  // softplus(a + dt bias) * ssm_a, the same shape
};

// Qwen3.5's ssm_beta and ssm_alpha, or Qwen3-Next's one ssm_ba split per key head into b and a
// (b made contiguous, a merged to the value heads).
BetaAndGate betaAndGate(LlmGraph& m, std::size_t il, TensorId x, std::int64_t keyHeads, std::int64_t valueHeads)
{
    ComputeGraph& g = m.g;
    const std::int64_t tokens = m.tokens;
    TensorId beta = kNoTensor, alpha = kNoTensor;
    if (m.shape.architecture == "qwen3next") {
        const std::int64_t r = valueHeads / keyHeads;
        const TensorId ba = g.reshape(m.project(il, "ssm_ba", x), {2 * r, keyHeads, tokens, 1});
        const GraphTensor t = g.tensor(ba);
        const TensorId b = g.view(ba, {r, keyHeads, tokens, 1}, {t.nb[1], t.nb[2], t.nb[3]});
        const TensorId a = g.view(ba, {r, keyHeads, tokens, 1}, {t.nb[1], t.nb[2], t.nb[3]}, t.nb[0] * static_cast<std::uint64_t>(r));
        beta = g.reshape(g.sameAs(GraphOp::Unary, g.cont(b)), {1, valueHeads, tokens, 1});
        alpha = g.cont(a, {valueHeads, tokens, 1});
    } else {
        beta = g.sameAs(GraphOp::Unary, g.reshape(m.project(il, "ssm_beta", x), {1, valueHeads, tokens, 1}));
        alpha = g.reshape(m.project(il, "ssm_alpha", x), {valueHeads, tokens, 1});
    }
    alpha = g.sameAs(GraphOp::Unary, g.sameAs(GraphOp::Add, alpha, m.weight(il, "ssm_dt.bias")));
    const TensorId gate = g.sameAs(GraphOp::Mul, alpha, m.weight(il, "ssm_a"));
    return {beta, g.reshape(gate, {1, valueHeads, tokens, 1})};
}

// Qwen3-Next repeats each key head over its value heads (ggml_repeat_4d) when they differ.
TensorId repeatKeyHeads(LlmGraph& m, TensorId x, std::int64_t headK, std::int64_t keyHeads, std::int64_t valueHeads)
{
    if (m.shape.architecture != "qwen3next" || keyHeads == valueHeads || keyHeads <= 0)
        return x;
    ComputeGraph& g = m.g;
    const TensorId repeated = g.repeat(g.reshape(x, {headK, 1, keyHeads, m.tokens}), {headK, valueHeads / keyHeads, keyHeads, m.tokens});
    return g.reshape(repeated, {headK, valueHeads, m.tokens, 1});
}

TensorId linearAttention(LlmGraph& m, const RecurrentInputs& in, std::size_t il, TensorId x)
{
    ComputeGraph& g = m.g;
    const GraphHyperparameters& hp = m.hp;
    const std::int64_t tokens = m.tokens;
    const std::int64_t headK = hp.ssmState;
    const std::int64_t keyHeads = hp.ssmGroups;
    const std::int64_t valueHeads = hp.ssmValueHeads > 0 ? hp.ssmValueHeads : 1;
    const std::int64_t headV = hp.ssmInner / valueHeads;
    const std::int64_t channels = hp.ssmInner + 2 * keyHeads * headK;
    const std::int64_t kernel = hp.ssmConvKernel;

    TensorId mixed = m.project(il, "attn_qkv", x);
    mixed = g.reshape(mixed, {g.tensor(mixed).ne[0], tokens, 1});
    const TensorId z = m.project(il, "attn_gate", x);
    const auto [beta, gate] = betaAndGate(m, il, x, keyHeads, valueHeads);

    const auto convSize = static_cast<std::int64_t>(m.shape.convState);
    const auto stateSize = static_cast<std::int64_t>(m.shape.ssmState);
    const TensorId convStates = g.external(GgmlTypeId::F32, {convSize, 1});
    const TensorId ssmStates = g.external(GgmlTypeId::F32, {stateSize, 1});

    // build_conv_state: the last kernel-1 inputs of the previous ubatch before this one's.
    TensorId conv = g.reshape(readState(g, in, convStates, convSize), {kernel - 1, channels, 1});
    const TensorId convInput = g.concat(conv, g.transpose(mixed), 0);
    const GraphTensor ci = g.tensor(convInput);
    const TensorId last = g.view(convInput, {kernel - 1, channels, 1}, {ci.nb[1], ci.nb[2]});
    g.expand(g.cpy(last, g.view(convStates, {convSize, 1}, {g.tensor(convStates).nb[1]})));

    TensorId state = readState(g, in, ssmStates, stateSize);
    state = g.reshape(state, {headV, headV, valueHeads, 1});
    const TensorId convolved = g.sameAs(GraphOp::Unary, g.ssmConv(convInput, m.weight(il, "ssm_conv1d.weight")));
    const GraphTensor c = g.tensor(convolved);
    const std::uint64_t rowK = c.nb[0] * static_cast<std::uint64_t>(headK);
    TensorId q = g.sameAs(GraphOp::L2Norm, g.view(convolved, {headK, keyHeads, tokens, 1}, {rowK, c.nb[1], c.nb[2]}));
    TensorId k = g.sameAs(GraphOp::L2Norm, g.view(convolved, {headK, keyHeads, tokens, 1}, {rowK, c.nb[1], c.nb[2]}));
    q = repeatKeyHeads(m, q, headK, keyHeads, valueHeads);
    k = repeatKeyHeads(m, k, headK, keyHeads, valueHeads);
    const TensorId v = g.view(convolved, {headV, valueHeads, tokens, 1}, {c.nb[0] * static_cast<std::uint64_t>(headV), c.nb[1], c.nb[2]});

    // The fused gated delta net: the outputs, then the new state, in one result.
    const TensorId result = g.gatedDeltaNet(q, k, v, gate, beta, state);
    const GraphTensor r = g.tensor(result);
    const TensorId output = g.view(result, {headV, valueHeads, tokens, 1}, {r.nb[0] * static_cast<std::uint64_t>(headV), r.nb[1], r.nb[1] * tokens});
    const TensorId newState = g.view(result, {headV, headV, valueHeads, 1},
                                     {r.nb[0] * static_cast<std::uint64_t>(headV), r.nb[0] * static_cast<std::uint64_t>(headV * headV),
                                      r.nb[0] * static_cast<std::uint64_t>(headV * headV * valueHeads)});
    g.expand(g.cpy(newState, g.view(ssmStates, {stateSize, 1}, {g.tensor(ssmStates).nb[1]})));

    TensorId normed = m.norm(output, m.weight(il, "ssm_norm.weight"));
    const TensorId gated = g.sameAs(GraphOp::Unary, g.reshape(z, {headV, valueHeads, tokens, 1}));
    normed = g.sameAs(GraphOp::Mul, normed, gated);
    TensorId cur = m.project(il, "ssm_out", g.reshape(normed, {headV * valueHeads, tokens, 1}));
    return g.reshape(cur, {m.embedding, tokens});
}

TensorId gatedAttention(LlmGraph& m, const AttentionInputs& attention, TensorId positions, std::size_t il, TensorId x)
{
    ComputeGraph& g = m.g;
    const EstimateLayer& layer = m.shape.layers[il];
    const auto head = static_cast<std::int64_t>(layer.keyLength);
    const auto heads = static_cast<std::int64_t>(layer.heads);
    const auto kvHeads = static_cast<std::int64_t>(layer.kvHeads);
    const TensorId full = m.project(il, "attn_q", x);  // per head: query, then gate
    const std::uint64_t stride = g.tensor(full).nb[0] * static_cast<std::uint64_t>(head * 2);
    TensorId q = g.view(full, {head, heads, m.tokens}, {stride, stride * static_cast<std::uint64_t>(heads)});
    q = m.norm(q, m.weight(il, "attn_q_norm.weight"));
    TensorId k = m.project(il, "attn_k", x);
    const TensorId vProjected = m.project(il, "attn_v", x);
    k = m.norm(g.reshape(k, {head, kvHeads, m.tokens}), m.weight(il, "attn_k_norm.weight"));
    TensorId gate = g.view(full, {head, heads, m.tokens}, {stride, stride * static_cast<std::uint64_t>(heads)}, stride / 2);
    gate = g.cont(gate, {head * heads, m.tokens});
    const TensorId v = g.reshape(vProjected, {head, kvHeads, m.tokens});
    q = g.sameAs(GraphOp::Rope, q, positions);
    k = g.sameAs(GraphOp::Rope, k, positions);
    TensorId cur = m.attention(attention, il, kNoTensor, kNoTensor, q, k, v);
    cur = g.sameAs(GraphOp::Mul, cur, g.sameAs(GraphOp::Unary, gate));
    return m.project(il, "attn_output", cur);
}

TensorId qwen35Ffn(LlmGraph& m, std::size_t il, TensorId x)
{
    ComputeGraph& g = m.g;
    if (m.weight(il, "ffn_gate_inp.weight") == kNoTensor)
        return m.ffn(il, x, "", FfnActivation::Silu);
    const TensorId routed = m.moeFfn(il, x);
    if (m.weight(il, "ffn_up_shexp.weight") == kNoTensor)
        return routed;
    TensorId shared = m.ffn(il, x, "_shexp", FfnActivation::Silu);
    const TensorId sharedGate = g.sameAs(GraphOp::Unary, g.mulMat(m.weight(il, "ffn_gate_inp_shexp.weight"), x));
    shared = g.sameAs(GraphOp::Mul, shared, sharedGate);
    return g.sameAs(GraphOp::Add, routed, shared);
}
}  // namespace

void buildQwen35Graph(LlmGraph& m)
{
    ComputeGraph& g = m.g;
    TensorId inpL = m.inputEmbedding();
    const RecurrentInputs recurrent = recurrentInputs(g);
    const AttentionInputs attention = m.attentionInputs(CacheKind::KeysAndValues);
    const TensorId positions = m.inputPositions();
    const TensorId outputIds = m.inputOutputIds();

    const auto layers = static_cast<std::size_t>(m.hp.graphLayers);
    for (std::size_t il = 0; il < layers && !g.overflowed(); ++il) {
        const TensorId residual = inpL;
        TensorId cur = m.norm(inpL, m.weight(il, "attn_norm.weight"));
        g.expand(cur);
        cur = m.shape.layers[il].recurrent ? linearAttention(m, recurrent, il, cur) : gatedAttention(m, attention, positions, il, cur);
        cur = g.sameAs(GraphOp::Add, cur, residual);
        const TensorId ffnResidual = cur;
        cur = qwen35Ffn(m, il, m.norm(cur, m.weight(il, "post_attention_norm.weight")));
        inpL = g.sameAs(GraphOp::Add, cur, ffnResidual);
    }
    TensorId cur = m.outputNorm(inpL);
    g.markOutput(cur);  // res->t_h_nextn, before the output rows
    m.logits(m.outputRows(cur, outputIds));
}

}  // namespace gguf
