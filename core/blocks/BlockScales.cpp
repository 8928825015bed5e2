#include "core/blocks/BlockScales.h"

#include "core/gguf/MappedRegionGuard.h"
#include "core/gguf/RemoteRegion.h"

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/HalfFloat.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace gguf {

namespace {

using kernels::loadF16;
using kernels::loadF32;
using kernels::loadLe;
namespace b = blocks;

// Decodes one little-endian block: `super`, `sub` and `mins` have room for the type's per-block
// counts. Each float expression below is the one the type's dequantizer evaluates (same
// operands, same order), so the results are ggml's intermediates bit for bit.
using ExtractBlockScalesFn = void (*)(const std::uint8_t* block, float* super, float* sub, float* mins);

// ---- one scale per block ------------------------------------------------------------------

// Q4_0, Q5_0, Q8_0, IQ4_NL, Q1_0, Q2_0, TQ1_0, TQ2_0: a single f16 d (wherever the layout puts
// it) scales every element's level.
template <class L>
void f16Scale(const std::uint8_t* block, float* super, float* sub, float*)
{
    super[0] = sub[0] = loadF16(block + L::d);
}

// Q4_1, Q5_1: f16 d and f16 m; value = q * d + m.
template <class L>
void f16ScaleAndMin(const std::uint8_t* block, float* super, float* sub, float* mins)
{
    super[0] = sub[0] = loadF16(block + L::d);
    super[1] = mins[0] = loadF16(block + L::m);
}

// Q8_1: f16 d and f16 s = d * sum(q). s only serves dot products; it is reported, not applied.
void q8_1Scales(const std::uint8_t* block, float* super, float* sub, float*)
{
    super[0] = sub[0] = loadF16(block + b::Q8_1::d);
    super[1] = loadF16(block + b::Q8_1::s);
}

// Q8_K: an f32 d (the only type with a full-precision block scale).
void q8_KScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    super[0] = sub[0] = loadF32(block + b::Q8_K::d);
}

// MXFP4: one E8M0 exponent e. The format's scale is 2^(e-127); the dequantizer multiplies
// kvalues_fp4 (doubled E2M1 values) by half of it.
void mxfp4Scales(const std::uint8_t* block, float* super, float* sub, float*)
{
    const float half = e8m0ToF32Half(block[b::MXFP4::e]);
    sub[0] = half;
    super[0] = half * 2.0f;  // exact: a power of two times two
}

// ---- K-quants -----------------------------------------------------------------------------

// Q2_K: 16 sub-blocks of 16; scales[j] = 4-bit scale (low nibble) and 4-bit min (high nibble).
void q2_KScales(const std::uint8_t* block, float* super, float* sub, float* mins)
{
    using B = b::Q2_K;
    const float d = super[0] = loadF16(block + B::d);
    const float dmin = super[1] = loadF16(block + B::dmin);
    for (int j = 0; j < 16; ++j) {
        const std::uint8_t sc = block[B::scales + j];
        sub[j] = d * float(sc & 0xF);
        mins[j] = dmin * float(sc >> 4);
    }
}

// Q3_K: 16 sub-blocks of 16; sixteen 6-bit scales (offset 32) in 12 bytes: low 4 bits in the
// nibbles of bytes 0-7 (low nibbles first), high 2 bits in bytes 8-11.
void q3_KScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::Q3_K;
    const float d = super[0] = loadF16(block + B::d);
    const std::uint8_t* packed = block + B::scales;
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? (packed[j] & 0xF) : (packed[j - 8] >> 4);
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        sub[j] = d * float((low | (high << 4)) - 32);
    }
}

