#include "core/forward/AttentionStep.h"

#include "core/forward/ForwardOps.h"
#include "core/forward/GgmlAttention.h"

#include <algorithm>
#include <cmath>

namespace gguf {

namespace {

// Columns [first, first + width) of every row of a [rows, stride] matrix (the q, k or v part
// of a fused qkv product).
std::vector<float> columns(const std::vector<float>& fused, std::int64_t rows, std::int64_t stride, std::int64_t first, std::int64_t width)
{
    std::vector<float> part(static_cast<std::size_t>(rows * width));
    for (std::int64_t t = 0; t < rows; ++t)
        std::copy_n(fused.begin() + t * stride + first, width, part.begin() + t * width);
    return part;
}

// q, k and v: three projections (with optional biases) or one fused attn_qkv. A layer that
// reads another layer's K/V projects only q (k and v stay empty); without attn_v, a block with
// keyAsValue takes v = k. q (and the gate) only from row `queriesFrom` on, the rows before
// zero, unless fused with k and v (whose rows every query reads).
Status projectQkv(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::int64_t queriesFrom, std::vector<float>& q,
                  std::vector<float>& k, std::vector<float>& v, std::vector<float>& gate)
{
    const auto& h = c.h;
    const LayerShape& shape = h.layerShape(layer);
    const std::int64_t width = h.embeddingLength;
    const std::int64_t qWidth = shape.headCount * shape.keyLength;
    const std::int64_t kWidth = shape.headCountKv * shape.keyLength;
    const std::int64_t vWidth = shape.headCountKv * shape.valueLength;
    const bool ownKv = shape.kvSource == layer;
    if (h.block->fusedQkv) {
        auto wqkv = c.layerWeight(layer, "attn_qkv", {width, qWidth + kWidth + vWidth, 1});
        if (!wqkv)
            return wqkv.error();
        c.noteHeld(wqkv->heldBytes());
        std::vector<float> fused;
        c.project(normed, c.tokens, *wqkv, WeightMatrix{}, fused);
        const std::int64_t stride = qWidth + kWidth + vWidth;
        q = columns(fused, c.tokens, stride, 0, qWidth);
        k = columns(fused, c.tokens, stride, qWidth, kWidth);
        v = columns(fused, c.tokens, stride, qWidth + kWidth, vWidth);
        c.recycle({&wqkv});
        return Ok{};
    }
    const bool biases = h.block->allowsProjectionBiases;
    if (h.block->gatedAttention) {
        // attn_q rows: per head the query (headDimension), then its gate (headDimension).
        auto wq = c.layerWeight(layer, "attn_q", {width, 2 * qWidth, 1});
        if (!wq)
            return wq.error();
        c.noteHeld(wq->heldBytes());
        std::vector<float> fused;
        c.projectRowsFrom(normed, queriesFrom, *wq, WeightMatrix{}, fused);
        c.recycle({&wq});
        q.resize(static_cast<std::size_t>(c.tokens * qWidth));
        gate.resize(q.size());
        const std::int64_t d = h.headDimension;
        for (std::int64_t t = 0; t < c.tokens; ++t)
            for (std::int64_t head = 0; head < h.headCount; ++head) {
                const auto from = fused.begin() + (t * h.headCount + head) * 2 * d;
                std::copy_n(from, d, q.begin() + (t * h.headCount + head) * d);
                std::copy_n(from + d, d, gate.begin() + (t * h.headCount + head) * d);
            }
    }
    struct Part {
        const char* name;
        std::int64_t rows;
        std::vector<float>* out;
    };
    for (const Part& part : {Part{"attn_q", qWidth, &q}, Part{"attn_k", kWidth, &k}, Part{"attn_v", vWidth, &v}}) {
        if (part.out == &q && h.block->gatedAttention)
            continue;
        if (part.out != &q && !ownKv)
            continue;
        if (part.out == &v && h.block->keyAsValue && !c.loader.model().findTensor(layerTensorName(layer, "attn_v"))) {
            v = k;  // K = V (gemma4's full-attention layers): the projection before k's norm and rope
            continue;
        }
        auto w = c.layerWeight(layer, part.name, {width, part.rows, 1});
        if (!w)
            return w.error();
        auto b = biases ? c.layerBias(layer, part.name, part.rows) : Result<WeightMatrix>(WeightMatrix{});
        if (!b)
            return b.error();
        c.noteHeld(w->heldBytes() + b->heldBytes());
        c.projectRowsFrom(normed, part.out == &q ? queriesFrom : 0, *w, *b, *part.out);
        c.recycle({&w, &b});
    }
    return Ok{};
}

// The head size every layer kept in `layer`'s cache shares (llama_kv_cache's n_embd_head_k_all /
// _v_all), or 0 when they differ. A model with sliding-window layers keeps two caches, one for
// those layers and one for the others; a layer that reads another's K/V keeps none.
std::int64_t cachedHeadSize(const ModelHyperparameters& h, std::int64_t layer, bool keys)
{
    bool splitCache = false;
    for (std::int64_t il = 0; il < h.layerCount; ++il)
        splitCache = splitCache || h.layerShape(il).sliding;
    std::int64_t size = 0;
    for (std::int64_t il = 0; il < h.layerCount; ++il) {
        const LayerShape& shape = h.layerShape(il);
        if (h.isRecurrentLayer(il) || shape.kvSource != il || (splitCache && shape.sliding != h.layerShape(layer).sliding))
            continue;
        const std::int64_t own = keys ? shape.keyLength : shape.valueLength;
        if (size != 0 && size != own)
            return 0;
        size = own;
    }
    return size;
}

// Per-head RMSNorm of q or k (attn_q_norm / attn_k_norm [head size]) when the file has it.
Status normHeads(PassContext& c, std::int64_t layer, const char* name, std::int64_t headSize, std::vector<float>& x)
{
    auto norm = c.layerWeight(layer, name, {headSize, 1, 1}, false);
    if (!norm)
        return norm.error();
    if (norm->present())
        rmsNormRows(x.data(), static_cast<std::int64_t>(x.size()) / headSize, headSize, norm->view(), c.h.rmsEpsilon, x.data());
    c.recycle({&norm});
    return Ok{};
}

// llm_graph_input_attn_temp: each position's factor computed as llama.cpp does (the division in
// float, the logarithm in double, stored as float), then q * factor (ggml_mul).
void applyAttentionTemperature(const ModelHyperparameters& h, std::int64_t tokens, std::int64_t width, std::vector<float>& q)
{
    for (std::int64_t t = 0; t < tokens; ++t) {
        const float scaled = (static_cast<float>(t) + h.attentionTemperatureOffset) / static_cast<float>(h.attentionTemperatureFloor);
        const auto factor = static_cast<float>(std::log(static_cast<double>(std::floor(scaled)) + 1.0)
                                                   * static_cast<double>(h.attentionTemperatureScale)
                                               + 1.0);
        for (std::int64_t i = 0; i < width; ++i)
            q[static_cast<std::size_t>(t * width + i)] *= factor;
    }
}

// One RMS norm over the whole q or k projection of a token, weighted by attn_q_norm /
// attn_k_norm [width] (required).
Status normAcrossHeads(PassContext& c, std::int64_t layer, const char* name, std::int64_t width, std::vector<float>& x)
{
    auto norm = c.layerWeight(layer, name, {width, 1, 1});
    if (!norm)
        return norm.error();
    rmsNormRows(x.data(), static_cast<std::int64_t>(x.size()) / width, width, norm->view(), c.h.rmsEpsilon, x.data());
    c.recycle({&norm});
    return Ok{};
}

// step35's head-wise gate (attn_gate, when the layer has it): head h's output times
// sigmoid(attn_gate . x)[h] (ggml_mul broadcasting one value over the head).
Status gateHeads(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::int64_t from, std::vector<float>& mixed)
{
    const LayerShape& shape = c.h.layerShape(layer);
    auto w = c.layerWeight(layer, "attn_gate", {c.h.embeddingLength, shape.headCount, 1}, false);
    if (!w)
        return w.error();
    if (w->present()) {
        c.noteHeld(w->heldBytes());
        std::vector<float> gate;
        c.projectRowsFrom(normed, from, *w, WeightMatrix{}, gate);
        sigmoid(gate.data(), gate.size());
        for (std::size_t head = 0; head < gate.size(); ++head)
            for (std::int64_t i = 0; i < shape.valueLength; ++i)
                mixed[head * static_cast<std::size_t>(shape.valueLength) + static_cast<std::size_t>(i)] *= gate[head];
    }
    c.recycle({&w});
    return Ok{};
}

}  // namespace

Status runAttention(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::int64_t from, std::vector<float>& out)
{
    const auto& h = c.h;
    const BlockDescription& block = *h.block;
    const LayerShape& shape = h.layerShape(layer);
    const bool ownKv = shape.kvSource == layer;
    std::vector<float> q, k, v, gate;
    if (Status done = projectQkv(c, layer, normed, from, q, k, v, gate); !done)
        return done;
    if (block.attention.qkNormAcrossHeads) {
        if (Status done = normAcrossHeads(c, layer, "attn_q_norm", shape.headCount * shape.keyLength, q); !done)
            return done;
        if (Status done = normAcrossHeads(c, layer, "attn_k_norm", shape.headCountKv * shape.keyLength, k); !done)
            return done;
    }
    if (block.allowsQkNorm) {
        if (Status done = normHeads(c, layer, "attn_q_norm", shape.keyLength, q); !done)
            return done;
        if (ownKv)
            if (Status done = normHeads(c, layer, "attn_k_norm", shape.keyLength, k); !done)
                return done;
    }
    if (block.valueNorm && ownKv)
        rmsNormRows(v.data(), static_cast<std::int64_t>(v.size()) / shape.valueLength, shape.valueLength, {}, h.rmsEpsilon, v.data());
    const bool sliding = shape.sliding;
    const unsigned noRopeStep = block.attention.noRopeLayerStep;
    const bool roped = noRopeStep == 0 || (layer + 1) % noRopeStep != 0;
    const bool useFreqs = !(block.ropeFreqsOnGlobalOnly && sliding);
    // One factor per rotated pair; ggml_rope_ext reads the first n_rot / 2 of a longer tensor
    // (gemma4's is sized by the full layers' head).
    std::int64_t factorCount = shape.ropeDimensions / 2;
    if (const TensorInfo* stored = c.loader.model().findTensor("rope_freqs.weight"); stored && block.perLayerShapes && stored->nDims == 1
                                                                                      && stored->ne[0] >= factorCount)
        factorCount = stored->ne[0];
    if (block.attention.halfRopeOnFullLayers)  // step35 sizes it by the widest rotation of its layers
        for (const LayerShape& other : h.layers)
            factorCount = std::max(factorCount, other.ropeDimensions / 2);
    auto freqs = useFreqs ? c.loader.load("rope_freqs.weight", {factorCount, 1, 1}, false) : Result<WeightMatrix>(WeightMatrix{});
    if (!freqs)
        return freqs.error();
    const std::span<const float> factors = freqs->present() ? freqs->view().first(static_cast<std::size_t>(shape.ropeDimensions / 2))
                                                            : std::span<const float>{};
    const RopeParameters rope{block.rope, shape.ropeDimensions, sliding ? h.ropeFreqBaseSliding : h.ropeFreqBase,
                              sliding ? h.ropeFreqScaleSliding : h.ropeFreqScale, factors, h.ropeSections,
                              h.ropeYarn, h.ropeAttnFactor, h.yarnBetaFast, h.yarnBetaSlow, h.yarnOriginalContext,
                              c.options.emulatesLlamaCpp()};
    if (roped) {
        applyRope(q.data(), c.tokens, shape.headCount, shape.keyLength, rope);
        if (ownKv)
            applyRope(k.data(), c.tokens, shape.headCountKv, shape.keyLength, rope);
    }
    const bool temperature = block.attention.temperature == AttentionTemperature::OnLayersWithoutRope ? !roped
                                                                                                       : h.attentionTemperatureScale != 0.0f;
    if (temperature)
        applyAttentionTemperature(h, c.tokens, shape.headCount * shape.keyLength, q);
    if (roped && block.attention.normAfterRopeUnless128Experts && h.expertCount != 128) {
        rmsNormRows(q.data(), static_cast<std::int64_t>(q.size()) / shape.keyLength, shape.keyLength, {}, h.rmsEpsilon, q.data());
        if (ownKv)
            rmsNormRows(k.data(), static_cast<std::int64_t>(k.size()) / shape.keyLength, shape.keyLength, {}, h.rmsEpsilon, k.data());
    }
    c.recycle({&freqs});
    // Shared KV: keep what a later layer reads; a sharing layer takes its source's.
    if (ownKv && h.kvReadLater(layer)) {
        c.keptKeys.resize(static_cast<std::size_t>(h.layerCount));
        c.keptValues.resize(static_cast<std::size_t>(h.layerCount));
        c.keptKeys[static_cast<std::size_t>(layer)] = k;
        c.keptValues[static_cast<std::size_t>(layer)] = v;
    }
    const std::vector<float>* keys = &k;
    const std::vector<float>* values = &v;
    if (!ownKv) {
        const auto source = static_cast<std::size_t>(shape.kvSource);
        if (source >= c.keptKeys.size() || c.keptKeys[source].size() != static_cast<std::size_t>(c.tokens * shape.headCountKv * shape.keyLength))
            return forwardError(c, "layer " + std::to_string(layer) + " reads the K/V of layer " + std::to_string(shape.kvSource)
                                       + ", which this pass has not run");
        keys = &c.keptKeys[source];
        values = &c.keptValues[source];
    }

    float scale = h.attentionScale != 0.0f ? h.attentionScale : 1.0f / std::sqrt(static_cast<float>(shape.keyLength));
    if (block.scaleQueryFirst) {
        for (float& x : q)
            x *= scale;
        scale = 1.0f;
    }
    const bool sinksRead = block.hasAttentionSinks || block.attention.sinksWherePresent;
    auto sinks = sinksRead ? c.layerWeight(layer, "attn_sinks", {shape.headCount, 1, 1}, block.hasAttentionSinks)
                           : Result<WeightMatrix>(WeightMatrix{});
    if (!sinks)
        return sinks.error();
    AttentionSpec spec{shape.headCount,        shape.headCountKv,
                       shape.keyLength,        shape.valueLength,
                       scale,                  h.attentionSoftcap,
                       sliding ? h.slidingWindow : 0, sinks->view(),
                       c.options.emulatesLlamaCpp(), c.options.executor};
    spec.chunked = h.slidingChunked;
    spec.cache = c.options.effectiveKvCache();
    spec.ubatch = std::max<std::int64_t>(1, c.options.ubatchQueries);
    if (const std::string problem = kvCacheProblem(spec.cache, shape.keyLength, shape.valueLength); !problem.empty())
        return forwardError(c, "layer " + std::to_string(layer) + ": " + problem);
    // llama_kv_cache rotates before a quantized cache when layer 0's head is a multiple of 64.
    if (h.layerShape(0).keyLength % 64 == 0)
        spec.keyRotation = keyRotationSize(spec.cache.keyType, cachedHeadSize(h, layer, true));
    if (h.layerShape(0).valueLength % 64 == 0)
        spec.valueRotation = valueRotationSize(spec.cache.valueType, cachedHeadSize(h, layer, false));
    // Every row attends, the zero queries before `from` too (their outputs go nowhere): the
    // attention products keep their whole shape, so the rows kept are a whole pass's bits
    // whatever kernel OpenBLAS picks for a shape (it has small-matrix paths on some CPUs). They
    // are a few per cent of the layer at 512 tokens.
    std::vector<float> mixed(static_cast<std::size_t>(c.tokens * shape.headCount * shape.valueLength));
    causalAttention(q.data(), keys->data(), values->data(), c.tokens, spec, mixed.data());
    c.recycle({&sinks});
    if (!gate.empty()) {
        sigmoid(gate.data(), gate.size());
        for (std::size_t i = 0; i < mixed.size(); ++i)
            mixed[i] *= gate[i];
    }
    if (block.attention.headGate)
        if (Status done = gateHeads(c, layer, normed, from, mixed); !done)
            return done;

    const std::int64_t mixedWidth = shape.headCount * shape.valueLength;
    auto wo = c.layerWeight(layer, "attn_output", {mixedWidth, h.embeddingLength, 1});
    if (!wo)
        return wo.error();
    if (block.attention.refusesOutputBias && c.loader.model().findTensor(layerTensorName(layer, "attn_output", "bias")))
        return forwardError(c, "tensor " + layerTensorName(layer, "attn_output", "bias") + ": " + h.architecture
                                   + " has no attention output bias (llama.cpp's loader refuses the file: wrong number of tensors)");
    const bool outputBias = block.allowsProjectionBiases && !block.attention.refusesOutputBias;
    auto bo = outputBias ? c.layerBias(layer, "attn_output", h.embeddingLength) : Result<WeightMatrix>(WeightMatrix{});
    if (!bo)
        return bo.error();
    c.noteHeld(wo->heldBytes() + bo->heldBytes());
    c.projectRowsFrom(mixed, from, *wo, *bo, out);
    c.recycle({&wo, &bo});
    if (h.attentionValueScale != 0.0f)  // ggml_scale: one float product per value
        for (float& x : out)
            x *= h.attentionValueScale;
    return Ok{};
}

}  // namespace gguf
