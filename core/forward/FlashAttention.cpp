#include "core/forward/FlashAttention.h"

#include "core/base/TaskExecutor.h"
#include "core/forward/FmaClones.h"
#include "core/forward/GgmlAttention.h"
#include "core/forward/GgmlDots.h"
#include "core/forward/GgmlVectorMath.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/FloatEncode.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gguf {

namespace {

constexpr std::int64_t kTile = 64;  // GGML_FA_TILE_Q and GGML_FA_TILE_KV
constexpr float kInf = std::numeric_limits<float>::infinity();

float roundedToF16(float x)
{
    return f16ToF32(quantize::f32ToF16Bits(x));
}

struct FlashInputs {
    const float* q;
    const CachedRows& keys;
    const CachedRows& values;
    std::int64_t tokens;
    const AttentionSpec& spec;
    // Tiled rows only: per KV head the keys transposed, [keySize][tokens rounded up to a tile],
    // zero past the tokens, so that a tile's scores are read along the cells.
    const std::vector<float>& keysByColumn;
    std::int64_t columnStride;
};

// The state of one query's online softmax: running maximum, sum and accumulator.
struct Running {
    float maximum = -kInf;
    float sum = 0.0f;
    std::vector<float> acc;
};

// ggml's scale first: with a soft cap the scores are tanh(s * scale / cap) * cap.
float scoreScale(const AttentionSpec& spec)
{
    return spec.softcap > 0.0f ? spec.scale / spec.softcap : spec.scale;
}

// The sink joins the softmax, then the accumulator is divided by the sum.
void finish(Running& r, const AttentionSpec& spec, std::int64_t h, float* o)
{
    if (!spec.sinks.empty()) {
        const float sink = spec.sinks[static_cast<std::size_t>(h)];
        float ms = 1.0f, vs = 1.0f;
        if (sink > r.maximum) {
            ms = std::exp(r.maximum - sink);
            for (float& a : r.acc)
                a *= ms;
        } else {
            vs = std::exp(sink - r.maximum);
        }
        r.sum = r.sum * ms + vs;
    }
    const float inverse = r.sum == 0.0f ? 0.0f : 1.0f / r.sum;
    for (std::size_t d = 0; d < r.acc.size(); ++d)
        o[d] = r.acc[d] * inverse;
}

// ggml_compute_forward_flash_attn_ext_tiled for query i of head h.
GGUFX_FMA_CLONES void tiledRow(const FlashInputs& in, std::int64_t h, std::int64_t i, Running& r, float* o)
{
    const AttentionSpec& spec = in.spec;
    const std::int64_t kvHead = h / (spec.heads / spec.kvHeads);
    const float* qi = in.q + (i * spec.heads + h) * spec.keySize;
    const float* kT = in.keysByColumn.data() + kvHead * spec.keySize * in.columnStride;
    const float scale = scoreScale(spec);
    const std::int64_t first = firstVisibleKey(spec, i);
    float s[kTile], p[kTile];
    for (std::int64_t tile = first / kTile * kTile; tile <= i; tile += kTile) {
        std::fill(s, s + kTile, 0.0f);
        for (std::int64_t d = 0; d < spec.keySize; ++d) {
            const float qd = qi[d];
            const float* column = kT + d * in.columnStride + tile;
            for (std::int64_t j = 0; j < kTile; ++j)
                s[j] = std::fma(qd, column[j], s[j]);
        }
        float tileMax = -kInf;
        for (std::int64_t j = 0; j < kTile; ++j) {
            s[j] *= scale;
            if (spec.softcap > 0.0f)
                s[j] = std::tanh(s[j]) * spec.softcap;
            const std::int64_t cell = tile + j;
            s[j] = cell < first || cell > i ? -kInf : s[j] + 0.0f;  // plus the mask
            tileMax = tileMax > s[j] ? tileMax : s[j];
        }
        if (tileMax == -kInf)
            continue;
        const float newMax = std::fmax(r.maximum, tileMax);
        if (newMax > r.maximum) {
            const float ms = std::exp(r.maximum - newMax);
            for (float& a : r.acc)
                a *= ms;
            r.sum *= ms;
        }
        r.maximum = newMax;
        r.sum = static_cast<float>(static_cast<double>(r.sum) + ggmlExpAndSum(s, p, kTile, newMax));
        for (std::int64_t j = 0; j < kTile; ++j) {
            const std::int64_t cell = tile + j;
            if (cell < first || cell > i)
                continue;  // p = 0 adds nothing to the fma chain
            const float* v = in.values.valuesOf(cell * spec.kvHeads + kvHead);
            for (std::int64_t d = 0; d < spec.valueSize; ++d)
                r.acc[static_cast<std::size_t>(d)] = std::fma(p[j], v[d], r.acc[static_cast<std::size_t>(d)]);
        }
    }
    finish(r, spec, h, o);
}

// ggml_compute_forward_flash_attn_ext_f16_one_chunk for query i of head h.
GGUFX_FMA_CLONES void cellRow(const FlashInputs& in, std::int64_t h, std::int64_t i, Running& r, std::vector<float>& query,
                              QuantizedQuery& quantizedQuery, float* o)
{
    const AttentionSpec& spec = in.spec;
    const std::int64_t kvHead = h / (spec.heads / spec.kvHeads);
    const float* qi = in.q + (i * spec.heads + h) * spec.keySize;
    const std::uint32_t keyType = spec.cache.keyType;
    const bool halfValues = spec.cache.valueType == typeIdValue(GgmlTypeId::F16);
    if (in.keys.quantized()) {
        quantizeQuery(keyType, qi, spec.keySize, quantizedQuery);
    } else {
        query.resize(static_cast<std::size_t>(spec.keySize));
        for (std::int64_t d = 0; d < spec.keySize; ++d)
            query[static_cast<std::size_t>(d)] = keyType == typeIdValue(GgmlTypeId::F16) ? roundedToF16(qi[d])
                                                                                        : bf16ToF32(quantize::f32ToBf16Bits(qi[d]));
    }
    const float scale = scoreScale(spec);
    const std::int64_t first = firstVisibleKey(spec, i);
    for (std::int64_t j = first; j <= i; ++j) {
        const std::int64_t keyRow = j * spec.kvHeads + kvHead;
        float s = in.keys.quantized() ? quantizedKeyDot(in.keys, keyRow, quantizedQuery, false)
                : keyType == typeIdValue(GgmlTypeId::F16) ? vecDotF16(in.keys.valuesOf(keyRow), query.data(), spec.keySize)
                                                           : vecDotBf16(in.keys.valuesOf(keyRow), query.data(), spec.keySize);
        s = s * scale;
        if (spec.softcap > 0.0f)
            s = spec.softcap * std::tanh(s);
        s += 0.0f;  // the mask
        float ms = 1.0f, vs = 1.0f;
        if (s > r.maximum) {
            ms = std::exp(r.maximum - s);
            r.maximum = s;
            for (float& a : r.acc)
                a = halfValues ? roundedToF16(a * ms) : a * ms;
        } else {
            vs = std::exp(s - r.maximum);
        }
        const float* v = in.values.valuesOf(keyRow);
        for (std::int64_t d = 0; d < spec.valueSize; ++d) {
            float& a = r.acc[static_cast<std::size_t>(d)];
            a = std::fma(v[d], vs, a);
            if (halfValues)
                a = roundedToF16(a);  // ggml_vec_mad_f16 stores the accumulator as f16
        }
        r.sum = r.sum * ms + vs;  // ggml rounds the product and the sum apart here
    }
    finish(r, spec, h, o);
}

}  // namespace

