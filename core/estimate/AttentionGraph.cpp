// LlmGraph's attention: the KV cache inputs (llm_graph_input_attn_kv*), the store of the ubatch's
// K and V into the cache (llama_kv_cache::cpy_k / cpy_v), the views of the whole cache (get_k /
// get_v) and build_attn_mha, with and without flash attention.

#include "core/estimate/LlmGraph.h"

#include <algorithm>

namespace gguf {

namespace {
std::uint64_t rowBytes(const TypeTraits* type, std::int64_t elements)
{
    const std::uint64_t blockSize = type && type->blockSize ? type->blockSize : 1;
    return static_cast<std::uint64_t>(std::max<std::int64_t>(elements, 0)) / blockSize * (type ? type->blockBytes : 4);
}

bool quantized(const TypeTraits* type)
{
    return type && type->blockSize > 1;
}

// llama_kv_cache's Hadamard rotation of a quantized cache: when the layers of the cache share one
// head size and the model's first layer has a head size that is a multiple of 64; of the largest
// power of two (64 at least) dividing the shared size for K, of 64 for V.
std::int64_t rotationSize(const EstimateShape& shape, bool sliding, bool value, const TypeTraits* type)
{
    if (!quantized(type) || shape.layers.empty())
        return 0;
    const EstimateLayer& first = shape.layers.front();
    if ((value ? first.valueLength : first.keyLength) % 64 != 0)
        return 0;
    std::int64_t common = 0;
    for (const EstimateLayer& layer : shape.layers) {
        if (layer.recurrent || !layer.kvHeads || !layer.ownsCache || layer.slidingWindow != sliding)
            continue;
        const auto size = static_cast<std::int64_t>(value ? layer.valueLength : layer.keyLength);
        if (common != 0 && common != size)
            return 0;
        common = size;
    }
    if (common <= 0)
        return 0;
    if (value)
        return 64;
    std::int64_t n = 64;
    while (common % (n * 2) == 0)
        n *= 2;
    return n;
}
}  // namespace

CacheInputs LlmGraph::cacheInputs(bool keysOnly, std::int64_t cells, bool sliding)
{
    CacheInputs in;
    in.keyRows = g.input(GgmlTypeId::I64, {tokens});
    if (!keysOnly) {
        // A transposed V cache (no flash attention) is stored one element per row.
        std::uint64_t widest = 0;
        for (const EstimateLayer& layer : shape.layers)
            widest = std::max(widest, layer.valueRow());
        in.valueRows = g.input(GgmlTypeId::I64, {settings.flashAttention ? tokens : tokens * static_cast<std::int64_t>(widest)});
    }
    in.mask = g.input(settings.flashAttention ? GgmlTypeId::F16 : GgmlTypeId::F32, {cells, tokens, 1, 1});
    if (keysOnly)  // the K-only inputs (llm_graph_input_attn_k) have no rotations
        return in;
    if (const std::int64_t n = rotationSize(shape, sliding, false, settings.keyType))
        in.keyRotation = g.input(GgmlTypeId::F32, {n, n});
    if (const std::int64_t n = rotationSize(shape, sliding, true, settings.valueType))
        in.valueRotation = g.input(GgmlTypeId::F32, {n, n});
    return in;
}

AttentionInputs LlmGraph::attentionInputs(CacheKind kind)
{
    AttentionInputs in;
    in.kind = kind;
    in.full = cacheInputs(kind == CacheKind::KeysOnly, settings.fullCells, false);
    if (kind == CacheKind::SlidingKeysAndValues)
        in.sliding = cacheInputs(false, settings.slidingCells, true);
    return in;
}

std::int64_t LlmGraph::cellsOf(std::size_t il) const
{
    return shape.layers[il].slidingWindow ? settings.slidingCells : settings.fullCells;
}

TensorId LlmGraph::cacheTensor(std::size_t il, bool value)
{
    const auto key = std::make_pair(il, value);
    if (const auto it = m_caches.find(key); it != m_caches.end())
        return it->second;
    const EstimateLayer& layer = shape.layers[il];
    std::uint64_t width = value ? layer.valueRow() : layer.keyRow();
    if (value && !settings.flashAttention) {  // [TAG_V_CACHE_VARIABLE]: padded to the widest
        for (const EstimateLayer& other : shape.layers)
            width = std::max(width, other.valueRow());
    }
    const TensorId t = g.external(value ? settings.valueType : settings.keyType, {static_cast<std::int64_t>(width), cellsOf(il), 1, 1});
    m_caches.emplace(key, t);
    return t;
}

TensorId LlmGraph::cachedKeys(std::size_t il)
{
    const EstimateLayer& layer = shape.layers[il];
    const TensorId cache = cacheTensor(il, false);
    const GraphTensor& c = g.tensor(cache);
    const auto head = static_cast<std::int64_t>(layer.keyLength);
    return g.view(cache, {head, static_cast<std::int64_t>(layer.kvHeads), cellsOf(il), 1},
                  {rowBytes(c.type, head), rowBytes(c.type, c.ne[0]), rowBytes(c.type, c.ne[0] * c.ne[1])});
}

TensorId LlmGraph::cachedValues(std::size_t il)
{
    const EstimateLayer& layer = shape.layers[il];
    const TensorId cache = cacheTensor(il, true);
    const GraphTensor& c = g.tensor(cache);
    const auto head = static_cast<std::int64_t>(layer.valueLength);
    const auto heads = static_cast<std::int64_t>(layer.kvHeads);
    const std::int64_t cells = cellsOf(il);
    if (settings.flashAttention)
        return g.view(cache, {head, heads, cells, 1}, {rowBytes(c.type, head), rowBytes(c.type, c.ne[0]), rowBytes(c.type, c.ne[0] * c.ne[1])});
    return g.view(cache, {cells, heads, head, 1},
                  {rowBytes(c.type, c.ne[1] * head), rowBytes(c.type, c.ne[1]), rowBytes(c.type, c.ne[1] * c.ne[0])});
}

TensorId LlmGraph::storeKeys(const CacheInputs& in, std::size_t il, TensorId k)
{
    const GraphTensor& cur = g.tensor(k);
    const TensorId rows = g.view(k, {cur.ne[0] * cur.ne[1], cur.ne[2]}, {cur.nb[2]});
    return g.setRows(cacheTensor(il, false), rows, in.keyRows);
}

TensorId LlmGraph::storeValues(const CacheInputs& in, std::size_t il, TensorId v)
{
    const GraphTensor& cur = g.tensor(v);
    const std::int64_t width = cur.ne[0] * cur.ne[1];
    const TensorId cache = cacheTensor(il, true);
    if (settings.flashAttention) {
        const TensorId rows = g.view(v, {width, cur.ne[2]}, {cur.nb[2]});
        return g.setRows(cache, rows, in.valueRows);
    }
    TensorId rows = rowBytes(cur.type, width) == cur.nb[2] ? g.reshape(v, {width, cur.ne[2]}) : g.cont(v, {width, cur.ne[2]});
    const GraphTensor& c = g.tensor(cache);
    if (width < c.ne[0])
        rows = g.pad(rows, c.ne[0]);
    const TensorId elements = g.reshape(cache, {1, c.ne[0] * c.ne[1]});
    const GraphTensor& r = g.tensor(rows);
    rows = g.reshape(rows, {1, r.ne[0] * r.ne[1]});
    return g.setRows(elements, rows, in.valueRows);
}

TensorId LlmGraph::hadamard(TensorId x, TensorId rotation)
{
    const GraphTensor& cur = g.tensor(x);
    const std::int64_t n = g.tensor(rotation).ne[0];
    const std::int64_t count = cur.ne[0] * cur.ne[1] * cur.ne[2] * cur.ne[3];
    const auto ne = cur.ne;
    TensorId rows = g.contiguous(x) ? g.reshape(x, {n, count / n}) : g.cont(x, {n, count / n});
    rows = g.mulMat(rotation, rows);
    return g.reshape(rows, {ne[0], ne[1], ne[2], ne[3]});
}

TensorId LlmGraph::attend(TensorId q, TensorId k, TensorId v, TensorId mask, TensorId sinks, TensorId vMla)
{
    const bool transposedValues = g.tensor(v).nb[1] > g.tensor(v).nb[2];
    const GraphTensor& query = g.tensor(q);
    q = g.view(q, {query.ne[0], query.ne[1], query.ne[2], 1}, {query.nb[1], query.nb[2], query.nb[3]});
    q = g.permute(q, 0, 2, 1, 3);
    k = g.permute(k, 0, 2, 1, 3);
    v = g.permute(v, 0, 2, 1, 3);
    const auto isF32 = [&](TensorId t) { return g.tensor(t).type->id == typeIdValue(GgmlTypeId::F32); };
    TensorId cur = kNoTensor;
    if (settings.flashAttention) {
        if (transposedValues)
            v = g.transpose(v);
        if (isF32(k))
            k = g.cast(k, GgmlTypeId::F16);
        if (isF32(v))
            v = g.cast(v, GgmlTypeId::F16);
        cur = g.flashAttention(q, k, v, mask, sinks);
        if (vMla != kNoTensor) {
            cur = g.permute(cur, 0, 2, 1, 3);
            cur = g.mulMat(vMla, cur);
            cur = g.permute(cur, 0, 2, 1, 3);
            cur = g.cont(cur);
        }
        const GraphTensor& c = g.tensor(cur);
        cur = g.reshape(cur, {c.ne[0] * c.ne[1], c.ne[2] * c.ne[3]});
    } else {
        TensorId kq = g.mulMat(k, q);
        if (hp.attentionSoftcap) {
            kq = g.sameAs(GraphOp::Scale, kq);
            kq = g.sameAs(GraphOp::Unary, kq);
            kq = g.sameAs(GraphOp::Scale, kq);
        }
        kq = g.softMax(kq, mask, sinks);
        if (!transposedValues)
            v = g.cont(g.transpose(v));
        TensorId kqv = g.mulMat(v, kq);
        if (vMla != kNoTensor)
            kqv = g.mulMat(vMla, kqv);
        cur = g.permute(kqv, 0, 2, 1, 3);
        const GraphTensor& c = g.tensor(cur);
        cur = g.cont(cur, {c.ne[0] * c.ne[1], c.ne[2] * c.ne[3]});
    }
    g.expand(cur);
    return cur;
}

TensorId LlmGraph::attention(const AttentionInputs& in, std::size_t il, TensorId wo, TensorId woBias, TensorId q, TensorId k,
                             TensorId v, TensorId sinks, TensorId vMla)
{
    const bool sliding = in.kind == CacheKind::SlidingKeysAndValues && shape.layers[il].slidingWindow;
    const CacheInputs& cache = sliding ? in.sliding : in.full;
    const bool keysOnly = in.kind == CacheKind::KeysOnly;
    if (cache.keyRotation != kNoTensor) {
        q = hadamard(q, cache.keyRotation);
        if (k != kNoTensor)
            k = hadamard(k, cache.keyRotation);
    }
    if (cache.valueRotation != kNoTensor && v != kNoTensor)
        v = hadamard(v, cache.valueRotation);
    // The order llama.cpp adds them in: Q, V, K, except with a sliding-window cache (Q, K, V).
    g.expand(q);
    if (in.kind == CacheKind::SlidingKeysAndValues) {
        g.expand(k);
        g.expand(v);
    } else {
        g.expand(v);
        g.expand(k);
    }
    if (k != kNoTensor)
        g.expand(storeKeys(cache, il, k));
    if (v != kNoTensor && !keysOnly)
        g.expand(storeValues(cache, il, v));

    const TensorId keys = cachedKeys(il);
    TensorId values = kNoTensor;
    if (keysOnly) {
        const GraphTensor& kk = g.tensor(keys);
        values = g.view(keys, {g.tensor(v).ne[0], kk.ne[1], kk.ne[2], kk.ne[3]}, {kk.nb[1], kk.nb[2], kk.nb[3]});
    } else {
        values = cachedValues(il);
    }
    TensorId cur = attend(q, keys, values, cache.mask, sinks, vMla);
    if (cache.valueRotation != kNoTensor)
        cur = hadamard(cur, cache.valueRotation);
    if (wo != kNoTensor) {
        cur = g.mulMat(wo, cur);
        if (const TensorId scale = weight(il, "attn_output.scale"); scale != kNoTensor)
            cur = g.sameAs(GraphOp::Mul, cur, scale);
    }
    if (woBias != kNoTensor)
        cur = g.sameAs(GraphOp::Add, cur, woBias);
    return cur;
}

}  // namespace gguf
