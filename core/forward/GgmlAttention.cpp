#include "core/forward/GgmlAttention.h"

#include "core/base/TaskExecutor.h"
#include "core/forward/FlashAttention.h"
#include "core/forward/FmaClones.h"
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

std::int64_t ubatchQueries(std::int64_t position, std::int64_t tokens, std::int64_t ubatch)
{
    return std::min(ubatch, tokens - position / ubatch * ubatch);
}

std::string kvCacheProblem(const KvCacheSettings& cache, std::int64_t keySize, std::int64_t valueSize)
{
    const TypeTraits* value = findType(cache.valueType);
    if (!cache.flashAttentionOn() && value && value->blockSize > 1)
        return "a quantized V cache (" + typeName(cache.valueType) + ") needs flash attention: llama.cpp refuses it with --flash-attn off";
    if (std::string problem = cacheRowWidthProblem(cache.keyType, keySize, "K"); !problem.empty())
        return problem;
    return cacheRowWidthProblem(cache.valueType, valueSize, "V");
}

namespace {

bool quantizedType(std::uint32_t type)
{
    const TypeTraits* traits = findType(type);
    return traits && traits->blockSize > 1;
}

}  // namespace

std::int64_t keyRotationSize(std::uint32_t keyType, std::int64_t headSize)
{
    if (!quantizedType(keyType) || headSize <= 0 || headSize % 64 != 0)
        return 0;
    std::int64_t size = 64;
    while (headSize % (size * 2) == 0)
        size *= 2;
    return size;
}

std::int64_t valueRotationSize(std::uint32_t valueType, std::int64_t headSize)
{
    return quantizedType(valueType) && headSize > 0 && headSize % 64 == 0 ? 64 : 0;
}

namespace {

// ggml's Walsh-Hadamard product (fwht, for a mul_mat hinted GGML_HINT_SRC0_IS_HADAMARD) on every
// `size` values: scaled by 1 / sqrt(size), then butterflies of sums and differences.
std::vector<float> rotated(const float* x, std::size_t count, std::int64_t size)
{
    std::vector<float> y(x, x + count);
    const float scale = 1.0f / std::sqrt(static_cast<float>(size));
    for (std::size_t first = 0; first + static_cast<std::size_t>(size) <= count; first += static_cast<std::size_t>(size)) {
        float* row = y.data() + first;
        for (std::int64_t i = 0; i < size; ++i)
            row[i] *= scale;
        for (std::int64_t length = 1; length < size; length <<= 1)
            for (std::int64_t i = 0; i < size; i += 2 * length)
                for (std::int64_t j = i; j < i + length; ++j) {
                    const float a = row[j], b = row[j + length];
                    row[j] = a + b;
                    row[j + length] = a - b;
                }
    }
    return y;
}

// The probabilities (or a query) as mul_mat converts them to the other operand's vec_dot_type.
void roundTo(std::uint32_t type, std::vector<float>& x)
{
    if (type == typeIdValue(GgmlTypeId::F16))
        for (float& value : x)
            value = f16ToF32(quantize::f32ToF16Bits(value));
    else if (type == typeIdValue(GgmlTypeId::BF16))
        for (float& value : x)
            value = bf16ToF32(quantize::f32ToBf16Bits(value));
}

// A row of floats rounded to f16 / bf16 (or kept) and multiplied with another, by mul_mat:
// tinyBLAS for two or more columns, else the type's vec_dot.
float floatProduct(std::uint32_t type, const float* x, const float* y, std::int64_t n, bool tinyBlas)
{
    if (tinyBlas)
        return laneDot8(x, y, n);
    if (type == typeIdValue(GgmlTypeId::F16))
        return vecDotF16(x, y, n);
    if (type == typeIdValue(GgmlTypeId::BF16))
        return vecDotBf16(x, y, n);
    return vecDotF32(x, y, n);
}

// The KV row llama.cpp builds for these tokens: n_kv = max(256, tokens padded to 256).
std::int64_t kvCells(std::int64_t tokens)
{
    return std::max<std::int64_t>(256, (tokens + 255) / 256 * 256);
}

struct PlainInputs {
    const float* q;
    const CachedRows& keys;
    const float* vT;  // [kvHeads][valueSize][cells], zero past the tokens
    std::int64_t tokens;
    std::int64_t cells;
};

// One head of the attention without flash attention (kq, soft_max_ext, kqv) for every query.
GGUFX_FMA_CLONES void attendHead(const PlainInputs& in, const AttentionSpec& spec, std::int64_t h, float* out)
{
    const std::int64_t group = spec.heads / spec.kvHeads;
    const float inf = std::numeric_limits<float>::infinity();
    const std::uint32_t keyType = spec.cache.keyType, valueType = spec.cache.valueType;
    std::vector<float> row(static_cast<std::size_t>(in.cells)), query;
    QuantizedQuery quantizedQuery;
    const std::int64_t kvHead = h / group;
    const bool hasSink = !spec.sinks.empty();
    const float sink = hasSink ? spec.sinks[static_cast<std::size_t>(h)] : 0.0f;
    for (std::int64_t i = 0; i < in.tokens; ++i) {
        const float* qi = in.q + (i * spec.heads + h) * spec.keySize;
        const bool manyQueries = ubatchQueries(i, in.tokens, spec.ubatch) > 1;  // llamafile's sgemm skips a single column
        const bool keyTinyBlas = manyQueries && keyProductUsesTinyBlas(keyType, spec.keySize);
        if (in.keys.quantized()) {
            quantizeQuery(keyType, qi, spec.keySize, quantizedQuery);
        } else {
            query.assign(qi, qi + spec.keySize);
            roundTo(keyType, query);
        }
        const std::int64_t first = firstVisibleKey(spec, i);
        float peak = -inf;
        for (std::int64_t j = 0; j < in.cells; ++j) {
            if (j < first || j > i) {
                row[static_cast<std::size_t>(j)] = -inf;
                continue;
            }
            const std::int64_t keyRow = j * spec.kvHeads + kvHead;
            float s = in.keys.quantized() ? quantizedKeyDot(in.keys, keyRow, quantizedQuery, keyTinyBlas)
                                          : floatProduct(keyType, in.keys.valuesOf(keyRow), query.data(), spec.keySize, keyTinyBlas);
            if (spec.softcap > 0.0f)
                s = std::tanh(s * (1.0f / spec.softcap)) * spec.softcap;
            s = s * spec.scale + 0.0f;  // ggml_soft_max_ext: x * scale + mask
            row[static_cast<std::size_t>(j)] = s;
            peak = std::max(peak, s);
        }
        if (hasSink)
            peak = std::max(peak, sink);
        double sum = ggmlExpAndSum(row.data(), row.data(), in.cells, peak);
        if (hasSink)
            sum += static_cast<double>(std::exp(sink - peak));
        const auto inverse = static_cast<float>(1.0 / sum);
        for (float& p : row)
            p *= inverse;
        // kqv: V^T times the probabilities, rounded first to V's vec_dot_type.
        roundTo(valueType, row);
        float* o = out + (i * spec.heads + h) * spec.valueSize;
        for (std::int64_t d = 0; d < spec.valueSize; ++d)
            o[d] = floatProduct(valueType, in.vT + (kvHead * spec.valueSize + d) * in.cells, row.data(), in.cells, manyQueries);
    }
}

void plainAttention(const float* q, const CachedRows& keys, const CachedRows& values, std::int64_t tokens, const AttentionSpec& spec,
                    float* out)
{
    const std::int64_t cells = kvCells(tokens);
    // V transposed as the cache keeps it without flash attention.
    std::vector<float> vT(static_cast<std::size_t>(spec.kvHeads * spec.valueSize * cells), 0.0f);
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t kh = 0; kh < spec.kvHeads; ++kh)
            for (std::int64_t d = 0; d < spec.valueSize; ++d)
                vT[static_cast<std::size_t>((kh * spec.valueSize + d) * cells + t)] = values.valuesOf(t * spec.kvHeads + kh)[d];
    const PlainInputs inputs{q, keys, vT.data(), tokens, cells};
    // Heads side by side: each writes its own columns of `out`.
    runTasks(spec.executor, static_cast<std::size_t>(spec.heads),
             [&](std::size_t task) { attendHead(inputs, spec, static_cast<std::int64_t>(task), out); });
}

}  // namespace

