// Built with -mavx2 and without -mfma (core/CMakeLists.txt): see Iq4SearchAvx2.h. Reached only
// through iq4TrialSumsAvx2() in QuantizeIQ4.cpp.

#include "core/quantize/Iq4SearchAvx2.h"

#if GGUFX_X86_KERNELS
#include "core/kernels/Codebooks.h"

#include <immintrin.h>

#include <cstdint>

namespace gguf::quantize {

namespace {

const std::int8_t* const kValues = codebooks::kvalues_iq4nl;

// float(kvalues[l]) for the 16 level indices in the lanes of idx (0..15).
__m256 levelOf(__m256i idx, __m256 low, __m256 high)
{
    const __m256 fromLow = _mm256_permutevar8x32_ps(low, idx);
    const __m256 fromHigh = _mm256_permutevar8x32_ps(high, idx);
    const __m256i upper = _mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7));
    return _mm256_blendv_ps(fromLow, fromHigh, _mm256_castsi256_ps(upper));
}

void trialSums(const float* x, const float* weight, float max, float* sumqx, float* sumq2)
{
    // The scalar bestIndex: the largest l with 2v >= kvalues[l - 1] + kvalues[l] (0 if none,
    // NaN included); the thresholds rise, so that is the count of those 2v reaches.
    __m256 threshold[15];
    for (int l = 1; l < 16; ++l)
        threshold[l - 1] = _mm256_set1_ps(static_cast<float>(kValues[l - 1] + kValues[l]));
    alignas(32) float lowLevels[8], highLevels[8];
    for (int l = 0; l < 8; ++l) {
        lowLevels[l] = static_cast<float>(kValues[l]);
        highLevels[l] = static_cast<float>(kValues[8 + l]);
    }
    const __m256 low = _mm256_load_ps(lowLevels), high = _mm256_load_ps(highLevels);
    // Trials itry = -7 .. 0 in the first register, 1 .. 8 in the second (8 is not asked for).
    const __m256 first = _mm256_setr_ps(-7, -6, -5, -4, -3, -2, -1, 0);
    const __m256 base = _mm256_set1_ps(static_cast<float>(kValues[0]));
    const __m256 maxV = _mm256_set1_ps(max);
    const __m256 id[2] = {_mm256_div_ps(_mm256_add_ps(first, base), maxV),
                          _mm256_div_ps(_mm256_add_ps(_mm256_add_ps(first, _mm256_set1_ps(8)), base), maxV)};
    __m256 qx[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    __m256 q2[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int j = 0; j < 32; ++j) {
        const __m256 xj = _mm256_set1_ps(x[j]);
        const __m256 wj = _mm256_set1_ps(weight[j]);
        for (int h = 0; h < 2; ++h) {
            const __m256 v = _mm256_mul_ps(id[h], xj);
            const __m256 twice = _mm256_add_ps(v, v);
            __m256i idx = _mm256_setzero_si256();
            for (const __m256& t : threshold)  // a true compare is -1: subtracting counts it
                idx = _mm256_sub_epi32(idx, _mm256_castps_si256(_mm256_cmp_ps(twice, t, _CMP_GE_OQ)));
            const __m256 q = levelOf(idx, low, high);
            const __m256 wq = _mm256_mul_ps(wj, q);
            qx[h] = _mm256_add_ps(qx[h], _mm256_mul_ps(wq, xj));
            q2[h] = _mm256_add_ps(q2[h], _mm256_mul_ps(wq, q));
        }
    }
    alignas(32) float out[4][8];
    _mm256_store_ps(out[0], qx[0]);
    _mm256_store_ps(out[1], qx[1]);
    _mm256_store_ps(out[2], q2[0]);
    _mm256_store_ps(out[3], q2[1]);
    for (int i = 0; i < kIq4Trials; ++i) {
        sumqx[i] = out[i / 8][i % 8];
        sumq2[i] = out[2 + i / 8][i % 8];
    }
}

}  // namespace

Iq4TrialSumsFn iq4TrialSumsAvx2Kernel()
{
    return trialSums;
}

}  // namespace gguf::quantize
#endif
