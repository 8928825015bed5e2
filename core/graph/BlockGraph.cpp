// One block of an architecture the forward pass runs, as the nodes of its steps. What the layer
// runs follows the pass: the tensors the layer has pick the mixer (short convolution, recurrent
// or attention) and the channel mixer (routed where it has a router), the description names the
// norms and the activation.

#include "core/graph/GraphBuilder.h"

namespace gguf::graph_detail {

namespace {

using Kind = GraphNodeKind;

const char* activationName(FeedForwardActivation activation)
{
    switch (activation) {
    case FeedForwardActivation::Silu:
        return "SwiGLU";
    case FeedForwardActivation::Gelu:
        return "GeGLU";
    case FeedForwardActivation::SwigluOai:
        return "SwiGLU-OAI";
    }
    return "activation";
}

struct LayerContext {
    GraphBuilder& builder;
    const BlockDescription& description;
    int layer;
    TensorPool& pool;

    int step(Kind kind, std::string label, std::initializer_list<std::string_view> stems, std::initializer_list<int> inputs)
    {
        return builder.step(kind, std::move(label), layer, pool, stems, inputs);
    }
    int op(Kind kind, std::string label, std::initializer_list<std::string_view> stems, std::initializer_list<int> inputs)
    {
        return builder.add(kind, std::move(label), layer, pool.take(stems), inputs);
    }
    // A norm when the layer has its weight, else the value passes through.
    int norm(std::string_view stem, int input) { return orElse(step(Kind::Norm, std::string(stem), {stem}, {input}), input); }
};

// q, k and v (fused, latent or one each), their norms, rope, attention, output projection.
int addAttention(LayerContext& c, int input)
{
    int q = -1, k = -1, v = -1;
    if (c.pool.has("attn_qkv")) {
        q = k = v = c.step(Kind::Projection, "attn_qkv", {"attn_qkv"}, {input});
    } else if (c.pool.has("attn_kv_a_mqa")) {
        // Latent attention: q directly or through its low-rank pair, k and v from one compressed kv.
        const int qa = c.step(Kind::Projection, "attn_q_a", {"attn_q_a"}, {input});
        q = qa >= 0 ? c.step(Kind::Projection, "attn_q_b", {"attn_q_b"}, {c.norm("attn_q_a_norm", qa)})
                    : c.step(Kind::Projection, "attn_q", {"attn_q"}, {input});
        const int kv = c.norm("attn_kv_a_norm", c.step(Kind::Projection, "attn_kv_a_mqa", {"attn_kv_a_mqa"}, {input}));
        k = orElse(c.step(Kind::Projection, "attn_k_b", {"attn_k_b"}, {kv}), kv);
        v = orElse(c.step(Kind::Projection, "attn_v_b", {"attn_v_b"}, {kv}), kv);
    } else {
        q = c.step(Kind::Projection, "attn_q", {"attn_q"}, {input});
        k = c.step(Kind::Projection, "attn_k", {"attn_k"}, {input});
        v = orElse(c.step(Kind::Projection, "attn_v", {"attn_v"}, {input}), k);  // K = V where a layer has no v
    }
    const int qNormed = c.norm("attn_q_norm", q);
    const int kNormed = c.norm("attn_k_norm", k);
    const int rope = c.builder.add(Kind::Rope, "RoPE", c.layer, {}, {qNormed, kNormed});
    const int attention = c.op(Kind::Attention, "attention", {"attn_sinks"}, {rope, v});
    const int gate = c.step(Kind::Projection, "attn_gate", {"attn_gate"}, {input});
    return orElse(c.step(Kind::Projection, "attn_output", {"attn_output"}, {attention, gate}), attention);
}

// Gated DeltaNet (qwen35, qwen3next): projections, causal conv, the delta rule, gated norm, out.
int addRecurrent(LayerContext& c, int input)
{
    const int qkv = c.step(Kind::Projection, "attn_qkv", {"attn_qkv", "ssm_in"}, {input});
    const int gate = c.step(Kind::Projection, "attn_gate", {"attn_gate"}, {input});
    const int decay = c.step(Kind::Projection, "ssm_alpha / beta", {"ssm_alpha", "ssm_beta", "ssm_ba"}, {input});
    const int conv = c.op(Kind::Recurrent, "conv1d", {"ssm_conv1d"}, {orElse(qkv, input)});
    const int rule = c.op(Kind::Recurrent, "delta rule", {"ssm_a", "ssm_dt", "ssm_d"}, {conv, decay});
    const int normed = orElse(c.step(Kind::Norm, "ssm_norm", {"ssm_norm"}, {rule, gate}), rule);
    return orElse(c.step(Kind::Projection, "ssm_out", {"ssm_out"}, {normed}), normed);
}

// LFM2's gated short convolution.
int addShortConv(LayerContext& c, int input)
{
    const int in = orElse(c.step(Kind::Projection, "in_proj", {"shortconv.in_proj"}, {input}), input);
    const int conv = c.op(Kind::ShortConv, "short conv", {"shortconv.conv"}, {in});
    return orElse(c.step(Kind::Projection, "out_proj", {"shortconv.out_proj"}, {conv}), conv);
}

int addDenseFeedForward(LayerContext& c, int input)
{
    const int gate = c.step(Kind::Projection, "ffn_gate", {"ffn_gate"}, {input});
    const int up = c.step(Kind::Projection, "ffn_up", {"ffn_up"}, {input});
    if (gate < 0 && up < 0)
        return -1;
    const int activation = c.builder.add(Kind::Activation, activationName(c.description.activation), c.layer, {}, {gate, up});
    return orElse(c.step(Kind::Projection, "ffn_down", {"ffn_down"}, {activation}), activation);
}

// Router and routed experts, the shared expert beside them, and (gemma4) the dense FFN too.
int addExperts(LayerContext& c, int normed)
{
    const int router = c.op(Kind::Router, "router", {"ffn_gate_inp", "exp_probs_b"}, {normed});
    const int expertInput = c.norm("pre_ffw_norm_2", normed);
    int experts = c.op(Kind::Experts, "experts", {"ffn_gate_exps", "ffn_up_exps", "ffn_gate_up_exps", "ffn_down_exps"},
                       {expertInput, router});
    experts = c.norm("post_ffw_norm_2", experts);
    std::vector<int> branches{experts};
    if (const int shared = c.step(Kind::SharedExpert, "shared expert",
                                  {"ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp", "ffn_gate_inp_shexp"}, {normed});
        shared >= 0)
        branches.push_back(shared);
    if (const int dense = addDenseFeedForward(c, normed); dense >= 0)
        branches.push_back(c.norm("post_ffw_norm_1", dense));
    if (branches.size() == 1)
        return experts;
    return c.builder.add(Kind::Add, "sum", c.layer, {}, branches);
}

}  // namespace

int addDescribedLayer(GraphBuilder& builder, const BlockDescription& description, int layer, TensorPool& pool, int input)
{
    LayerContext c{builder, description, layer, pool};
    // The mixer, as the pass picks it.
    const int attnNormed = c.norm("attn_norm", input);
    int mixed = 0;
    if (pool.has("shortconv.in_proj"))
        mixed = addShortConv(c, attnNormed);
    else if (pool.hasAny({"ssm_a", "ssm_conv1d", "ssm_out"}))
        mixed = addRecurrent(c, attnNormed);
    else
        mixed = addAttention(c, attnNormed);
    // post_attention_norm is the FFN's norm where the description says so, else the mixer's post-norm.
    if (description.feedForwardNorm != "post_attention_norm")
        mixed = c.norm("post_attention_norm", mixed);
    const int afterMixer = builder.add(GraphNodeKind::Add, "+", layer, {}, {input, mixed});

    const int ffnNormed = c.norm(description.feedForwardNorm, afterMixer);
    int channel = pool.has("ffn_gate_inp") ? addExperts(c, ffnNormed) : addDenseFeedForward(c, ffnNormed);
    channel = c.norm("post_ffw_norm", orElse(channel, ffnNormed));
    int output = builder.add(GraphNodeKind::Add, "+", layer, {}, {afterMixer, channel});

    // Gemma 4's per-layer input and output scale, after the residual add.
    output = orElse(c.step(GraphNodeKind::Other, "per-layer input", {"inp_gate", "proj", "post_norm"}, {output}), output);
    output = orElse(c.step(GraphNodeKind::Other, "layer_output_scale", {"layer_output_scale"}, {output}), output);
    // What the pass loads and does not run for the logits (NextN blocks, indexers): beside the block.
    if (!pool.entries().empty())
        builder.add(GraphNodeKind::Other, "not run", layer, pool.takeAll(), {output});
    return output;
}

}  // namespace gguf::graph_detail