void flashAttention(const float* q, const CachedRows& keys, const CachedRows& values, std::int64_t tokens, const AttentionSpec& spec,
                    float* out)
{
    const std::uint32_t f16 = typeIdValue(GgmlTypeId::F16);
    const bool tiles = spec.cache.keyType == f16 && spec.cache.valueType == f16 && spec.valueSize % 8 == 0
                    && ubatchQueries(0, tokens, spec.ubatch) >= kTile;
    std::vector<float> keysByColumn;
    const std::int64_t stride = (tokens + kTile - 1) / kTile * kTile;
    if (tiles) {
        keysByColumn.assign(static_cast<std::size_t>(spec.kvHeads * spec.keySize * stride), 0.0f);
        for (std::int64_t t = 0; t < tokens; ++t)
            for (std::int64_t kh = 0; kh < spec.kvHeads; ++kh) {
                const float* k = keys.valuesOf(t * spec.kvHeads + kh);
                for (std::int64_t d = 0; d < spec.keySize; ++d)
                    keysByColumn[static_cast<std::size_t>((kh * spec.keySize + d) * stride + t)] = k[d];
            }
    }
    const FlashInputs inputs{q, keys, values, tokens, spec, keysByColumn, stride};
    runTasks(spec.executor, static_cast<std::size_t>(spec.heads), [&](std::size_t task) {
        const auto h = static_cast<std::int64_t>(task);
        Running running;
        std::vector<float> query;
        QuantizedQuery quantizedQuery;
        for (std::int64_t i = 0; i < tokens; ++i) {
            running.maximum = -kInf;
            running.sum = 0.0f;
            running.acc.assign(static_cast<std::size_t>(spec.valueSize), 0.0f);
            float* o = out + (i * spec.heads + h) * spec.valueSize;
            if (tiles && ubatchQueries(i, tokens, spec.ubatch) >= kTile)
                tiledRow(inputs, h, i, running, o);
            else
                cellRow(inputs, h, i, running, query, quantizedQuery, o);
        }
    });
}

}  // namespace gguf
