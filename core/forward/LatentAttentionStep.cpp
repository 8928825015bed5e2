#include "core/forward/LatentAttentionStep.h"

#include "core/forward/ForwardOps.h"
#include "core/forward/GgmlAttention.h"
#include "core/forward/MatmulInputObserver.h"

#include <cmath>

namespace gguf {

namespace {

// Per head h: y_h = W_h x_h with W_h the h-th [rows, columns] slice of a 3-D weight; x is
// [tokens, heads, columns] (row stride xStride, offset xOffset in each head's part), y
// [tokens, heads, rows], computed for the tokens from `from` on (the rows before zero).
void multiplyPerHead(PassContext& c, const std::vector<float>& x, std::int64_t xHeadStride, std::int64_t xOffset, const WeightMatrix& w,
                     std::int64_t heads, std::int64_t from, std::vector<float>& y)
{
    const std::int64_t rows = w.rows, columns = w.columns;
    const std::int64_t tokens = c.tokens - from;
    y.assign(static_cast<std::size_t>(c.tokens * heads * rows), 0.0f);
    std::vector<float> xh(static_cast<std::size_t>(tokens * columns)), yh(static_cast<std::size_t>(tokens * rows));
    for (std::int64_t h = 0; h < heads; ++h) {
        for (std::int64_t t = 0; t < tokens; ++t)
            std::copy_n(x.begin() + ((from + t) * heads + h) * xHeadStride + xOffset, columns, xh.begin() + t * columns);
        observeStackedProduct(c.options.matmulInputs, w.tensorName, h, heads, xh.data(), tokens, columns);
        WeightMatrix slice;
        slice.mapped = w.slice(h);
        slice.columns = columns;
        slice.rows = rows;
        slice.storedType = w.storedType;
        slice.activationRounding = w.activationRounding;
        slice.ggmlFloatLanes = w.ggmlFloatLanes;
        // One head's matrix of the 3-D weight: its blocks for the integer product.
        slice.integerProduct = w.integerProduct;
        slice.productKind = w.productKind;
        slice.source = w.source;
        slice.sourceRowBegin = w.sourceRowBegin + static_cast<std::uint64_t>(h * rows);
        slice.executor = w.executor;
        multiplyWeights(xh.data(), tokens, slice, c.accumulation, yh.data());
        for (std::int64_t t = 0; t < tokens; ++t)
            std::copy_n(yh.begin() + t * rows, rows, y.begin() + ((from + t) * heads + h) * rows);
    }
}

}  // namespace

Status runLatentAttention(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::int64_t from, std::vector<float>& out)
{
    const auto& h = c.h;
    const std::int64_t width = h.embeddingLength;
    const std::int64_t heads = h.headCount;
    const std::int64_t rope = h.ropeDimensions;
    const std::int64_t headK = h.mlaKeyLength;  // nope + rope
    const std::int64_t nope = headK - rope;
    const std::int64_t lora = h.kvLoraRank;
    const std::int64_t headV = h.mlaValueLength;
    const std::int64_t T = c.tokens;

    // q: attn_q, or attn_q_a -> RMSNorm(attn_q_a_norm) -> attn_q_b, from row `from` on (a zero
    // row stays zero through the norm).
    std::vector<float> q;
    if (h.qLoraRank > 0) {
        auto qa = c.layerWeight(layer, "attn_q_a", {width, h.qLoraRank, 1});
        auto qaNorm = c.layerWeight(layer, "attn_q_a_norm", {h.qLoraRank, 1, 1});
        auto qb = c.layerWeight(layer, "attn_q_b", {h.qLoraRank, heads * headK, 1});
        for (const Result<WeightMatrix>* w : {&qa, &qaNorm, &qb})
            if (!*w)
                return w->error();
        c.noteHeld(qa->heldBytes() + qb->heldBytes());
        std::vector<float> compressed;
        c.projectRowsFrom(normed, from, *qa, WeightMatrix{}, compressed);
        compressed = c.rmsNormed(compressed, h.qLoraRank, *qaNorm);
        c.projectRowsFrom(compressed, from, *qb, WeightMatrix{}, q);
        c.recycle({&qa, &qaNorm, &qb});
    } else {
        auto wq = c.layerWeight(layer, "attn_q", {width, heads * headK, 1});
        if (!wq)
            return wq.error();
        c.noteHeld(wq->heldBytes());
        c.projectRowsFrom(normed, from, *wq, WeightMatrix{}, q);
        c.recycle({&wq});
    }

    // The compressed kv and the shared rope key: attn_kv_a_mqa -> [latent (lora), k_pe (rope)].
    auto kva = c.layerWeight(layer, "attn_kv_a_mqa", {width, lora + rope, 1});
    auto kvaNorm = c.layerWeight(layer, "attn_kv_a_norm", {lora, 1, 1});
    auto kb = c.layerWeight(layer, "attn_k_b", {nope, lora, heads});
    auto vb = c.layerWeight(layer, "attn_v_b", {lora, headV, heads});
    for (const Result<WeightMatrix>* w : {&kva, &kvaNorm, &kb, &vb})
        if (!*w)
            return w->error();
    c.noteHeld(kva->heldBytes() + kb->heldBytes() + vb->heldBytes());
    std::vector<float> kvPe;
    c.project(normed, T, *kva, WeightMatrix{}, kvPe);
    std::vector<float> latent(static_cast<std::size_t>(T * lora)), kPe(static_cast<std::size_t>(T * rope));
    for (std::int64_t t = 0; t < T; ++t) {
        std::copy_n(kvPe.begin() + t * (lora + rope), lora, latent.begin() + t * lora);
        std::copy_n(kvPe.begin() + t * (lora + rope) + lora, rope, kPe.begin() + t * rope);
    }
    const RopeParameters ropeParameters{h.block->rope, rope, h.ropeFreqBase, h.ropeFreqScale, {}, {},
                                        h.ropeYarn, h.ropeAttnFactor, h.yarnBetaFast, h.yarnBetaSlow, h.yarnOriginalContext,
                              c.options.emulatesLlamaCpp()};
    applyRope(kPe.data(), T, 1, rope, ropeParameters);
    latent = c.rmsNormed(latent, lora, *kvaNorm);

    // q_pe roped in place; q_nope absorbed: [T, heads, lora].
    std::vector<float> qPe(static_cast<std::size_t>(T * heads * rope));
    for (std::int64_t r = 0; r < T * heads; ++r)
        std::copy_n(q.begin() + r * headK + nope, rope, qPe.begin() + r * rope);
    applyRope(qPe.data(), T, heads, rope, ropeParameters);
    std::vector<float> absorbed;
    multiplyPerHead(c, q, headK, 0, *kb, heads, from, absorbed);

    // One latent head: keys [latent, k_pe], values the latent; queries [absorbed, q_pe].
    const std::int64_t keySize = lora + rope;
    std::vector<float> queries(static_cast<std::size_t>(T * heads * keySize)), keys(static_cast<std::size_t>(T * keySize));
    for (std::int64_t r = 0; r < T * heads; ++r) {
        std::copy_n(absorbed.begin() + r * lora, lora, queries.begin() + r * keySize);
        std::copy_n(qPe.begin() + r * rope, rope, queries.begin() + r * keySize + lora);
    }
    for (std::int64_t t = 0; t < T; ++t) {
        std::copy_n(latent.begin() + t * lora, lora, keys.begin() + t * keySize);
        std::copy_n(kPe.begin() + t * rope, rope, keys.begin() + t * keySize + lora);
    }
    // kq_scale = mscale^2 / sqrt(key_length_mla), mscale from the rope's attention factor (YaRN's,
    // times rope.scaling.attn_factor) and the log multiplier.
    const float original = h.ropeAttnFactor * (1.0f + 0.1f * std::log(1.0f / h.ropeFreqScale));
    const float mscale = original * (1.0f + 0.1f * h.yarnLogMultiplier * std::log(1.0f / h.ropeFreqScale));
    const float scale = 1.0f * mscale * mscale / std::sqrt(static_cast<float>(headK));
    AttentionSpec spec{heads, 1, keySize, lora, scale, 0.0f, 0, {}, c.options.emulatesLlamaCpp(), c.options.executor};
    // The cache keeps K alone; V is a view of its first `lora` values, so it takes K's type
    // (and without flash attention a quantized K is a quantized V). No rotation here.
    spec.cache = c.options.effectiveKvCache();
    spec.ubatch = std::max<std::int64_t>(1, c.options.ubatchQueries);
    spec.cache.valueType = spec.cache.keyType;
    if (const std::string problem = kvCacheProblem(spec.cache, keySize, lora); !problem.empty())
        return forwardError(c, "layer " + std::to_string(layer) + ": " + problem);
    // Every row attends, as in AttentionStep.cpp: the products keep their whole shape.
    std::vector<float> mixed(static_cast<std::size_t>(T * heads * lora));
    causalAttention(queries.data(), keys.data(), latent.data(), T, spec, mixed.data());

    std::vector<float> expanded;
    multiplyPerHead(c, mixed, lora, 0, *vb, heads, from, expanded);
    c.recycle({&kva, &kvaNorm, &kb, &vb});
    auto wo = c.layerWeight(layer, "attn_output", {heads * headV, width, 1});
    if (!wo)
        return wo.error();
    c.noteHeld(wo->heldBytes());
    c.projectRowsFrom(expanded, from, *wo, WeightMatrix{}, out);
    c.recycle({&wo});
    return Ok{};
}

}  // namespace gguf
