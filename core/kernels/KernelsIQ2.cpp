// IQ2 types: 8-element groups whose magnitudes come from a codebook entry (iq2*_grid) and whose
// signs come from 7 stored bits expanded to 8 with even parity (ksigns_iq2xs). 32-element
// sub-blocks carry a 4-bit scale: db = d * (0.5 + scale) * 0.25, evaluated left to right in f32
// as in ggml; each value is then db * magnitude * sign.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/IqGrid.h"
#include "core/kernels/ScalarKernels.h"

namespace gguf::kernels {

using codebooks::iq2s_grid;
using codebooks::iq2xs_grid;
using codebooks::iq2xxs_grid;
using codebooks::ksigns_iq2xs;

// IQ2_XXS (66 bytes): f16 d, qs[64]. Each 32-element sub-block has 8 bytes: 4 grid indices
// (one byte per 8-element group), then a u32 holding 4x7 sign bits and the scale in bits 28-31.
void dequantizeIQ2_XXS(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ2_XXS;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        for (int ib = 0; ib < 8; ++ib) {
            const std::uint8_t* group = src + B::qs + 8 * ib;
            const std::uint32_t signsAndScale = loadLe<std::uint32_t>(group + 4);
            const float db = d * (0.5f + float(signsAndScale >> 28)) * 0.25f;
            for (int l = 0; l < 4; ++l) {
                const std::uint64_t grid = iq2xxs_grid[group[l]];
                const std::uint8_t signs = ksigns_iq2xs[(signsAndScale >> (7 * l)) & 127];
                for (int j = 0; j < 8; ++j) {
                    dst[j] = applySign(db * float(gridByte(grid, j)), signs, j);
                }
                dst += 8;
            }
        }
    }
}

// IQ2_XS (74 bytes): f16 d, qs[32] (u16: 9-bit grid index | 7 sign bits << 9), scales[8] (two
// 4-bit scales per 32-element sub-block: low nibble for groups 0-1, high nibble for groups 2-3).
void dequantizeIQ2_XS(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ2_XS;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* scales = src + B::scales;
        for (int ib = 0; ib < 8; ++ib) {
            const float db[2] = {d * (0.5f + float(scales[ib] & 0xF)) * 0.25f,
                                 d * (0.5f + float(scales[ib] >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l) {
                const std::uint16_t q = loadLe<std::uint16_t>(src + B::qs + 2 * (4 * ib + l));
                const std::uint64_t grid = iq2xs_grid[q & 511];
                const std::uint8_t signs = ksigns_iq2xs[q >> 9];
                for (int j = 0; j < 8; ++j) {
                    dst[j] = applySign(db[l / 2] * float(gridByte(grid, j)), signs, j);
                }
                dst += 8;
            }
        }
    }
}

// IQ2_S (82 bytes): f16 d, qs[32] (grid index low 8 bits), signs[32] (8 explicit sign bits per
// group), qh[8] (2 high index bits per group), scales[8] (as IQ2_XS).
void dequantizeIQ2_S(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ2_S;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        const std::uint8_t* signs = qs + 32;
        const std::uint8_t* qh = src + B::qh;
        const std::uint8_t* scales = src + B::scales;
        for (int ib = 0; ib < 8; ++ib, qs += 4, signs += 4) {
            const float db[2] = {d * (0.5f + float(scales[ib] & 0xF)) * 0.25f,
                                 d * (0.5f + float(scales[ib] >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l) {
                const float dl = db[l / 2];
                const int index = qs[l] | ((qh[ib] << (8 - 2 * l)) & 0x300);
                const std::uint64_t grid = iq2s_grid[index];
                for (int j = 0; j < 8; ++j) {
                    dst[j] = applySign(dl * float(gridByte(grid, j)), signs[l], j);
                }
                dst += 8;
            }
        }
    }
}

}  // namespace gguf::kernels
