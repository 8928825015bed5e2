#pragma once
// Per-block scales of block-quantized tensors: the data behind scale histograms and heatmaps.
//
// Every quantized block stores one or two float scales (the "super" scales, e.g. Q4_K's d and
// dmin) and, in most types, small integer codes that turn them into one effective scale (and
// min) per sub-block. This header decodes both, as floats, exactly as the dequantizer uses them:
// for every type the dequantized value of an element is
//
//     value = subScale * level                 (MinRole::None)
//     value = subScale * level + subMin        (MinRole::Added,      Q4_1, Q5_1)
//     value = subScale * level - subMin        (MinRole::Subtracted, Q2_K, Q4_K, Q5_K)
//
// where `level` is what the element's quant bits select: an integer (e.g. q - 8 for Q4_0, q - 32
// for Q6_K), a codebook entry (IQ grids, kvalues_iq4nl, kvalues_fp4 — the latter holds twice the
// E2M1 values, so MXFP4/NVFP4 effective scales are half the format's nominal scale), or
// grid +- delta for IQ1. The float subScale/subMin are the very intermediates ggml computes, so
// recomputing a value from them in ggml's operation order is bit-exact.
//
// Like dequantizeRows, extraction works on block ranges chosen by the caller and writes into
// caller-sized buffers; nothing allocates in proportion to the tensor.

#include "core/base/Result.h"
#include "core/blocks/BlockScaleCodec.h"
#include "core/gguf/TensorInfo.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gguf {

// What one block of a type yields. Arrays are block-major: block i's sub-scales are
// subScales[i * layout.subScales, (i + 1) * layout.subScales).
struct BlockScaleLayout {
    // Float scale fields stored once per block, decoded (f16/f32/E8M0) but not combined with
    // anything: e.g. Q4_K {d, dmin}, Q8_0 {d}, Q8_1 {d, s}, MXFP4 {e = 2^(e-127)}, NVFP4 none.
    std::uint32_t superScales = 0;
    // Effective scales, one per sub-block of elementsPerSubBlock consecutive elements (in
    // element order). Every type has at least one: a type with a single scale per block reports
    // it here too (Q8_0: subScales = 1, equal to d), so heatmaps need no special cases.
    // subScales * elementsPerSubBlock is always the type's block size.
    std::uint32_t subScales = 0;
    // Effective mins, one per sub-block (0 for types without mins). See minRole for the sign.
    std::uint32_t subMins = 0;
    std::uint32_t elementsPerSubBlock = 0;
    MinRole minRole = MinRole::None;
    std::vector<std::string> superScaleNames;  // ggml's field names, superScales entries
};

// The layout of a block-quantized type (its row's BlockScaleCodec), or nullopt for plain (f32, i8, ...), retired and unknown
// type ids.
std::optional<BlockScaleLayout> blockScaleLayout(std::uint32_t typeId);

// Caller-provided destinations, each exactly blockCount times the layout's per-block count
// (an empty span where that count is 0).
struct BlockScaleSpans {
    std::span<float> superScales;
    std::span<float> subScales;
    std::span<float> subMins;
};

// Decodes the scales of blocks [firstBlock, firstBlock + blockCount) of `tensor`, counted in
// storage order over the whole tensor (row r starts at block r * ne[0] / blockSize).
// Big-endian tensors are read through a swapped copy of each block; the mapping is never
// written. Fails, without writing anything, for types without a layout, ranges past the end of
// the tensor and spans of the wrong size.
Status extractBlockScales(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount,
                          const BlockScaleSpans& out);

// The same into vectors sized here. Reusing one BlockScales across calls reuses its memory.
struct BlockScales {
    BlockScaleLayout layout;
    std::uint64_t firstBlock = 0;
    std::uint64_t blockCount = 0;
    std::vector<float> superScales;  // blockCount * layout.superScales
    std::vector<float> subScales;    // blockCount * layout.subScales
    std::vector<float> subMins;      // blockCount * layout.subMins
};
Status extractBlockScales(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount,
                          BlockScales& out);

// Scales of the blocks of rows [rowBegin, rowEnd) (ne[0] / blockSize blocks per row).
Status extractRowScales(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, BlockScales& out);

}  // namespace gguf
