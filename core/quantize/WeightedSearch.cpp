#include "core/quantize/WeightedSearch.h"

#include "core/quantize/QuantizeCommon.h"

#include <algorithm>
#include <cstring>

namespace gguf::quantize {

namespace {
constexpr float kGroupMaxEps = 1e-15f;  // ggml's GROUP_MAX_EPS

int clampLevel(int l, int low, int high)
{
    return std::max(low, std::min(high, l));
}
}  // namespace

float makeWeightedSymmetricLevels(int n, int nmax, const float* x, const float* w, std::int8_t* L)
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
        sumlx += w[i] * x[i] * float(l);
        suml2 += w[i] * float(l) * float(l);
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
            sumlx += w[i] * x[i] * float(l);
            suml2 += w[i] * float(l) * float(l);
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

float makeWeightedAsymmetricLevels(int n, int nmax, const float* x, const float* w, std::uint8_t* L, float* minOut,
                                   std::uint8_t* scratch, float rmin, float rdelta, int nstep)
{
    float min = x[0];
    float max = x[0];
    float sumW = w[0];
    float sumX = sumW * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min)
            min = x[i];
        if (x[i] > max)
            max = x[i];
        sumW += w[i];
        sumX += w[i] * x[i];
    }
    if (min > 0.0f)
        min = 0.0f;
    if (max <= min) {
        std::memset(L, 0, static_cast<std::size_t>(n));
        *minOut = -min;
        return 0.0f;
    }
    float iscale = float(nmax) / (max - min);
    float scale = 1.0f / iscale;
    float bestError = 0.0f;
    for (int i = 0; i < n; ++i) {
        L[i] = static_cast<std::uint8_t>(clampLevel(nearestInt(iscale * (x[i] - min)), 0, nmax));
        const float diff = scale * float(L[i]) + min - x[i];
        bestError += w[i] * (diff * diff);
    }
    for (int is = 0; is <= nstep; ++is) {
        iscale = (rmin + rdelta * float(is) + float(nmax)) / (max - min);
        float sumL = 0.0f;
        float sumL2 = 0.0f;
        float sumXL = 0.0f;
        for (int i = 0; i < n; ++i) {
            // `min` is the best fit so far and may sit near max: v can be huge, inf or NaN.
            const float v = iscale * (x[i] - min);
            const int l = v > 0.0f ? nearestInt(v < float(nmax) ? v : float(nmax)) : 0;
            scratch[i] = static_cast<std::uint8_t>(l);
            sumL += w[i] * float(l);
            sumL2 += w[i] * float(l) * float(l);
            sumXL += w[i] * float(l) * x[i];
        }
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
                error += w[i] * (diff * diff);
            }
            if (error < bestError) {
                std::memcpy(L, scratch, static_cast<std::size_t>(n));
                bestError = error;
                scale = thisScale;
                min = thisMin;
            }
        }
    }
    *minOut = -min;
    return scale;
}

float makePositiveLevels(int n, int nmax, const float* x, const float* w, std::uint8_t* L)
{
    float max = 0.0f;
    for (int i = 0; i < n; ++i)
        max = max > x[i] ? max : x[i];  // ggml's MAX(max, x[i])
    if (max < kGroupMaxEps) {
        std::fill(L, L + n, std::uint8_t{0});
        return 0.0f;
    }
    float iscale = float(nmax) / max;
    for (int i = 0; i < n; ++i)
        L[i] = static_cast<std::uint8_t>(nearestInt(iscale * x[i]));
    const float scale = 1.0f / iscale;
    float bestMse = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float diff = x[i] - scale * float(L[i]);
        bestMse += w[i] * diff * diff;
    }
    for (int is = -4; is <= 4; ++is) {
        if (is == 0)
            continue;
        const float iscaleIs = (0.1f * float(is) + float(nmax)) / max;
        const float scaleIs = 1.0f / iscaleIs;
        float mse = 0.0f;
        for (int i = 0; i < n; ++i) {
            const int l = std::min(nmax, nearestInt(iscaleIs * x[i]));
            const float diff = x[i] - scaleIs * float(l);
            mse += w[i] * diff * diff;
        }
        if (mse < bestMse) {
            bestMse = mse;
            iscale = iscaleIs;
        }
    }
    float sumlx = 0.0f;
    float suml2 = 0.0f;
    for (int i = 0; i < n; ++i) {
        const int l = std::min(nmax, nearestInt(iscale * x[i]));
        L[i] = static_cast<std::uint8_t>(l);
        sumlx += w[i] * x[i] * float(l);
        suml2 += w[i] * float(l) * float(l);
    }
    // One element at a time, as make_qp_quants does (with the stored byte, not the int level).
    for (int attempt = 0; attempt < 5; ++attempt) {
        int changed = 0;
        for (int i = 0; i < n; ++i) {
            float slx = sumlx - w[i] * x[i] * float(L[i]);
            float sl2 = suml2 - w[i] * float(L[i]) * float(L[i]);
            if (slx > 0.0f && sl2 > 0.0f) {
                const int newL = std::min(nmax, nearestInt(x[i] * sl2 / slx));
                if (newL != int(L[i])) {
                    slx += w[i] * x[i] * float(newL);
                    sl2 += w[i] * float(newL) * float(newL);
                    if (slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = static_cast<std::uint8_t>(newL);
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
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

}  // namespace gguf::quantize