// Q4_K, Q5_K: 8 sub-blocks of 32; eight 6-bit scales and eight 6-bit mins in 12 bytes (ggml's
// get_scale_min_k4): sub-blocks 0-3 keep them in bytes 0-3 / 4-7, sub-blocks 4-7 keep the low 4
// bits in the nibbles of bytes 8-11 and the top 2 bits in the spare top bits of bytes 0-7.
template <class L>
void q4_KLikeScales(const std::uint8_t* block, float* super, float* sub, float* mins)
{
    const float d = super[0] = loadF16(block + L::d);
    const float dmin = super[1] = loadF16(block + L::dmin);
    const std::uint8_t* q = block + L::scales;
    for (int j = 0; j < 8; ++j) {
        const int scale = j < 4 ? (q[j] & 63) : ((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        const int min = j < 4 ? (q[j + 4] & 63) : ((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
        sub[j] = d * float(scale);
        mins[j] = dmin * float(min);
    }
}

// Q6_K: 16 sub-blocks of 16, int8 scales[j] for elements 16j..16j+15; value = (d * sc) * (q - 32).
void q6_KScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::Q6_K;
    const float d = super[0] = loadF16(block + B::d);
    for (int j = 0; j < 16; ++j) {
        sub[j] = d * float(static_cast<std::int8_t>(block[B::scales + j]));
    }
}

// ---- IQ types -----------------------------------------------------------------------------

// IQ2_XXS: 8 sub-blocks of 32; each sub-block's 8 qs bytes end in a u32 whose top 4 bits are the
// scale. db = d * (0.5 + s) * 0.25.
void iq2_XXSScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ2_XXS;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint32_t signsAndScale = loadLe<std::uint32_t>(block + B::qs + 8 * ib + 4);
        sub[ib] = d * (0.5f + float(signsAndScale >> 28)) * 0.25f;
    }
}

// IQ2_XS, IQ2_S: 16 sub-blocks of 16; scales[ib] holds the 4-bit scale of elements 32ib..+15
// (low nibble) and 32ib+16..+31 (high nibble). db = d * (0.5 + s) * 0.25.
template <class L>
void iq2_XSLikeScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    const float d = super[0] = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t scales = block[L::scales + ib];
        sub[2 * ib + 0] = d * (0.5f + float(scales & 0xF)) * 0.25f;
        sub[2 * ib + 1] = d * (0.5f + float(scales >> 4)) * 0.25f;
    }
}

// IQ3_XXS: 8 sub-blocks of 32; after the 64 grid-index bytes, one u32 per sub-block whose top 4
// bits are the scale. db = d * (0.5 + s) * 0.5.
void iq3_XXSScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ3_XXS;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint32_t signsAndScale = loadLe<std::uint32_t>(block + B::qs + 64 + 4 * ib);
        sub[ib] = d * (0.5f + float(signsAndScale >> 28)) * 0.5f;
    }
}

// IQ3_S: 8 sub-blocks of 32; scales[4] hold two 4-bit scales each (even sub-block in the low
// nibble). db = d * (1 + 2s), the odd factor computed in integers as ggml does.
void iq3_SScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ3_S;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t scales = block[B::scales + ib / 2];
        const int scale = ib % 2 == 0 ? (scales & 0xF) : (scales >> 4);
        sub[ib] = d * float(1 + 2 * scale);
    }
}

// IQ1_S: 8 sub-blocks of 32; qh[ib] (u16) bits 12-14 are the scale. dl = d * (2s + 1); the
// per-group delta (+-1/8, bit 15) belongs to the level, not the scale.
void iq1_SScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ1_S;
    const float d = super[0] = loadF16(block + B::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint16_t qh = loadLe<std::uint16_t>(block + B::qh + 2 * ib);
        sub[ib] = d * float(2 * ((qh >> 12) & 7) + 1);
    }
}

// IQ1_M: 16 sub-blocks of 16; four u16 `scales` hold four 3-bit scales each in bits 0-11 and,
// in their top nibbles, the four nibbles of the f16 super-block scale d. dl = d * (2s + 1).
void iq1_MScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ1_M;
    const std::uint8_t* scales = block + B::scales;
    const std::uint16_t sc[4] = {loadLe<std::uint16_t>(scales), loadLe<std::uint16_t>(scales + 2),
                                 loadLe<std::uint16_t>(scales + 4), loadLe<std::uint16_t>(scales + 6)};
    const auto dBits = std::uint16_t((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00)
                                     | (sc[3] & 0xF000));
    const float d = super[0] = f16ToF32(dBits);
    for (int j = 0; j < 16; ++j) {
        sub[j] = d * float(2 * ((sc[j / 4] >> (3 * (j % 4))) & 7) + 1);
    }
}

