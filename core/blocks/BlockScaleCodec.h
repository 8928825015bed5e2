#pragma once
// How one block of a quantized type stores its scales: how many float super scales and
// effective sub-block scales and mins it yields, and the decoder that reads them. Each
// block-quantized type's row in core/types/GgmlType.cpp carries its codec (TypeTraits::scales);
// BlockScales.h reads tensors through it. The decoders (BlockScaleDecoders.cpp) evaluate the
// float expressions of the type's dequantizer (same operands, same order), so their results are
// ggml's intermediates bit for bit.

#include <array>
#include <cstddef>
#include <cstdint>

namespace gguf {

enum class MinRole : std::uint8_t {
    None,        // no min: value = subScale * level
    Added,       // value = subScale * level + subMin
    Subtracted,  // value = subScale * level - subMin
};

// Decodes one little-endian block: `super`, `sub` and `mins` have room for the codec's per-block
// counts.
using ExtractBlockScalesFn = void (*)(const std::uint8_t* block, float* super, float* sub, float* mins);

struct BlockScaleCodec {
    std::uint32_t superScales = 0;          // float scale fields stored once per block (at most 2)
    std::uint32_t subScales = 0;            // effective scales, one per sub-block
    std::uint32_t subMins = 0;              // effective mins: subScales, or 0 without mins
    std::uint32_t elementsPerSubBlock = 0;  // subScales * elementsPerSubBlock = the block size
    MinRole minRole = MinRole::None;
    std::array<const char*, 2> superNames{};  // ggml's field names of the super scales
    ExtractBlockScalesFn extract = nullptr;   // nullptr: the type has no block scales
};

// Big-endian blocks are decoded from a swapped copy of this size: the largest block with scales
// (Q8_K). The type table checks every codec's block against it.
inline constexpr std::size_t kMaxScaleBlockBytes = 292;

// The decoders, one per storage scheme; the templates take the block layout of
// core/kernels/BlockLayouts.h and are instantiated for the types that use them.
namespace scaledecoders {

// A single f16 d scales every element (Q4_0, Q5_0, Q8_0, IQ4_NL, Q1_0, Q2_0, TQ1_0, TQ2_0).
template <class L> void f16Scale(const std::uint8_t* block, float* super, float* sub, float* mins);
// f16 d and f16 m; value = q * d + m (Q4_1, Q5_1).
template <class L> void f16ScaleAndMin(const std::uint8_t* block, float* super, float* sub, float* mins);
void q8_1Scales(const std::uint8_t* block, float* super, float* sub, float* mins);
void q8_KScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void mxfp4Scales(const std::uint8_t* block, float* super, float* sub, float* mins);
void q2_KScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void q3_KScales(const std::uint8_t* block, float* super, float* sub, float* mins);
// Q4_K, Q5_K: ggml's get_scale_min_k4.
template <class L> void q4_KLikeScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void q6_KScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void iq2_XXSScales(const std::uint8_t* block, float* super, float* sub, float* mins);
// IQ2_XS, IQ2_S: two 4-bit scales per byte.
template <class L> void iq2_XSLikeScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void iq3_XXSScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void iq3_SScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void iq1_SScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void iq1_MScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void iq4_XSScales(const std::uint8_t* block, float* super, float* sub, float* mins);
void nvfp4Scales(const std::uint8_t* block, float* super, float* sub, float* mins);

}  // namespace scaledecoders

}  // namespace gguf
