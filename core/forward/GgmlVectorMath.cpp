#include "core/forward/GgmlVectorMath.h"

#include "core/forward/FmaClones.h"

#include <bit>
#include <cmath>

namespace gguf {

GGUFX_FMA_CLONES float ggmlExpf(float x)
{
    // The names follow ggml's: z carries the rounded exponent n in its low bits, b is the reduced
    // argument, j the polynomial, k = 2^n built from z's bits; c and d flag the lanes whose n
    // needs the two-step scaling (|n| > 126) or saturates (|n| > 192).
    const float r = 0x1.8p23f;
    const float z = std::fma(x, 0x1.715476p+0f, r);
    const float n = z - r;
    const float b = std::fma(-n, 0x1.7f7d1cp-20f, std::fma(-n, 0x1.62e4p-1f, x));
    const std::uint32_t e = std::bit_cast<std::uint32_t>(z) << 23;
    const float k = std::bit_cast<float>(e + std::bit_cast<std::uint32_t>(1.0f));
    const bool c = std::fabs(n) > 126.0f;
    const float u = b * b;
    const float j = std::fma(std::fma(std::fma(0x1.0e4020p-7f, b, 0x1.573e2ep-5f), u, std::fma(0x1.555e66p-3f, b, 0x1.fffdb6p-2f)), u,
                             0x1.ffffecp-1f * b);
    if (!c)
        return std::fma(j, k, k);
    const std::uint32_t g = n <= 0.0f ? 0x82000000u : 0u;
    const float s1 = std::bit_cast<float>(g + 0x7f000000u);
    const float s2 = std::bit_cast<float>(e - g);
    if (std::fabs(n) > 192.0f)
        return s1 * s1;
    return std::fma(s2, j, s2) * s1;
}

float ggmlSilu(float x)
{
    return x / (1.0f + ggmlExpf(0.0f - x));
}

GGUFX_FMA_CLONES double ggmlExpAndSum(const float* x, float* y, std::int64_t n, float max)
{
    double sum = 0.0;
    std::int64_t i = 0;
    for (; i + 7 < n; i += 8) {
        float v[8];
        for (int l = 0; l < 8; ++l)
            y[i + l] = v[l] = ggmlExpf(x[i + l] - max);
        // _mm256 halves added, then movehl, then movehdup: ((0+4)+(2+6)) + ((1+5)+(3+7)).
        sum += static_cast<double>(((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7])));
    }
    for (; i < n; ++i) {
        y[i] = std::exp(x[i] - max);
        sum += static_cast<double>(y[i]);
    }
    return sum;
}

}  // namespace gguf