// IQ4_XS: 8 sub-blocks of 32; 6-bit scales (offset 32): low 4 bits = nibble ib%2 of
// scalesL[ib/2], high 2 bits = bits 2ib..2ib+1 of the u16 scalesH. dl = d * (s - 32).
void iq4_XSScales(const std::uint8_t* block, float* super, float* sub, float*)
{
    using B = b::IQ4_XS;
    const float d = super[0] = loadF16(block + B::d);
    const std::uint16_t scalesH = loadLe<std::uint16_t>(block + B::scalesH);
    for (int ib = 0; ib < 8; ++ib) {
        const int low = (block[B::scalesL + ib / 2] >> (4 * (ib % 2))) & 0xF;
        const int high = (scalesH >> (2 * ib)) & 3;
        sub[ib] = d * float((low | (high << 4)) - 32);
    }
}

// NVFP4: no block-wide scale; 4 sub-blocks of 16, each with a UE4M3 scale byte. As for MXFP4 the
// dequantizer applies half of it to the doubled kvalues_fp4.
void nvfp4Scales(const std::uint8_t* block, float*, float* sub, float*)
{
    for (std::size_t s = 0; s < b::NVFP4::elements / b::NVFP4::subBlock; ++s) {
        sub[s] = ue4m3ToF32Half(block[b::NVFP4::d + s]);
    }
}

// ---- the table ----------------------------------------------------------------------------

struct ScaleRow {
    std::uint32_t typeId;
    std::uint32_t blockElements;
    std::uint32_t blockBytes;  // to size the big-endian scratch block
    std::uint32_t superScales;
    std::uint32_t subScales;
    std::uint32_t subMins;
    std::uint32_t elementsPerSubBlock;
    MinRole minRole;
    std::array<const char*, 2> superNames;
    ExtractBlockScalesFn extract;
};

// Sub-blocks must tile the block exactly, and mins, where present, come one per sub-block.
template <class L>
constexpr ScaleRow row(GgmlTypeId typeId, std::uint32_t superScales, std::array<const char*, 2> superNames,
                       std::uint32_t subScales, MinRole minRole, ExtractBlockScalesFn extract)
{
    const std::uint32_t subMins = minRole == MinRole::None ? 0 : subScales;
    return {typeIdValue(typeId), std::uint32_t(L::elements), std::uint32_t(L::bytes), superScales, subScales, subMins,
            std::uint32_t(L::elements) / subScales, minRole, superNames, extract};
}

using T = GgmlTypeId;
constexpr MinRole kNone = MinRole::None, kAdded = MinRole::Added, kSubtracted = MinRole::Subtracted;

