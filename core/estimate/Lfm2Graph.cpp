// llama.cpp's lfm2.cpp graph: layers without KV heads run the gated short convolution (in_proj
// into b, c, x; b * x transposed after the conv state read; the last l_cache - 1 columns written
// back; ssm_conv; c * conv; out_proj), the others QK-normed attention; every layer then adds a
// dense SwiGLU FFN. The residual adds take the residual first, as lfm2.cpp writes them.

#include "core/estimate/ArchitectureGraphs.h"

namespace gguf {

namespace {

TensorId shortConvolution(LlmGraph& m, const RecurrentInputs& in, std::size_t il, TensorId x)
{
    ComputeGraph& g = m.g;
    const std::int64_t tokens = m.tokens;
    const std::int64_t width = m.embedding;
    const auto convSize = static_cast<std::int64_t>(m.shape.convState);
    const std::int64_t stateColumns = width > 0 ? convSize / width : 0;
    const TensorId bcx = m.project(il, "shortconv.in_proj", g.reshape(x, {width, tokens, 1}));
    const GraphTensor p = g.tensor(bcx);
    const std::int64_t chunk = p.ne[0] / 3;
    const std::uint64_t chunkBytes = p.nb[0] * static_cast<std::uint64_t>(chunk);
    const TensorId b = g.view(bcx, {chunk, p.ne[1], p.ne[2]}, {p.nb[1], p.nb[2]});
    const TensorId c = g.view(bcx, {chunk, p.ne[1], p.ne[2]}, {p.nb[1], p.nb[2]}, chunkBytes);
    const TensorId xPart = g.view(bcx, {chunk, p.ne[1], p.ne[2]}, {p.nb[1], p.nb[2]}, 2 * chunkBytes);
    TensorId bx = g.transpose(g.sameAs(GraphOp::Mul, b, xPart));

    const TensorId convStates = g.external(GgmlTypeId::F32, {convSize, 1});
    const TensorId conv = g.reshape(readState(g, in, convStates, convSize), {stateColumns, width, 1});
    bx = g.concat(conv, bx, 0);
    const GraphTensor bt = g.tensor(bx);
    const TensorId last = g.view(bx, {stateColumns, bt.ne[1], bt.ne[2]}, {bt.nb[1], bt.nb[2]},
                                 bt.nb[0] * static_cast<std::uint64_t>(bt.ne[0] - stateColumns));
    g.expand(g.cpy(last, g.view(convStates, {convSize, 1}, {g.tensor(convStates).nb[1]})));
    const TensorId convolved = g.ssmConv(bx, m.weight(il, "shortconv.conv.weight"));
    TensorId y = g.sameAs(GraphOp::Mul, c, convolved);
    y = m.project(il, "shortconv.out_proj", y);
    return g.reshape(y, {width, tokens});
}

TensorId attention(LlmGraph& m, const AttentionInputs& inputs, TensorId positions, std::size_t il, TensorId x)
{
    ComputeGraph& g = m.g;
    const EstimateLayer& layer = m.shape.layers[il];
    QkvProjection p = m.qkv(il, x, static_cast<std::int64_t>(layer.keyLength), static_cast<std::int64_t>(layer.heads),
                            static_cast<std::int64_t>(layer.kvHeads));
    p.q = m.norm(p.q, m.weight(il, "attn_q_norm.weight"));
    p.k = m.norm(p.k, m.weight(il, "attn_k_norm.weight"));
    p.q = g.sameAs(GraphOp::Rope, p.q, positions);
    p.k = g.sameAs(GraphOp::Rope, p.k, positions);
    return m.attention(inputs, il, m.weight(il, "attn_output.weight"), kNoTensor, p.q, p.k, p.v);
}

}  // namespace

void buildLfm2Graph(LlmGraph& m)
{
    ComputeGraph& g = m.g;
    TensorId cur = m.inputEmbedding();
    g.expand(cur);
    const RecurrentInputs recurrent = recurrentInputs(g);
    const AttentionInputs inputs = m.attentionInputs(CacheKind::KeysAndValues);
    const TensorId positions = m.inputPositions();
    const TensorId outputIds = m.inputOutputIds();

    const auto layers = static_cast<std::size_t>(m.hp.graphLayers);
    for (std::size_t il = 0; il < layers && !g.overflowed(); ++il) {
        TensorId residual = cur;
        cur = m.norm(cur, m.weight(il, "attn_norm.weight"));
        cur = m.shape.layers[il].recurrent ? shortConvolution(m, recurrent, il, cur) : attention(m, inputs, positions, il, cur);
        if (il + 1 == layers) {
            cur = m.outputRows(cur, outputIds);
            residual = m.outputRows(residual, outputIds);
        }
        cur = g.sameAs(GraphOp::Add, residual, cur);
        const TensorId ffn = m.ffn(il, m.norm(cur, m.weight(il, "ffn_norm.weight")), "", FfnActivation::Silu);
        cur = g.sameAs(GraphOp::Add, cur, ffn);
    }
    cur = m.norm(cur, m.weight("token_embd_norm.weight"));
    m.logits(cur);
}

}  // namespace gguf
