// Ternary (TQ1_0, TQ2_0), 1- and 2-bit (Q1_0, Q2_0) and FP4 (MXFP4, NVFP4) kernels.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/ScalarKernels.h"

namespace gguf::kernels {

using codebooks::kvalues_fp4;

namespace {

// TQ1_0 packs 5 (or 4) base-3 digits per byte as a fixed-point fraction of 3^5: multiplying the
// byte by 3^n (mod 256) brings digit n to the top, and (q * 3) >> 8 extracts it.
inline float ternaryDigit(std::uint8_t packed, std::uint8_t pow3, float d)
{
    const std::uint8_t q = static_cast<std::uint8_t>(packed * pow3);
    const int digit = (static_cast<std::uint16_t>(q) * 3) >> 8;
    return float(digit - 1) * d;
}

constexpr std::uint8_t kPow3[5] = {1, 3, 9, 27, 81};

}  // namespace

// TQ1_0 (54 bytes): qs[48], qh[4], f16 d. Elements 0-159: digit n of qs[m] (m < 32) is element
// 32n + m; elements 160-239: digit n of qs[32 + m] (m < 16) is element 160 + 16n + m; elements
// 240-255: digit n of qh[j] is element 240 + 4n + j. value = (digit - 1) * d.
void dequantizeTQ1_0(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::TQ1_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        const std::uint8_t* qh = src + B::qh;
        for (int n = 0; n < 5; ++n) {
            for (int m = 0; m < 32; ++m) {
                *dst++ = ternaryDigit(qs[m], kPow3[n], d);
            }
        }
        for (int n = 0; n < 5; ++n) {
            for (int m = 0; m < 16; ++m) {
                *dst++ = ternaryDigit(qs[32 + m], kPow3[n], d);
            }
        }
        for (int n = 0; n < 4; ++n) {
            for (int j = 0; j < 4; ++j) {
                *dst++ = ternaryDigit(qh[j], kPow3[n], d);
            }
        }
    }
}

// TQ2_0 (66 bytes): qs[64], f16 d. Per 128 elements (32 bytes), bit pair l of byte m is element
// 32l + m. value = (q - 1) * d.
void dequantizeTQ2_0(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::TQ2_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        for (int j = 0; j < 64; j += 32) {
            const std::uint8_t* qs = src + B::qs + j;
            for (int l = 0; l < 4; ++l) {
                for (int m = 0; m < 32; ++m) {
                    const int q = (qs[m] >> (2 * l)) & 3;
                    *dst++ = float(q - 1) * d;
                }
            }
        }
    }
}

// MXFP4 (17 bytes, 32 elements): E8M0 e, qs[16] (nibble layout as Q4_0).
// value = kvalues_fp4[nibble] * (2^(e-127) / 2).
void dequantizeMXFP4(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::MXFP4;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = e8m0ToF32Half(src[B::e]);
        const std::uint8_t* qs = src + B::qs;
        for (int j = 0; j < 16; ++j) {
            dst[j] = float(kvalues_fp4[qs[j] & 0xF]) * d;
            dst[j + 16] = float(kvalues_fp4[qs[j] >> 4]) * d;
        }
    }
}

// NVFP4 (36 bytes, 64 elements): UE4M3 d[4], qs[32]. Sub-block s (16 elements) uses d[s] and
// qs[8s .. 8s+7]; byte j holds element j (low nibble) and j + 8 (high nibble).
void dequantizeNVFP4(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::NVFP4;
    constexpr std::size_t half = B::subBlock / 2;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        for (std::size_t s = 0; s < B::elements / B::subBlock; ++s, dst += B::subBlock) {
            const float d = ue4m3ToF32Half(src[B::d + s]);
            const std::uint8_t* qs = src + B::qs + s * half;
            for (std::size_t j = 0; j < half; ++j) {
                dst[j] = float(kvalues_fp4[qs[j] & 0xF]) * d;
                dst[j + half] = float(kvalues_fp4[qs[j] >> 4]) * d;
            }
        }
    }
}

// Q1_0 (18 bytes, 128 elements): f16 d, qs[16], bit j%8 of byte j/8 is element j.
// value = bit ? d : -d.
void dequantizeQ1_0(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q1_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const float negD = -d;
        const std::uint8_t* qs = src + B::qs;
        for (std::size_t j = 0; j < B::elements; ++j) {
            dst[j] = ((qs[j / 8] >> (j % 8)) & 1) ? d : negD;
        }
    }
}

// Q2_0 (18 bytes, 64 elements): f16 d, qs[16], bits 2(j%4)..2(j%4)+1 of byte j/4 are element j.
// value = (q - 1) * d, i.e. -d, 0, d or 2d.
void dequantizeQ2_0(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::Q2_0;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        for (std::size_t j = 0; j < B::elements; ++j) {
            const int q = (qs[j / 4] >> (2 * (j % 4))) & 3;
            dst[j] = float(q - 1) * d;
        }
    }
}

}  // namespace gguf::kernels