// One row per block-quantized type, in type-id order.
constexpr ScaleRow kScaleRows[] = {
    row<b::Q4_0>(T::Q4_0, 1, {"d"}, 1, kNone, f16Scale<b::Q4_0>),
    row<b::Q4_1>(T::Q4_1, 2, {"d", "m"}, 1, kAdded, f16ScaleAndMin<b::Q4_1>),
    row<b::Q5_0>(T::Q5_0, 1, {"d"}, 1, kNone, f16Scale<b::Q5_0>),
    row<b::Q5_1>(T::Q5_1, 2, {"d", "m"}, 1, kAdded, f16ScaleAndMin<b::Q5_1>),
    row<b::Q8_0>(T::Q8_0, 1, {"d"}, 1, kNone, f16Scale<b::Q8_0>),
    row<b::Q8_1>(T::Q8_1, 2, {"d", "s"}, 1, kNone, q8_1Scales),
    row<b::Q2_K>(T::Q2_K, 2, {"d", "dmin"}, 16, kSubtracted, q2_KScales),
    row<b::Q3_K>(T::Q3_K, 1, {"d"}, 16, kNone, q3_KScales),
    row<b::Q4_K>(T::Q4_K, 2, {"d", "dmin"}, 8, kSubtracted, q4_KLikeScales<b::Q4_K>),
    row<b::Q5_K>(T::Q5_K, 2, {"d", "dmin"}, 8, kSubtracted, q4_KLikeScales<b::Q5_K>),
    row<b::Q6_K>(T::Q6_K, 1, {"d"}, 16, kNone, q6_KScales),
    row<b::Q8_K>(T::Q8_K, 1, {"d"}, 1, kNone, q8_KScales),
    row<b::IQ2_XXS>(T::IQ2_XXS, 1, {"d"}, 8, kNone, iq2_XXSScales),
    row<b::IQ2_XS>(T::IQ2_XS, 1, {"d"}, 16, kNone, iq2_XSLikeScales<b::IQ2_XS>),
    row<b::IQ3_XXS>(T::IQ3_XXS, 1, {"d"}, 8, kNone, iq3_XXSScales),
    row<b::IQ1_S>(T::IQ1_S, 1, {"d"}, 8, kNone, iq1_SScales),
    row<b::IQ4_NL>(T::IQ4_NL, 1, {"d"}, 1, kNone, f16Scale<b::IQ4_NL>),
    row<b::IQ3_S>(T::IQ3_S, 1, {"d"}, 8, kNone, iq3_SScales),
    row<b::IQ2_S>(T::IQ2_S, 1, {"d"}, 16, kNone, iq2_XSLikeScales<b::IQ2_S>),
    row<b::IQ4_XS>(T::IQ4_XS, 1, {"d"}, 8, kNone, iq4_XSScales),
    row<b::IQ1_M>(T::IQ1_M, 1, {"d"}, 16, kNone, iq1_MScales),
    row<b::TQ1_0>(T::TQ1_0, 1, {"d"}, 1, kNone, f16Scale<b::TQ1_0>),
    row<b::TQ2_0>(T::TQ2_0, 1, {"d"}, 1, kNone, f16Scale<b::TQ2_0>),
    row<b::MXFP4>(T::MXFP4, 1, {"e"}, 1, kNone, mxfp4Scales),
    row<b::NVFP4>(T::NVFP4, 0, {}, 4, kNone, nvfp4Scales),
    row<b::Q1_0>(T::Q1_0, 1, {"d"}, 1, kNone, f16Scale<b::Q1_0>),
    row<b::Q2_0>(T::Q2_0, 1, {"d"}, 1, kNone, f16Scale<b::Q2_0>),
};

// Big-endian blocks are swapped in a scratch block of this size; Q8_K is the largest.
constexpr std::size_t kMaxBlockBytes = b::Q8_K::bytes;

constexpr bool tableIsWellFormed()
{
    for (std::size_t i = 0; i < std::size(kScaleRows); ++i) {
        const ScaleRow& r = kScaleRows[i];
        const bool namesMatch = (r.superScales < 1 || r.superNames[0]) && (r.superScales < 2 || r.superNames[1]);
        if ((i > 0 && kScaleRows[i - 1].typeId >= r.typeId) || r.superScales > 2 || !namesMatch || r.subScales == 0
            || r.elementsPerSubBlock * r.subScales != r.blockElements || r.blockBytes > kMaxBlockBytes) {
            return false;
        }
    }
    return true;
}
static_assert(tableIsWellFormed(), "scale table must be sorted by id, with named super scales and sub-blocks");

const ScaleRow* findScaleRow(std::uint32_t typeId)
{
    const auto it = std::lower_bound(std::begin(kScaleRows), std::end(kScaleRows), typeId,
                                     [](const ScaleRow& r, std::uint32_t id) { return r.typeId < id; });
    return it != std::end(kScaleRows) && it->typeId == typeId ? it : nullptr;
}

BlockScaleLayout layoutOf(const ScaleRow& r)
{
    BlockScaleLayout layout{r.superScales, r.subScales, r.subMins, r.elementsPerSubBlock, r.minRole, {}};
    layout.superScaleNames.assign(r.superNames.begin(), r.superNames.begin() + r.superScales);
    return layout;
}

Error requestError(const TensorInfo& tensor, const std::string& message)
{
    return Error{"tensor '" + std::string(tensor.name) + "': " + message, Error::kNoOffset, {}};
}

