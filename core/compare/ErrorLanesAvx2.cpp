// The AVX2 + FMA kernel of ErrorLanes.h: eight pairs per step, lanes 0-3 in one register of
// doubles and lanes 4-7 in another, the same double operations per lane as the scalar kernel
// (so the same bits). Compiled with -mavx2 -mfma (core/CMakeLists.txt); elsewhere it reports
// that it is not there.

#include "core/compare/ErrorLanes.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <bit>
#include <limits>
#endif

namespace gguf {

#if defined(__AVX2__) && defined(__FMA__)

namespace {

struct LaneRegisters {
    __m256d low;
    __m256d high;
};

LaneRegisters loadLanes(const double (&lanes)[kErrorSumLanes])
{
    return {_mm256_loadu_pd(lanes), _mm256_loadu_pd(lanes + 4)};
}

void storeLanes(double (&lanes)[kErrorSumLanes], LaneRegisters r)
{
    _mm256_storeu_pd(lanes, r.low);
    _mm256_storeu_pd(lanes + 4, r.high);
}

// Slots are counted in a second pass over a small buffer, not as they are made: a scalar load of
// a lane just stored from a vector register stalls, and four tables in turn keep neighbouring
// pairs of the same bin from waiting on each other's increment.
constexpr std::size_t kSlotChunk = 2048;

// The lowest slot above 0 among `n`, or kSlots: slot - 1 wraps 0 to the top.
std::uint32_t lowestRealSlot(const std::uint16_t* slots, std::size_t n)
{
    const __m256i one = _mm256_set1_epi16(1);
    __m256i lowest = _mm256_set1_epi16(-1);
    std::size_t k = 0;
    for (; k + 16 <= n; k += 16)
        lowest = _mm256_min_epu16(lowest, _mm256_sub_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(slots + k)), one));
    const __m128i half = _mm_min_epu16(_mm256_castsi256_si128(lowest), _mm256_extracti128_si256(lowest, 1));
    std::uint32_t minusOne = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(half))) & 0xFFFF;
    for (; k < n; ++k)
        minusOne = std::min<std::uint32_t>(minusOne, static_cast<std::uint16_t>(slots[k] - 1));
    return minusOne == 0xFFFF ? ErrorBinCounts::kSlots : minusOne + 1;
}

void countSlots(std::uint32_t* counts, const std::uint16_t* slots, std::size_t n)
{
    static_assert(ErrorBinCounts::kTables == 4, "one table per pair in a group of four");
    std::uint32_t* t0 = counts;
    std::uint32_t* t1 = counts + ErrorBinCounts::kSlots;
    std::uint32_t* t2 = counts + 2 * ErrorBinCounts::kSlots;
    std::uint32_t* t3 = counts + 3 * ErrorBinCounts::kSlots;
    for (std::size_t k = 0; k + 4 <= n; k += 4) {
        ++t0[slots[k]];
        ++t1[slots[k + 1]];
        ++t2[slots[k + 2]];
        ++t3[slots[k + 3]];
    }
}

}  // namespace

