#include "core/forward/ForwardOps.h"

#include "core/base/BlasLibrary.h"
#include "core/base/RowRanges.h"
#include "core/forward/GgmlAttention.h"
#include "core/forward/GgmlVectorMath.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/FloatEncode.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gguf {

void rmsNormRows(const float* x, std::int64_t tokens, std::int64_t width, std::span<const float> weight, float epsilon, float* y)
{
    for (std::int64_t t = 0; t < tokens; ++t) {
        const float* row = x + t * width;
        float* out = y + t * width;
        double sum = 0.0;
        for (std::int64_t i = 0; i < width; ++i)
            sum += static_cast<double>(row[i] * row[i]);  // the square rounded to float first, as ggml does
        const float mean = static_cast<float>(sum / static_cast<double>(width));
        const float scale = 1.0f / std::sqrt(mean + epsilon);
        for (std::int64_t i = 0; i < width; ++i) {
            const float normed = row[i] * scale;
            out[i] = weight.empty() ? normed : normed * weight[static_cast<std::size_t>(i)];
        }
    }
}

void applyRope(float* x, std::int64_t tokens, std::int64_t heads, std::int64_t headSize, const RopeParameters& rope)
{
    const std::int64_t pairs = rope.dimensions / 2;
    // ggml_rope_cache_init: theta_i = p * base^(-2i/n_rot), accumulated by repeated
    // multiplication in float, one cos/sin table per position shared by every head.
    const float thetaScale = std::pow(rope.freqBase, -2.0f / static_cast<float>(rope.dimensions));
    std::vector<float> cosines(static_cast<std::size_t>(pairs)), sines(static_cast<std::size_t>(pairs));
    // ggml_mrope_cache_init with is_imrope: pair i is in sector i % (sum of sections); sectors
    // interleave t, h, w by sector % 3 while within 3 x that section's size, else e.
    const int sectors = rope.sections[0] + rope.sections[1] + rope.sections[2] + rope.sections[3];
    std::vector<bool> turns(static_cast<std::size_t>(pairs), true);
    if (sectors > 0)
        for (std::int64_t i = 0; i < pairs; ++i) {
            const int sector = static_cast<int>(i % sectors);
            const int kind = sector % 3;
            turns[static_cast<std::size_t>(i)] = sector < 3 * rope.sections[static_cast<std::size_t>(kind)];
        }
    // ggml's rope_yarn: cos and sin times attn_factor, and YaRN's magnitude correction on top;
    // ggml_rope_yarn_corr_dims: the pair range over which YaRN blends.
    float corrLow = 0.0f, corrHigh = 0.0f, mscale = rope.attnFactor;
    if (rope.yarn) {
        const auto corrDim = [&](float beta) {
            return static_cast<float>(rope.dimensions)
                 * std::log(static_cast<float>(rope.originalContext) / (beta * 2 * static_cast<float>(M_PI))) / (2 * std::log(rope.freqBase));
        };
        corrLow = std::max(0.0f, std::floor(corrDim(rope.betaFast)));
        corrHigh = std::min(static_cast<float>(rope.dimensions - 1), std::ceil(corrDim(rope.betaSlow)));
        mscale = rope.attnFactor * (1.0f + 0.1f * std::log(1.0f / rope.freqScale));
    }
    for (std::int64_t t = 0; t < tokens; ++t) {
        float theta = static_cast<float>(t);
        for (std::int64_t i = 0; i < pairs; ++i) {
            const float factor = rope.freqFactors.empty() ? 1.0f : rope.freqFactors[static_cast<std::size_t>(i)];
            const float extrapolated = turns[static_cast<std::size_t>(i)] ? theta / factor : 0.0f;
            float angle = rope.freqScale * extrapolated;
            if (rope.yarn) {
                // rope_yarn_ramp(low, high, i0) with i0 = 2i: 1 - clamp((i - low) / max(0.001, high - low), 0, 1)
                const float y = (static_cast<float>(i) - corrLow) / std::max(0.001f, corrHigh - corrLow);
                const float ramp = 1 - std::min(1.0f, std::max(0.0f, y));
                angle = angle * (1 - ramp) + extrapolated * ramp;
            }
            cosines[static_cast<std::size_t>(i)] = std::cos(angle) * mscale;
            sines[static_cast<std::size_t>(i)] = std::sin(angle) * mscale;
            theta *= thetaScale;
        }
        for (std::int64_t h = 0; h < heads; ++h) {
            float* head = x + (t * heads + h) * headSize;
            for (std::int64_t i = 0; i < pairs; ++i) {
                const std::int64_t a = rope.pairing == RopePairing::Adjacent ? 2 * i : i;
                const std::int64_t b = rope.pairing == RopePairing::Adjacent ? 2 * i + 1 : i + pairs;
                const float x0 = head[a];
                const float x1 = head[b];
                const float c = cosines[static_cast<std::size_t>(i)];
                const float s = sines[static_cast<std::size_t>(i)];
                if (rope.asGgml) {
                    head[a] = std::fma(x0, c, -(x1 * s));
                    head[b] = std::fma(x0, s, x1 * c);
                } else {
                    head[a] = x0 * c - x1 * s;
                    head[b] = x0 * s + x1 * c;
                }
            }
        }
    }
}

