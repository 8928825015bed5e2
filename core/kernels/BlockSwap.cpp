// Big-endian -> little-endian conversion of one block, in place. Mirrors what gguf-py's endian
// converter does when it writes a big-endian file: plain types are swapped per element; inside
// quantized blocks only the f16/f32 scale fields (and Q8_K's int16 bsums) are swapped, while
// quant bytes stay as they are. Types with no multi-byte field (i8, mxfp4, nvfp4, iq1_m) have no
// swap function at all.

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/ScalarKernels.h"

#include <algorithm>
#include <cstddef>

namespace gguf::kernels {

namespace {

template <std::size_t Width>
inline void reverseBytes(std::uint8_t* p)
{
    std::reverse(p, p + Width);
}

inline void swapF16(std::uint8_t* p) { reverseBytes<2>(p); }

}  // namespace

void swapElement16(std::uint8_t* block) { reverseBytes<2>(block); }
void swapElement32(std::uint8_t* block) { reverseBytes<4>(block); }
void swapElement64(std::uint8_t* block) { reverseBytes<8>(block); }

void swapLeadingF16(std::uint8_t* block)
{
    swapF16(block);
}

void swapLeadingF16Pair(std::uint8_t* block)
{
    swapF16(block);
    swapF16(block + 2);
}

void swapBlockQ2_K(std::uint8_t* block)
{
    swapF16(block + blocks::Q2_K::d);
    swapF16(block + blocks::Q2_K::dmin);
}

void swapBlockQ3_K(std::uint8_t* block) { swapF16(block + blocks::Q3_K::d); }
void swapBlockQ6_K(std::uint8_t* block) { swapF16(block + blocks::Q6_K::d); }

void swapBlockQ8_K(std::uint8_t* block)
{
    using B = blocks::Q8_K;
    reverseBytes<4>(block + B::d);
    for (std::size_t i = 0; i < 16; ++i) {
        reverseBytes<2>(block + B::bsums + 2 * i);
    }
}

void swapBlockTQ1_0(std::uint8_t* block) { swapF16(block + blocks::TQ1_0::d); }
void swapBlockTQ2_0(std::uint8_t* block) { swapF16(block + blocks::TQ2_0::d); }

}  // namespace gguf::kernels
