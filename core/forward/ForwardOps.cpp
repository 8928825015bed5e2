#include "forward/ForwardOps.h"

#include "forward/GgmlVectorMath.h"

#include <cblas.h>

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
    for (std::int64_t t = 0; t < tokens; ++t) {
        float theta = static_cast<float>(t);
        for (std::int64_t i = 0; i < pairs; ++i) {
            const float factor = rope.freqFactors.empty() ? 1.0f : rope.freqFactors[static_cast<std::size_t>(i)];
            const float angle = rope.freqScale * (theta / factor);
            cosines[static_cast<std::size_t>(i)] = std::cos(angle);
            sines[static_cast<std::size_t>(i)] = std::sin(angle);
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
                head[a] = x0 * c - x1 * s;
                head[b] = x0 * s + x1 * c;
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

void causalAttention(const float* q, const float* k, const float* v, std::int64_t tokens, std::int64_t heads, std::int64_t kvHeads,
                     std::int64_t headSize, float scale, float* out)
{
    const std::int64_t group = heads / kvHeads;
    const int qStride = static_cast<int>(heads * headSize);
    const int kvStride = static_cast<int>(kvHeads * headSize);
    const int n = static_cast<int>(tokens);
    std::vector<float> scores(static_cast<std::size_t>(tokens * tokens));
    for (std::int64_t h = 0; h < heads; ++h) {
        const std::int64_t kvHead = h / group;
        // scores[i, j] = q_i . k_j (row i = query position)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, static_cast<int>(headSize), 1.0f, q + h * headSize, qStride,
                    k + kvHead * headSize, kvStride, 0.0f, scores.data(), n);
        for (std::int64_t i = 0; i < tokens; ++i) {
            float* row = scores.data() + i * tokens;
            // ggml_soft_max_ext: x * scale + mask (-inf above the diagonal), max-subtracted exp,
            // sum in double. (ggml's vector exp and 8-lane sums here, as ggmlExpAndSum does them,
            // moved the f16 oracle's flips rather than removing them, so libm's expf stays.)
            float peak = -std::numeric_limits<float>::infinity();
            for (std::int64_t j = 0; j <= i; ++j) {
                row[j] *= scale;
                peak = std::max(peak, row[j]);
            }
            double sum = 0.0;
            for (std::int64_t j = 0; j <= i; ++j) {
                row[j] = std::exp(row[j] - peak);
                sum += row[j];
            }
            const float inverse = static_cast<float>(1.0 / sum);
            for (std::int64_t j = 0; j <= i; ++j)
                row[j] *= inverse;
            std::fill(row + i + 1, row + tokens, 0.0f);
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, static_cast<int>(headSize), n, 1.0f, scores.data(), n,
                    v + kvHead * headSize, kvStride, 0.0f, out + h * headSize, qStride);
    }
}

void swiglu(float* gate, const float* up, std::int64_t rows, std::int64_t width)
{
    // ggml_vec_swiglu_f32 per row: the vector SiLU on groups of 8, libm's expf for the tail.
    const std::int64_t vectorWidth = width / 8 * 8;
    for (std::int64_t r = 0; r < rows; ++r) {
        float* g = gate + r * width;
        const float* u = up + r * width;
        for (std::int64_t i = 0; i < vectorWidth; ++i)
            g[i] = ggmlSilu(g[i]) * u[i];
        for (std::int64_t i = vectorWidth; i < width; ++i)
            g[i] = (g[i] / (1.0f + std::exp(-g[i]))) * u[i];
    }
}

}  // namespace gguf
