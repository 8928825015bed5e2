#include "core/estimate/LlmGraph.h"

namespace gguf {

LlmGraph::LlmGraph(ComputeGraph& graph, const Model& model, const EstimateShape& modelShape, const GraphHyperparameters& hyperparameters,
                   const GraphSettings& context)
    : g(graph), shape(modelShape), hp(hyperparameters), settings(context), tokens(context.tokens),
      embedding(static_cast<std::int64_t>(modelShape.embedding)), m_model(model)
{
}

TensorId LlmGraph::weight(std::string_view name)
{
    if (const auto it = m_weights.find(name); it != m_weights.end())
        return it->second;
    const TensorInfo* info = m_model.findTensor(name);
    if (info) {
        for (const std::int64_t n : info->ne)
            m_weightsInBounds = m_weightsInBounds && n >= 0 && n <= (std::int64_t{1} << 31);
    }
    const TensorId t = info ? g.external(info->traits ? info->traits : findType(info->typeId), info->ne) : kNoTensor;
    m_weights.emplace(std::string(name), t);
    return t;
}

TensorId LlmGraph::weight(std::size_t il, std::string_view role)
{
    return weight("blk." + std::to_string(il) + "." + std::string(role));
}

TensorId LlmGraph::inputEmbedding()
{
    // build_inp_embd: the token rows, and the embeddings input beside them; ggml_build_forward_select
    // puts both in the graph, so the unused input is placed too.
    const TensorId ids = g.input(GgmlTypeId::I32, {tokens});
    const TensorId vectors = g.input(GgmlTypeId::F32, {embedding, tokens});
    const TensorId rows = g.getRows(weight("token_embd.weight"), ids);
    g.expand(rows);
    g.expand(vectors);
    return rows;
}

TensorId LlmGraph::inputPositions()
{
    return g.input(GgmlTypeId::I32, {tokens * hp.positionsPerToken});
}

TensorId LlmGraph::inputOutputIds()
{
    return g.input(GgmlTypeId::I32, {tokens});
}

TensorId LlmGraph::norm(TensorId x, TensorId scale, TensorId bias)
{
    TensorId cur = g.sameAs(GraphOp::RmsNorm, x);
    if (scale != kNoTensor)
        cur = g.sameAs(GraphOp::Mul, cur, scale);
    if (bias != kNoTensor)
        cur = g.sameAs(GraphOp::Add, cur, bias);
    return cur;
}

TensorId LlmGraph::project(std::size_t il, std::string_view role, TensorId x)
{
    const std::string name(role);
    TensorId cur = g.mulMat(weight(il, name + ".weight"), x);
    if (const TensorId scale = weight(il, name + ".scale"); scale != kNoTensor)
        cur = g.sameAs(GraphOp::Mul, cur, scale);
    return cur;
}

QkvProjection LlmGraph::qkv(std::size_t il, TensorId x, std::int64_t headSize, std::int64_t heads, std::int64_t kvHeads, std::int64_t valueSize)
{
    QkvProjection out;
    if (weight(il, "attn_qkv.weight") != kNoTensor) {
        TensorId fused = project(il, "attn_qkv", x);
        if (const TensorId bias = weight(il, "attn_qkv.bias"); bias != kNoTensor)
            fused = g.sameAs(GraphOp::Add, fused, bias);
        const GraphTensor& f = g.tensor(fused);
        const std::uint64_t head = f.nb[0] * static_cast<std::uint64_t>(headSize);
        out.q = g.view(fused, {headSize, heads, tokens}, {head, f.nb[1]});
        out.k = g.view(fused, {headSize, kvHeads, tokens}, {head, f.nb[1]});
        out.v = g.view(fused, {headSize, kvHeads, tokens}, {head, f.nb[1]});
        return out;
    }
    const auto projectBiased = [&](const char* role) {
        TensorId cur = project(il, role, x);
        if (const TensorId bias = weight(il, std::string(role) + ".bias"); bias != kNoTensor)
            cur = g.sameAs(GraphOp::Add, cur, bias);
        return cur;
    };
    out.q = projectBiased("attn_q");
    out.k = projectBiased("attn_k");
    out.v = projectBiased("attn_v");
    out.q = g.reshape(out.q, {headSize, heads, tokens});
    out.k = g.reshape(out.k, {headSize, kvHeads, tokens});
    out.v = g.reshape(out.v, {valueSize > 0 ? valueSize : headSize, kvHeads, tokens});
    return out;
}

TensorId LlmGraph::outputNorm(TensorId x)
{
    return norm(x, weight("output_norm.weight"), weight("output_norm.bias"));
}

TensorId LlmGraph::logits(TensorId embeddings)
{
    g.markOutput(embeddings);
    TensorId head = weight("output.weight");
    if (head == kNoTensor)
        head = weight("token_embd.weight");  // tied
    TensorId cur = g.mulMat(head, embeddings);
    if (const TensorId bias = weight("output.bias"); bias != kNoTensor)
        cur = g.sameAs(GraphOp::Add, cur, bias);
    if (hp.finalSoftcap) {
        cur = g.sameAs(GraphOp::Scale, cur);
        cur = g.sameAs(GraphOp::Unary, cur);
        cur = g.sameAs(GraphOp::Scale, cur);
    }
    g.markOutput(cur);
    g.expand(cur);
    return cur;
}

}  // namespace gguf