void softmaxRows(float* values, std::int64_t rowCount, std::int64_t width)
{
    for (std::int64_t r = 0; r < rowCount; ++r) {
        float* row = values + r * width;
        const float peak = *std::max_element(row, row + width);
        const double sum = ggmlExpAndSum(row, row, width, peak);
        const float inverse = static_cast<float>(1.0 / sum);
        for (std::int64_t i = 0; i < width; ++i)
            row[i] *= inverse;
    }
}

void causalAttention(const float* q, const float* k, const float* v, std::int64_t tokens, const AttentionSpec& spec, float* out)
{
    if (spec.asGgml) {
        causalAttentionAsGgml(q, k, v, tokens, spec, out);
        return;
    }
    const std::int64_t group = spec.heads / spec.kvHeads;
    const int qStride = static_cast<int>(spec.heads * spec.keySize);
    const int kStride = static_cast<int>(spec.kvHeads * spec.keySize);
    const int vStride = static_cast<int>(spec.kvHeads * spec.valueSize);
    const int oStride = static_cast<int>(spec.heads * spec.valueSize);
    const int n = static_cast<int>(tokens);
    const auto attendHead = [&](std::int64_t h, std::vector<float>& scores) {
        const std::int64_t kvHead = h / group;
        // scores[i, j] = q_i . k_j (row i = query position)
        blas().sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, static_cast<int>(spec.keySize), 1.0f, q + h * spec.keySize, qStride,
                     k + kvHead * spec.keySize, kStride, 0.0f, scores.data(), n);
        const bool hasSink = !spec.sinks.empty();
        const float sink = hasSink ? spec.sinks[static_cast<std::size_t>(h)] : 0.0f;
        for (std::int64_t i = 0; i < tokens; ++i) {
            float* row = scores.data() + i * tokens;
            const std::int64_t first = firstVisibleKey(spec, i);
            std::fill(row, row + first, 0.0f);
            if (spec.softcap > 0.0f)
                softcap(row + first, static_cast<std::size_t>(i + 1 - first), spec.softcap);
            // ggml_soft_max_ext: x * scale + mask (-inf above the diagonal and outside the
            // window), max-subtracted exp, sum in double; a sink joins the max and the sum.
            float peak = -std::numeric_limits<float>::infinity();
            for (std::int64_t j = first; j <= i; ++j) {
                row[j] *= spec.scale;
                peak = std::max(peak, row[j]);
            }
            if (hasSink)
                peak = std::max(peak, sink);
            double sum = 0.0;
            for (std::int64_t j = first; j <= i; ++j) {
                row[j] = std::exp(row[j] - peak);
                sum += row[j];
            }
            if (hasSink)
                sum += static_cast<double>(std::exp(sink - peak));
            const float inverse = static_cast<float>(1.0 / sum);
            for (std::int64_t j = first; j <= i; ++j)
                row[j] *= inverse;
            std::fill(row + i + 1, row + tokens, 0.0f);
        }
        blas().sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, static_cast<int>(spec.valueSize), n, 1.0f, scores.data(), n,
                     v + kvHead * spec.valueSize, vStride, 0.0f, out + h * spec.valueSize, oStride);
    };
    // Heads side by side, a range of heads a task, each with its own [tokens, tokens] scores;
    // a long sequence's scores (over 16 MB each) are held once, its heads one after another.
    // Each head's sums do not depend on the thread.
    const std::uint64_t scoreBytes = static_cast<std::uint64_t>(tokens * tokens) * sizeof(float);
    const unsigned tasks = scoreBytes <= (std::uint64_t{16} << 20) ? executorThreads(spec.executor) : 1u;
    forEachRange(spec.executor, planRowRanges(0, static_cast<std::uint64_t>(spec.heads), tasks), [&](RowRange range) {
        std::vector<float> scores(static_cast<std::size_t>(tokens * tokens));
        for (auto h = static_cast<std::int64_t>(range.begin); h < static_cast<std::int64_t>(range.end); ++h)
            attendHead(h, scores);
    });
}

