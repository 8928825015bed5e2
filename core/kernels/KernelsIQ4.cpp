// IQ4 types: 4-bit indices into the non-linear table kvalues_iq4nl, nibble layout as Q4_0 (byte j
// = element j low nibble, element j + 16 high nibble).

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/ScalarKernels.h"

namespace gguf::kernels {

using codebooks::kvalues_iq4nl;

// IQ4_NL (18 bytes, 32 elements): f16 d, qs[16]. value = d * kvalues_iq4nl[nibble].
void dequantizeIQ4_NL(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ4_NL;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes, dst += B::elements) {
        const float d = loadF16(src + B::d);
        const std::uint8_t* qs = src + B::qs;
        for (int j = 0; j < 16; ++j) {
            dst[j] = d * float(kvalues_iq4nl[qs[j] & 0xF]);
            dst[j + 16] = d * float(kvalues_iq4nl[qs[j] >> 4]);
        }
    }
}

// IQ4_XS (136 bytes): f16 d, u16 scalesH, scalesL[4], qs[128]. Sub-block ib (32 elements) has a
// 6-bit scale: low 4 bits = nibble ib%2 of scalesL[ib/2], high 2 bits = bits 2ib..2ib+1 of
// scalesH. value = (d * (scale - 32)) * kvalues_iq4nl[nibble].
void dequantizeIQ4_XS(const std::uint8_t* src, float* dst, std::size_t blockCount)
{
    using B = blocks::IQ4_XS;
    for (std::size_t b = 0; b < blockCount; ++b, src += B::bytes) {
        const float d = loadF16(src + B::d);
        const std::uint16_t scalesH = loadLe<std::uint16_t>(src + B::scalesH);
        const std::uint8_t* scalesL = src + B::scalesL;
        const std::uint8_t* qs = src + B::qs;
        for (int ib = 0; ib < 8; ++ib, qs += 16, dst += 32) {
            const int ls = ((scalesL[ib / 2] >> (4 * (ib % 2))) & 0xF) | (((scalesH >> (2 * ib)) & 3) << 4);
            const float dl = d * float(ls - 32);
            for (int j = 0; j < 16; ++j) {
                dst[j] = dl * float(kvalues_iq4nl[qs[j] & 0xF]);
                dst[j + 16] = dl * float(kvalues_iq4nl[qs[j] >> 4]);
            }
        }
    }
}

}  // namespace gguf::kernels
