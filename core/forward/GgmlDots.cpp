#include "core/forward/GgmlDots.h"

#include "core/forward/FmaClones.h"
#include "core/types/GgmlType.h"

#include <cmath>

namespace gguf {

namespace {

// ggml's hsum_float_8 (and tinyBLAS's hsum): ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)).
float sumLanes(const float* l)
{
    return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

// Four 8-lane accumulators over 32-value steps, as ggml's vec_dot_f16 / vec_dot_bf16 keep them;
// `fused`: each step an fma, else a rounded product then an add. A plain flag, not a template
// parameter: clang does not clone templates for target_clones.
GGUFX_FMA_CLONES void accumulateSteps(const float* x, const float* y, std::int64_t steps, bool fused, float (&sum)[4][8])
{
    for (std::int64_t i = 0; i < steps * 32; i += 32)
        for (int j = 0; j < 4; ++j)
            for (int l = 0; l < 8; ++l) {
                const float a = x[i + j * 8 + l], b = y[i + j * 8 + l];
                sum[j][l] = fused ? std::fma(a, b, sum[j][l]) : a * b + sum[j][l];
            }
    for (int l = 0; l < 8; ++l) {
        sum[0][l] += sum[2][l];
        sum[1][l] += sum[3][l];
        sum[0][l] += sum[1][l];
    }
}

// GGML_F32x8_REDUCE of the added accumulators: the halves added, then two horizontal adds.
float reduceLanes(const float* s)
{
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

double leftovers(const float* x, const float* y, std::int64_t from, std::int64_t n)
{
    double sum = 0.0;
    for (std::int64_t i = from; i < n; ++i)
        sum += static_cast<double>(x[i] * y[i]);
    return sum;
}

}  // namespace

GGUFX_FMA_CLONES float laneDot8(const float* x, const float* y, std::int64_t n)
{
    float lanes[8] = {};
    for (std::int64_t i = 0; i < n; i += 8)
        for (int l = 0; l < 8; ++l)
            lanes[l] = std::fma(x[i + l], y[i + l], lanes[l]);
    return sumLanes(lanes);
}

float vecDotF32(const float* x, const float* y, std::int64_t n)
{
    float sum[4][8] = {};
    const std::int64_t steps = n / 32;
    accumulateSteps(x, y, steps, true, sum);
    float total = reduceLanes(sum[0]);
    for (std::int64_t i = steps * 32; i < n; ++i)
        total += x[i] * y[i];
    return total;
}

float vecDotF16(const float* x, const float* y, std::int64_t n)
{
    float sum[4][8] = {};
    const std::int64_t steps = n / 32;
    accumulateSteps(x, y, steps, true, sum);
    return static_cast<float>(static_cast<double>(reduceLanes(sum[0])) + leftovers(x, y, steps * 32, n));
}

float vecDotBf16(const float* x, const float* y, std::int64_t n)
{
    float sum[4][8] = {};
    const std::int64_t steps = n / 32;
    accumulateSteps(x, y, steps, false, sum);
    return static_cast<float>(static_cast<double>(sumLanes(sum[0])) + leftovers(x, y, steps * 32, n));
}

GGUFX_FMA_CLONES float chainDot(const float* x, const float* y, std::int64_t n)
{
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; ++i)
        sum = std::fma(x[i], y[i], sum);
    return sum;
}

GGUFX_FMA_CLONES float quantizedKeyDot(const CachedRows& k, std::int64_t row, const QuantizedQuery& q, bool asTinyBlas)
{
    const auto type = static_cast<GgmlTypeId>(k.type);
    const std::int8_t* kl = k.levelsOf(row);
    const float* kd = k.scalesOf(row);
    const std::int64_t blocks = k.width / 32;
    const bool twoAccumulators = type == GgmlTypeId::IQ4_NL && !asTinyBlas;
    const std::int64_t paired = twoAccumulators ? blocks / 2 * 2 : blocks;
    float acc[2][8] = {};
    float minimums = 0.0f;
    for (std::int64_t b = 0; b < paired; ++b) {
        const float d = kd[b] * q.scales[static_cast<std::size_t>(b)];
        float* lanes = acc[twoAccumulators ? b % 2 : 0];
        for (int l = 0; l < 8; ++l) {
            int sum = 0;
            for (int e = 0; e < 4; ++e)
                sum += kl[b * 32 + l * 4 + e] * q.levels[static_cast<std::size_t>(b * 32 + l * 4 + e)];
            lanes[l] = std::fma(d, static_cast<float>(sum), lanes[l]);
        }
        if (!k.minimums.empty())  // q4_1, q5_1: summs += m * s, contracted to an fma
            minimums = std::fma(k.minimumsOf(row)[b], q.sums[static_cast<std::size_t>(b)], minimums);
    }
    if (twoAccumulators) {
        for (int l = 0; l < 8; ++l)
            acc[0][l] += acc[1][l];
        float total = sumLanes(acc[0]);
        if (paired < blocks) {  // the odd block: one integer sum, scaled and added in float
            int sum = 0;
            for (int e = 0; e < 32; ++e)
                sum += kl[paired * 32 + e] * q.levels[static_cast<std::size_t>(paired * 32 + e)];
            total = std::fma(q.scales[static_cast<std::size_t>(paired)] * kd[paired], static_cast<float>(sum), total);
        }
        return total;
    }
    return sumLanes(acc[0]) + minimums;
}

bool keyProductUsesTinyBlas(std::uint32_t keyType, std::int64_t keySize)
{
    switch (static_cast<GgmlTypeId>(keyType)) {
    case GgmlTypeId::F16:
    case GgmlTypeId::BF16:
        return keySize % 8 == 0;
    case GgmlTypeId::Q8_0:
    case GgmlTypeId::Q4_0:
    case GgmlTypeId::Q5_0:
    case GgmlTypeId::IQ4_NL:
        return true;
    default:
        return false;
    }
}

}  // namespace gguf
