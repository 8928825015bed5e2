// LlmGraph's feed-forward blocks: build_ffn (a parallel gate or none, GELU or SiLU, biases and
// scales) and build_moe_ffn (routing with softmax, sigmoid or softmax over the chosen, expert
// groups, selection bias, weight normalisation and scale, the experts' products, and the sum of
// the chosen experts' outputs as views added one by one).

#include "core/estimate/LlmGraph.h"

namespace gguf {

namespace {
std::string roleOf(std::string_view base, std::string_view suffix, const char* kind)
{
    return std::string(base) + std::string(suffix) + "." + kind;
}

// build_ffn / build_moe_ffn's clamped SwiGLU (step35): up clamped, silu(gate) clamped above,
// their product (ggml_clamp is a view of its input).
TensorId clampedSwiglu(ComputeGraph& g, TensorId gate, TensorId up)
{
    up = g.sameAs(GraphOp::Clamp, up);
    TensorId act = g.sameAs(GraphOp::Unary, gate);
    act = g.sameAs(GraphOp::Clamp, act);
    return g.sameAs(GraphOp::Mul, act, up);
}
}  // namespace

TensorId LlmGraph::ffn(std::size_t il, TensorId x, std::string_view suffix, FfnActivation activation)
{
    const auto part = [&](std::string_view base, TensorId input) {
        const TensorId w = weight(il, roleOf(base, suffix, "weight"));
        if (w == kNoTensor)
            return kNoTensor;
        TensorId cur = g.mulMat(w, input);
        if (const TensorId bias = weight(il, roleOf(base, suffix, "bias")); bias != kNoTensor)
            cur = g.sameAs(GraphOp::Add, cur, bias);
        if (const TensorId scale = weight(il, roleOf(base, suffix, "scale")); scale != kNoTensor)
            cur = g.sameAs(GraphOp::Mul, cur, scale);
        return cur;
    };
    const TensorId up = part("ffn_up", x);
    const TensorId gate = part("ffn_gate", x);
    TensorId cur = gate != kNoTensor ? gate : up;
    if (activation == FfnActivation::SwigluFused)
        cur = g.glu(cur, kNoTensor);
    else if (gate != kNoTensor && activation == FfnActivation::Silu && hp.swigluClamped(il, false))
        cur = clampedSwiglu(g, gate, up);
    else
        cur = gate != kNoTensor ? g.glu(cur, up) : g.sameAs(GraphOp::Unary, cur);
    TensorId down = weight(il, roleOf("ffn_down", suffix, "weight"));
    if (down == kNoTensor)
        return cur;
    cur = g.mulMat(down, cur);
    if (const TensorId bias = weight(il, roleOf("ffn_down", suffix, "bias")); bias != kNoTensor)
        cur = g.sameAs(GraphOp::Add, cur, bias);
    if (const TensorId scale = weight(il, roleOf("ffn_down", suffix, "scale")); scale != kNoTensor)
        cur = g.sameAs(GraphOp::Mul, cur, scale);
    return cur;
}

TensorId LlmGraph::moeFfn(std::size_t il, TensorId x, TensorId logits)
{
    const std::int64_t n = hp.experts;
    const std::int64_t used = hp.expertsUsed;
    if (logits == kNoTensor)
        logits = g.mulMat(weight(il, "ffn_gate_inp.weight"), x);
    if (const TensorId bias = weight(il, "ffn_gate_inp.bias"); bias != kNoTensor)
        logits = g.sameAs(GraphOp::Add, logits, bias);
    TensorId probs = logits;
    if (hp.gating == ExpertGating::Softmax)
        probs = g.softMax(logits);
    else if (hp.gating == ExpertGating::Sigmoid)
        probs = g.sameAs(GraphOp::Unary, logits);
    TensorId selection = probs;
    TensorId choiceBias = weight(il, "exp_probs_b.bias");
    if (choiceBias == kNoTensor)
        choiceBias = weight(il, "exp_probs_b");  // hy_v3's name
    if (const TensorId bias = choiceBias; bias != kNoTensor)
        selection = g.sameAs(GraphOp::Add, probs, bias);

    if (hp.expertGroups > 1) {
        // Keep the experts of the best groups (each group scored by its two best), mask the rest.
        const std::int64_t groups = hp.expertGroups;
        const std::int64_t perGroup = n / groups;
        const TensorId grouped = g.reshape(selection, {perGroup, groups, tokens});
        TensorId scores = g.argsortTopK(grouped, 2);
        scores = g.getRows(g.reshape(grouped, {1, perGroup, groups, tokens}), scores);
        scores = g.sumRows(g.reshape(scores, {2, groups, tokens}));
        scores = g.reshape(scores, {groups, tokens});
        const TensorId best = g.argsortTopK(scores, hp.expertGroupsUsed);
        selection = g.getRows(grouped, best);
        selection = g.setRows(g.sameAs(GraphOp::Fill, grouped), selection, best);
        selection = g.reshape(selection, {n, tokens});
    }
    if (hp.weightsBeforeExperts)
        selection = logits;  // llama4 chooses on the logits (the sigmoid only weighs)
    const TensorId chosen = g.argsortTopK(selection, used);
    TensorId weights = g.getRows(g.reshape(probs, {1, n, tokens}), chosen);
    if (hp.gating == ExpertGating::SoftmaxWeight) {
        weights = g.softMax(g.reshape(weights, {used, tokens}));
        weights = g.reshape(weights, {1, used, tokens});
    }
    if (hp.normalizeExpertWeights) {
        weights = g.reshape(weights, {used, tokens});
        TensorId sum = g.sumRows(weights);
        sum = g.sameAs(GraphOp::Clamp, sum);
        weights = g.sameAs(GraphOp::Div, weights, sum);
        weights = g.reshape(weights, {1, used, tokens});
    }
    if (hp.scaleExpertWeights)
        weights = g.sameAs(GraphOp::Scale, weights);
    g.expand(weights);

    TensorId input = g.reshape(x, {embedding, 1, tokens});
    if (hp.weightsBeforeExperts)
        input = g.sameAs(GraphOp::Mul, g.repeat(input, {embedding, used, tokens, 1}), weights);
    // build_lora_mm_id: an expert product, its per-expert scale, its per-expert bias.
    const auto experts = [&](const std::string& role, const std::string& scaleRole, TensorId in) {
        TensorId cur = g.mulMatId(weight(il, role + ".weight"), in, chosen);
        if (const TensorId scale = weight(il, scaleRole + ".scale"); scale != kNoTensor) {
            TensorId s = g.reshape(scale, {1, n, 1});
            s = g.repeat(s, {1, n, tokens, 1});
            s = g.getRows(s, chosen);
            cur = g.sameAs(GraphOp::Mul, cur, s);
        }
        if (const TensorId bias = weight(il, role + ".bias"); bias != kNoTensor)
            cur = g.sameAs(GraphOp::AddId, cur, bias, chosen);
        return cur;
    };
    TensorId gate = kNoTensor, up = kNoTensor;
    if (weight(il, "ffn_gate_up_exps.weight") != kNoTensor) {
        const TensorId both = experts("ffn_gate_up_exps", "ffn_up_exps", input);
        const GraphTensor b = g.tensor(both);
        gate = g.view(both, {b.ne[0] / 2, b.ne[1], b.ne[2]}, {b.nb[1], b.nb[2]});
        up = g.view(both, {b.ne[0] / 2, b.ne[1], b.ne[2]}, {b.nb[1], b.nb[2]}, b.nb[0] * static_cast<std::uint64_t>(b.ne[0] / 2));
    } else {
        up = experts("ffn_up_exps", "ffn_up_exps", input);
        gate = weight(il, "ffn_gate_exps.weight") != kNoTensor ? experts("ffn_gate_exps", "ffn_gate_exps", input) : kNoTensor;
    }
    // SiLU, GELU and SwiGLU-OAI alike: one result the shape of the gate (or of up without one).
    TensorId cur = gate == kNoTensor               ? g.sameAs(GraphOp::Unary, up)
                 : hp.swigluClamped(il, true) ? clampedSwiglu(g, gate, up)
                                              : g.glu(gate, up);
    TensorId out = experts("ffn_down_exps", "ffn_down_exps", cur);
    if (!hp.weightsBeforeExperts)
        out = g.sameAs(GraphOp::Mul, out, weights);
    g.expand(out);

    // The chosen experts' outputs, views of `out`, all added to the graph before their sum.
    const GraphTensor o = g.tensor(out);
    std::vector<TensorId> parts;
    for (std::int64_t i = 0; i < used && !g.overflowed(); ++i) {
        parts.push_back(g.view(out, {embedding, tokens}, {o.nb[2]}, o.nb[1] * static_cast<std::uint64_t>(i)));
        g.expand(parts.back());
    }
    TensorId sum = parts.empty() ? out : parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i) {
        sum = g.sameAs(GraphOp::Add, sum, parts[i]);
        g.expand(sum);
    }
    if (used == 1)
        sum = g.cont(sum);
    return sum;
}

}  // namespace gguf