void softcap(float* values, std::size_t count, float cap)
{
    const float inverse = 1.0f / cap;
    for (std::size_t i = 0; i < count; ++i)
        values[i] = std::tanh(values[i] * inverse) * cap;
}

void swiglu(float* gate, const float* up, std::int64_t rows, std::int64_t width, bool asGgml)
{
    // ggml_vec_swiglu_f32 per row: the vector SiLU on groups of 8, libm's expf for the tail.
    const std::int64_t vectorWidth = asGgml ? width / 8 * 8 : 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        float* g = gate + r * width;
        const float* u = up + r * width;
        for (std::int64_t i = 0; i < vectorWidth; ++i)
            g[i] = ggmlSilu(g[i]) * u[i];
        for (std::int64_t i = vectorWidth; i < width; ++i)
            g[i] = (g[i] / (1.0f + std::exp(-g[i]))) * u[i];
    }
}

void swigluClamped(float* gate, const float* up, std::int64_t rows, std::int64_t width, float limit, bool asGgml)
{
    const std::int64_t vectorWidth = asGgml ? width / 8 * 8 : 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        float* g = gate + r * width;
        const float* u = up + r * width;
        for (std::int64_t i = 0; i < width; ++i) {
            const float silu = i < vectorWidth ? ggmlSilu(g[i]) : g[i] / (1.0f + std::exp(-g[i]));
            // ggml_clamp: MAX(MIN(x, max), min)
            g[i] = std::min(silu, limit) * std::max(std::min(u[i], limit), -limit);
        }
    }
}

void swigluOai(float* gate, const float* up, std::size_t count)
{
    constexpr float kAlpha = 1.702f;
    constexpr float kLimit = 7.0f;
    for (std::size_t i = 0; i < count; ++i) {
        const float x = std::min(gate[i], kLimit);
        const float y = std::clamp(up[i], -kLimit, kLimit);
        const float glu = x / (1.0f + std::exp(kAlpha * (-x)));
        gate[i] = glu * (y + 1.0f);
    }
}

void sigmoid(float* values, std::size_t count)
{
    for (std::size_t i = 0; i < count; ++i)
        values[i] = 1.0f / (1.0f + std::exp(-values[i]));
}

void geglu(float* gate, const float* up, std::size_t count)
{
    constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
    constexpr float kCoefficient = 0.044715f;
    for (std::size_t i = 0; i < count; ++i) {
        const float x = gate[i];
        if (x <= -10.0f) {
            gate[i] = 0.0f;
        } else if (x >= 10.0f) {
            gate[i] = x * up[i];
        } else {
            const float f = f16ToF32(quantize::f32ToF16Bits(x));
            // ggml_gelu_f32 as GCC contracts it when ggml builds the table: 1 + A*x*x is an fma.
            const float gelu = 0.5f * f * (1.0f + std::tanh(kSqrt2OverPi * f * std::fma(kCoefficient * f, f, 1.0f)));
            gate[i] = f16ToF32(quantize::f32ToF16Bits(gelu)) * up[i];
        }
    }
}

}  // namespace gguf
