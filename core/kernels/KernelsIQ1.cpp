// IQ1 types: 8-element groups taken from iq1s_grid (values -1, 0, 1) shifted by +-IQ1S_DELTA and
// scaled per 32 (IQ1_S) or 16 (IQ1_M) elements: value = dl * (grid + delta), dl = d * (2s + 1).

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/IqGrid.h"
#include "core/kernels/ScalarKernels.h"

namespace gguf::kernels {

using codebooks::IQ1S_DELTA;
using codebooks::iq1s_grid;

// IQ1_S (50 bytes): f16 d, qs[32] (grid index low 8 bits per group), qh[8] u16 per 32-element
// sub-block: bits 3l..3l+2 = high index bits of group l, bits 12-14 = scale, bit 15 = delta sign.
void dequantizeIQ1_S(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ1_S;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        for (int ib = 0; ib < 8; ++ib, qs += 4) {
            const std::uint16_t qh = loadLe<std::uint16_t>(src + B::qh + 2 * ib);
            const float dl = d * float(2 * ((qh >> 12) & 7) + 1);
            const float delta = (qh & 0x8000) ? -IQ1S_DELTA : IQ1S_DELTA;
            for (int l = 0; l < 4; ++l) {
                const std::uint64_t grid = iq1s_grid[qs[l] | (((qh >> (3 * l)) & 7) << 8)];
                for (int j = 0; j < 8; ++j) {
                    dst[j] = dl * (float(gridSignedByte(grid, j)) + delta);
                }
                dst += 8;
            }
        }
    }
}

// IQ1_M (56 bytes): qs[32] (grid index low 8 bits per group), qh[16] (per pair of groups: high
// index bits in bits 0-2 / 4-6, delta sign in bit 3 / 7), scales[8] read as four u16: 3-bit
// scales in bits 0-11 (four per u16, one per 16 elements) and the f16 super-block scale spread
// over the top nibbles (u16 k's top nibble = bits 4k..4k+3 of the f16).
void dequantizeIQ1_M(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ1_M;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        std::uint16_t sc[4];
        for (int k = 0; k < 4; ++k) {
            sc[k] = loadLe<std::uint16_t>(src + B::scales + 2 * k);
        }
        const std::uint16_t dBits = std::uint16_t((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0)
                                                  | ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
        const float d = f16ToF32(dBits);
        const std::uint8_t* qs = src + B::qs;
        const std::uint8_t* qh = src + B::qh;
        for (int ib = 0; ib < 8; ++ib, qs += 4, qh += 2) {
            const int shift = 6 * (ib % 2);
            const float dl1 = d * float(2 * ((sc[ib / 2] >> (shift + 0)) & 7) + 1);
            const float dl2 = d * float(2 * ((sc[ib / 2] >> (shift + 3)) & 7) + 1);
            const int index[4] = {qs[0] | ((qh[0] << 8) & 0x700), qs[1] | ((qh[0] << 4) & 0x700),
                                  qs[2] | ((qh[1] << 8) & 0x700), qs[3] | ((qh[1] << 4) & 0x700)};
            // ggml uses IQ1S_DELTA here too (IQ1M_DELTA has the same value).
            const float delta[4] = {(qh[0] & 0x08) ? -IQ1S_DELTA : IQ1S_DELTA,
                                    (qh[0] & 0x80) ? -IQ1S_DELTA : IQ1S_DELTA,
                                    (qh[1] & 0x08) ? -IQ1S_DELTA : IQ1S_DELTA,
                                    (qh[1] & 0x80) ? -IQ1S_DELTA : IQ1S_DELTA};
            for (int l = 0; l < 4; ++l) {
                const float dl = l < 2 ? dl1 : dl2;
                const std::uint64_t grid = iq1s_grid[index[l]];
                for (int j = 0; j < 8; ++j) {
                    dst[j] = dl * (float(gridSignedByte(grid, j)) + delta[l]);
                }
                dst += 8;
            }
        }
    }
}

}  // namespace gguf::kernels