bool addErrorLanesAvx2(ErrorLaneSums& lanes, const float* reference, const float* other, std::size_t n, std::size_t firstLane,
                       ErrorBinCounts* bins)
{
    static const bool runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!runs)
        return false;
    std::size_t i = 0;
    if (firstLane != 0) {  // up to the next lane 0 one pair at a time
        i = std::min(n, kErrorSumLanes - firstLane);
        addErrorLanesScalar(lanes, reference, other, i, firstLane, bins);
    }
    if (n - i >= kErrorSumLanes) {
        LaneRegisters squared = loadLanes(lanes.squaredError);
        LaneRegisters absolute = loadLanes(lanes.absError);
        LaneRegisters maximum = loadLanes(lanes.maxAbsError);
        LaneRegisters referenceSquared = loadLanes(lanes.referenceSquared);
        LaneRegisters otherSquared = loadLanes(lanes.otherSquared);
        LaneRegisters product = loadLanes(lanes.product);
        const __m256i exponentMask = _mm256_set1_epi32(0x7F800000);
        const __m256d absMask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
        std::uint32_t* counts = bins ? bins->counts() : nullptr;
        std::uint64_t nonFinite = 0;
        std::uint64_t zeroOrNonFinite = 0;
        std::uint32_t lowest = ErrorBinCounts::kSlots;
        const std::size_t bodyBegin = i;
        alignas(16) std::uint16_t slots[kSlotChunk];
        while (n - i >= kErrorSumLanes) {
            const std::size_t chunkEnd = i + std::min((n - i) / kErrorSumLanes * kErrorSumLanes, kSlotChunk);
            std::size_t slotCount = 0;
            for (; i < chunkEnd; i += kErrorSumLanes, slotCount += kErrorSumLanes) {
                __m256 r = _mm256_loadu_ps(reference + i);
                __m256 o = _mm256_loadu_ps(other + i);
                const __m256i rNonFinite = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(r), exponentMask), exponentMask);
                const __m256i oNonFinite = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(o), exponentMask), exponentMask);
                const __m256i notFinite = _mm256_or_si256(rNonFinite, oNonFinite);
                const int notFiniteBits = _mm256_movemask_ps(_mm256_castsi256_ps(notFinite));
                if (notFiniteBits != 0) {  // both values of such a pair count as +0
                    r = _mm256_andnot_ps(_mm256_castsi256_ps(notFinite), r);
                    o = _mm256_andnot_ps(_mm256_castsi256_ps(notFinite), o);
                    nonFinite += static_cast<std::uint64_t>(std::popcount(static_cast<unsigned>(notFiniteBits)));
                }
                const __m256d rLow = _mm256_cvtps_pd(_mm256_castps256_ps128(r));
                const __m256d rHigh = _mm256_cvtps_pd(_mm256_extractf128_ps(r, 1));
                const __m256d oLow = _mm256_cvtps_pd(_mm256_castps256_ps128(o));
                const __m256d oHigh = _mm256_cvtps_pd(_mm256_extractf128_ps(o, 1));
                const __m256d eLow = _mm256_sub_pd(oLow, rLow);
                const __m256d eHigh = _mm256_sub_pd(oHigh, rHigh);
                const __m256d aLow = _mm256_and_pd(eLow, absMask);
                const __m256d aHigh = _mm256_and_pd(eHigh, absMask);
                squared.low = _mm256_fmadd_pd(eLow, eLow, squared.low);
                squared.high = _mm256_fmadd_pd(eHigh, eHigh, squared.high);
                absolute.low = _mm256_add_pd(absolute.low, aLow);
                absolute.high = _mm256_add_pd(absolute.high, aHigh);
                maximum.low = _mm256_max_pd(maximum.low, aLow);
                maximum.high = _mm256_max_pd(maximum.high, aHigh);
                referenceSquared.low = _mm256_fmadd_pd(rLow, rLow, referenceSquared.low);
                referenceSquared.high = _mm256_fmadd_pd(rHigh, rHigh, referenceSquared.high);
                otherSquared.low = _mm256_fmadd_pd(oLow, oLow, otherSquared.low);
                otherSquared.high = _mm256_fmadd_pd(oHigh, oHigh, otherSquared.high);
                product.low = _mm256_fmadd_pd(rLow, oLow, product.low);
                product.high = _mm256_fmadd_pd(rHigh, oHigh, product.high);
                if (!counts)
                    continue;
                // The slot of |error| rounded to float (ErrorLanes.h). Non-finite pairs were
                // zeroed above, so they land in slot 0 with the exact zeros.
                const __m128 fLow = _mm256_cvtpd_ps(aLow);
                const __m128 fHigh = _mm256_cvtpd_ps(aHigh);
                const __m256i bits = _mm256_castps_si256(_mm256_set_m128(fHigh, fLow));
                const int zeroBits = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(bits, _mm256_setzero_si256())));
                zeroOrNonFinite += static_cast<std::uint64_t>(std::popcount(static_cast<unsigned>(zeroBits)));
                const __m256i slot = _mm256_srli_epi32(bits, 16);
                _mm_store_si128(reinterpret_cast<__m128i*>(slots + slotCount),
                                _mm_packus_epi32(_mm256_castsi256_si128(slot), _mm256_extracti128_si256(slot, 1)));
            }
            if (counts) {
                countSlots(counts, slots, slotCount);
                lowest = std::min(lowest, lowestRealSlot(slots, slotCount));
            }
        }
        storeLanes(lanes.squaredError, squared);
        storeLanes(lanes.absError, absolute);
        storeLanes(lanes.maxAbsError, maximum);
        storeLanes(lanes.referenceSquared, referenceSquared);
        storeLanes(lanes.otherSquared, otherSquared);
        storeLanes(lanes.product, product);
        const std::uint64_t body = i - bodyBegin;
        lanes.count += body - nonFinite;
        lanes.nonFiniteCount += nonFinite;
        if (bins) {
            double largest = 0.0;
            for (const double m : lanes.maxAbsError)
                largest = std::max(largest, m);
            // No slot above that of the lanes' largest |error|: slots grow with the value.
            const std::uint32_t highest = std::bit_cast<std::uint32_t>(static_cast<float>(largest)) >> 16;
            bins->counted(body, zeroOrNonFinite, nonFinite);
            if (lowest <= highest)
                bins->touched(lowest, highest);
        }
    }
    if (i < n)  // the rest starts at lane 0
        addErrorLanesScalar(lanes, reference + i, other + i, n - i, 0, bins);
    return true;
}

#else

bool addErrorLanesAvx2(ErrorLaneSums&, const float*, const float*, std::size_t, std::size_t, ErrorBinCounts*)
{
    return false;
}

#endif

}  // namespace gguf
