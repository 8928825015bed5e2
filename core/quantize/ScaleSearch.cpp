#include "core/quantize/ScaleSearch.h"

#include "core/quantize/QuantizeCommon.h"

#include <algorithm>

namespace gguf::quantize {

namespace {
constexpr float kGroupMaxEps = 1e-15f;  // ggml's GROUP_MAX_EPS: below this a group is all zero

int clampLevel(int l, int low, int high)
{
    return std::max(low, std::min(high, l));
}

// The value of largest magnitude, with its sign (the first one on ties).
float signedAbsMax(int n, const float* x, float* absMax)
{
    float max = 0.0f;
    float amax = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float ax = fabsOf(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    *absMax = amax;
    return max;
}
}  // namespace

float makeSymmetricLevels(int n, int nmax, const float* x, std::int8_t* L)
{
    float amax = 0.0f;
    const float max = signedAbsMax(n, x, &amax);
    if (amax < kGroupMaxEps) {
        std::fill(L, L + n, std::int8_t{0});
        return 0.0f;
    }
    float iscale = float(-nmax) / max;
    float sumlx = 0.0f;
    float suml2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = clampLevel(nearestInt(iscale * x[i]), -nmax, nmax - 1);
        L[i] = static_cast<std::int8_t>(l + nmax);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * float(l);
        suml2 += w * float(l) * float(l);
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; ++is) {
        if (is == 0)
            continue;
        iscale = -(float(nmax) + 0.1f * float(is)) / max;
        sumlx = 0.0f;
        suml2 = 0.0f;
        for (int i = 0; i < n; ++i) {
            const int l = clampLevel(nearestInt(iscale * x[i]), -nmax, nmax - 1);
            const float w = x[i] * x[i];
            sumlx += w * x[i] * float(l);
            suml2 += w * float(l) * float(l);
        }
        if (suml2 > 0.0f && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; ++i)
                L[i] = static_cast<std::int8_t>(nmax + clampLevel(nearestInt(iscale * x[i]), -nmax, nmax - 1));
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

float makeRefinedSymmetricLevels(int n, int nmax, const float* x, std::int8_t* L)
{
    float amax = 0.0f;
    const float max = signedAbsMax(n, x, &amax);
    if (amax < kGroupMaxEps) {
        std::fill(L, L + n, std::int8_t{0});
        return 0.0f;
    }
    const float iscale = float(-nmax) / max;
    float sumlx = 0.0f;
    float suml2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = clampLevel(nearestInt(iscale * x[i]), -nmax, nmax - 1);
        L[i] = static_cast<std::int8_t>(l);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * float(l);
        suml2 += w * float(l) * float(l);
    }
    // Move single elements to the level that improves sumlx^2 / suml2, up to five sweeps.
    for (int attempt = 0; attempt < 5; ++attempt) {
        int changed = 0;
        for (int i = 0; i < n; ++i) {
            const float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * float(L[i]);
            if (slx > 0.0f) {
                float sl2 = suml2 - w * float(L[i]) * float(L[i]);
                const int newL = clampLevel(nearestInt(x[i] * sl2 / slx), -nmax, nmax - 1);
                if (newL != L[i]) {
                    slx += w * x[i] * float(newL);
                    sl2 += w * float(newL) * float(newL);
                    if (sl2 > 0.0f && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = static_cast<std::int8_t>(newL);
                        sumlx = slx;
                        suml2 = sl2;
                        ++changed;
                    }
                }
            }
        }
        if (changed == 0)
            break;
    }
    for (int i = 0; i < n; ++i)
        L[i] = static_cast<std::int8_t>(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

float makeAsymmetricLevels(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* minOut,
                           std::uint8_t* scratch, float rmin, float rdelta, int nstep, bool useMad)
{
    float min = x[0];
    float max = x[0];
    float sumW = weights[0];
    float sumX = sumW * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min)
            min = x[i];
        if (x[i] > max)
            max = x[i];
        const float w = weights[i];
        sumW += w;
        sumX += w * x[i];
    }
    if (min > 0.0f)
        min = 0.0f;
    if (max == min) {
        std::fill(L, L + n, std::uint8_t{0});
        *minOut = -min;
        return 0.0f;
    }
    auto errorOf = [&](float diff) { return useMad ? fabsOf(diff) : diff * diff; };

    float iscale = float(nmax) / (max - min);
    float scale = 1.0f / iscale;
    float bestError = 0.0f;
    for (int i = 0; i < n; ++i) {
        L[i] = static_cast<std::uint8_t>(clampLevel(nearestInt(iscale * (x[i] - min)), 0, nmax));
        const float diff = scale * float(L[i]) + min - x[i];
        bestError += weights[i] * errorOf(diff);
    }
    if (nstep < 1) {
        *minOut = -min;
        return scale;
    }
    for (int is = 0; is <= nstep; ++is) {
        iscale = (rmin + rdelta * float(is) + float(nmax)) / (max - min);
        float sumL = 0.0f;
        float sumL2 = 0.0f;
        float sumXL = 0.0f;
        for (int i = 0; i < n; ++i) {
            const int l = clampLevel(nearestInt(iscale * (x[i] - min)), 0, nmax);
            scratch[i] = static_cast<std::uint8_t>(l);
            const float w = weights[i];
            sumL += w * float(l);
            sumL2 += w * float(l) * float(l);
            sumXL += w * float(l) * x[i];
        }
        // Least-squares scale and min for these levels; a positive min is clamped to zero.
        const float D = sumW * sumL2 - sumL * sumL;
        if (D > 0.0f) {
            float thisScale = (sumW * sumXL - sumX * sumL) / D;
            float thisMin = (sumL2 * sumX - sumL * sumXL) / D;
            if (thisMin > 0.0f) {
                thisMin = 0.0f;
                thisScale = sumXL / sumL2;
            }
            float error = 0.0f;
            for (int i = 0; i < n; ++i) {
                const float diff = thisScale * float(scratch[i]) + thisMin - x[i];
                error += weights[i] * errorOf(diff);
            }
            if (error < bestError) {
                std::copy(scratch, scratch + n, L);
                bestError = error;
                scale = thisScale;
                min = thisMin;
            }
        }
    }
    *minOut = -min;
    return scale;
}

}  // namespace gguf::quantize
