// IQ3 types: pairs of 4-element groups whose magnitudes come from iq3*_grid, with one sign byte
// per 8 elements. Scales and signs are evaluated in ggml's order and precision.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/IqGrid.h"
#include "core/kernels/ScalarKernels.h"

namespace gguf::kernels {

using codebooks::iq3s_grid;
using codebooks::iq3xxs_grid;
using codebooks::ksigns_iq2xs;

// IQ3_XXS (98 bytes): f16 d, qs[64] (one grid index per 4 elements), then 8 u32, one per
// 32-element sub-block: 4x7 sign bits (parity-expanded via ksigns_iq2xs) and the scale in bits
// 28-31. db = d * (0.5 + scale) * 0.5.
void dequantizeIQ3_XXS(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ3_XXS;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        const std::uint8_t* scalesAndSigns = qs + 64;
        for (int ib = 0; ib < 8; ++ib, qs += 8) {
            const std::uint32_t aux = loadLe<std::uint32_t>(scalesAndSigns + 4 * ib);
            const float db = d * (0.5f + float(aux >> 28)) * 0.5f;
            for (int l = 0; l < 4; ++l) {
                const std::uint8_t signs = ksigns_iq2xs[(aux >> (7 * l)) & 127];
                const std::uint32_t grid1 = iq3xxs_grid[qs[2 * l + 0]];
                const std::uint32_t grid2 = iq3xxs_grid[qs[2 * l + 1]];
                for (int j = 0; j < 4; ++j) {
                    dst[j + 0] = applySign(db * float(gridByte(grid1, j)), signs, j + 0);
                    dst[j + 4] = applySign(db * float(gridByte(grid2, j)), signs, j + 4);
                }
                dst += 8;
            }
        }
    }
}

// IQ3_S (110 bytes): f16 d, qs[64] (grid index low 8 bits per 4 elements), qh[8] (9th index bit,
// one byte per 32-element sub-block), signs[32] (one byte per 8 elements), scales[4] (two 4-bit
// scales per 64 elements). db = d * (1 + 2 * scale).
void dequantizeIQ3_S(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ3_S;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        const std::uint8_t* qh = src + B::qh;
        const std::uint8_t* signs = src + B::signs;
        const std::uint8_t* scales = src + B::scales;
        for (int ib = 0; ib < 8; ++ib, qs += 8, signs += 4) {
            const int scale = (ib % 2 == 0) ? (scales[ib / 2] & 0xF) : (scales[ib / 2] >> 4);
            const float db = d * float(1 + 2 * scale);
            for (int l = 0; l < 4; ++l) {
                const int index1 = qs[2 * l + 0] | ((qh[ib] << (8 - 2 * l)) & 256);
                const int index2 = qs[2 * l + 1] | ((qh[ib] << (7 - 2 * l)) & 256);
                const std::uint32_t grid1 = iq3s_grid[index1];
                const std::uint32_t grid2 = iq3s_grid[index2];
                for (int j = 0; j < 4; ++j) {
                    dst[j + 0] = applySign(db * float(gridByte(grid1, j)), signs[l], j + 0);
                    dst[j + 4] = applySign(db * float(gridByte(grid2, j)), signs[l], j + 4);
                }
                dst += 8;
            }
        }
    }
}

}  // namespace gguf::kernels