// The table row for `tensor`, once blocks [firstBlock, firstBlock + blockCount) are known to
// be inside it; checked before anything is sized from blockCount.
Result<const ScaleRow*> rowForRequest(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount)
{
    const ScaleRow* r = tensor.traits ? findScaleRow(tensor.typeId) : nullptr;
    if (!r)
        return Error{"tensor '" + std::string(tensor.name) + "' (" + typeName(tensor.typeId)
                         + ") has no block scales: only block-quantized types this build knows have them",
                     tensor.infoOffset, {}};
    const std::uint64_t totalBlocks = tensor.elementCount() / tensor.traits->blockSize;
    if (firstBlock > totalBlocks || blockCount > totalBlocks - firstBlock)
        return requestError(tensor, std::to_string(blockCount) + " blocks from block " + std::to_string(firstBlock)
                                        + " are outside its " + std::to_string(totalBlocks) + " blocks");
    // The parser guarantees this for valid files; checked again because the reads trust it.
    if ((firstBlock + blockCount) * r->blockBytes > tensor.nbytes || (blockCount > 0 && !tensor.data))
        return requestError(tensor, "its data does not cover block " + std::to_string(firstBlock + blockCount - 1));
    return r;
}

}  // namespace

std::optional<BlockScaleLayout> blockScaleLayout(std::uint32_t typeId)
{
    const ScaleRow* r = findScaleRow(typeId);
    return r ? std::optional(layoutOf(*r)) : std::nullopt;
}

Status extractBlockScales(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount,
                          const BlockScaleSpans& out)
{
    const Result<const ScaleRow*> found = rowForRequest(tensor, firstBlock, blockCount);
    if (!found)
        return found.error();
    const ScaleRow& r = **found;
    const std::uint64_t super = blockCount * r.superScales, sub = blockCount * r.subScales,
                        mins = blockCount * r.subMins;
    if (out.superScales.size() != super || out.subScales.size() != sub || out.subMins.size() != mins)
        return requestError(tensor, "scale buffers must hold exactly " + std::to_string(super) + " super scales, "
                                        + std::to_string(sub) + " sub-scales and " + std::to_string(mins) + " mins");

    const bool swap = tensor.bigEndian && tensor.traits->swapBlock;
    std::array<std::uint8_t, kMaxBlockBytes> scratch;
    const std::uint8_t* src = tensor.data + firstBlock * r.blockBytes;
    if (Status fetched = ensureMappedBytes(src, blockCount * r.blockBytes); !fetched)
        return requestError(tensor, fetched.error().message);
    // Bytes of a file truncated under us read as zeros; the watch notices.
    const MappedReadWatch watch(src, blockCount * r.blockBytes);
    for (std::uint64_t i = 0; i < blockCount; ++i, src += r.blockBytes) {
        const std::uint8_t* block = src;
        if (swap) {
            std::memcpy(scratch.data(), src, r.blockBytes);
            tensor.traits->swapBlock(scratch.data());
            block = scratch.data();
        }
        r.extract(block, out.superScales.data() + i * r.superScales, out.subScales.data() + i * r.subScales,
                  out.subMins.data() + i * r.subMins);
    }
    if (watch.bytesLost())
        return tensorChangedOnDisk(tensor, watch.lostAddress());
    return Ok{};
}

Status extractBlockScales(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t blockCount,
                          BlockScales& out)
{
    const Result<const ScaleRow*> found = rowForRequest(tensor, firstBlock, blockCount);
    if (!found)
        return found.error();
    const ScaleRow& r = **found;
    out.layout = layoutOf(r);
    out.firstBlock = firstBlock;
    out.blockCount = blockCount;
    out.superScales.resize(blockCount * r.superScales);
    out.subScales.resize(blockCount * r.subScales);
    out.subMins.resize(blockCount * r.subMins);
    const BlockScaleSpans spans{out.superScales, out.subScales, out.subMins};
    return extractBlockScales(tensor, firstBlock, blockCount, spans);
}

Status extractRowScales(const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, BlockScales& out)
{
    if (rowBegin > rowEnd || rowEnd > tensor.rowCount())
        return requestError(tensor, "rows " + std::to_string(rowBegin) + " to " + std::to_string(rowEnd)
                                        + " are outside its " + std::to_string(tensor.rowCount()) + " rows");
    if (!tensor.traits)
        return extractBlockScales(tensor, 0, 0, out);  // the error names the type
    const std::uint64_t blocksPerRow = static_cast<std::uint64_t>(tensor.ne[0]) / tensor.traits->blockSize;
    return extractBlockScales(tensor, rowBegin * blocksPerRow, (rowEnd - rowBegin) * blocksPerRow, out);
}

}  // namespace gguf