void causalAttentionAsGgml(const float* q, const float* k, const float* v, std::int64_t tokens, const AttentionSpec& spec, float* out)
{
    AttentionSpec stored = spec;
    if (spec.cache.flashAttentionOn()) {
        // build_attn_mha casts an f32 cache to f16 for ggml_flash_attn_ext.
        for (std::uint32_t* type : {&stored.cache.keyType, &stored.cache.valueType})
            if (*type == typeIdValue(GgmlTypeId::F32))
                *type = typeIdValue(GgmlTypeId::F16);
    }
    const auto qCount = static_cast<std::size_t>(tokens * spec.heads * spec.keySize);
    const auto kCount = static_cast<std::size_t>(tokens * spec.kvHeads * spec.keySize);
    const auto vCount = static_cast<std::size_t>(tokens * spec.kvHeads * spec.valueSize);
    std::vector<float> qRotated, kRotated, vRotated;
    if (spec.keyRotation > 0) {
        qRotated = rotated(q, qCount, spec.keyRotation);
        kRotated = rotated(k, kCount, spec.keyRotation);
        q = qRotated.data();
        k = kRotated.data();
    }
    if (spec.valueRotation > 0) {
        vRotated = rotated(v, vCount, spec.valueRotation);
        v = vRotated.data();
    }
    const CachedRows keys = cacheRows(stored.cache.keyType, k, tokens * spec.kvHeads, spec.keySize);
    const CachedRows values = cacheRows(stored.cache.valueType, v, tokens * spec.kvHeads, spec.valueSize);
    if (spec.cache.flashAttentionOn())
        flashAttention(q, keys, values, tokens, stored, out);
    else
        plainAttention(q, keys, values, tokens, stored, out);
    if (spec.valueRotation > 0) {
        const auto outCount = static_cast<std::size_t>(tokens * spec.heads * spec.valueSize);
        const std::vector<float> back = rotated(out, outCount, spec.valueRotation);  // the rotation is its own inverse
        std::copy(back.begin(), back.end(), out);
    }
}

}  // namespace gguf
