#include "core/types/GgmlType.h"

#include "core/blocks/BlockFieldLayouts.h"
#include "core/kernels/BlockLayouts.h"
#include "core/kernels/IsaKernels.h"
#include "core/kernels/ScalarKernels.h"
#include "core/quantize/Quantizers.h"
#include "core/quantize/WeightedQuantizers.h"

#include <array>
#include <cstddef>

namespace gguf {

namespace {

using namespace kernels;
namespace b = blocks;

// ggml's own block-size assertions (ggml-common.h), restated over our layouts: each block is the
// sum of its fields, with no padding.
constexpr std::size_t kHalf = 2;
constexpr std::size_t QK_K = b::QK_K;
static_assert(b::Q4_0::bytes == kHalf + 32 / 2);
static_assert(b::Q4_1::bytes == 2 * kHalf + 32 / 2);
static_assert(b::Q5_0::bytes == kHalf + 4 + 32 / 2);
static_assert(b::Q5_1::bytes == 2 * kHalf + 4 + 32 / 2);
static_assert(b::Q8_0::bytes == kHalf + 32);
static_assert(b::Q8_1::bytes == 2 * kHalf + 32);
static_assert(b::Q2_K::bytes == 2 * kHalf + QK_K / 16 + QK_K / 4);
static_assert(b::Q3_K::bytes == kHalf + QK_K / 4 + QK_K / 8 + 12);
static_assert(b::Q4_K::bytes == 2 * kHalf + 12 + QK_K / 2);
static_assert(b::Q5_K::bytes == 2 * kHalf + 12 + QK_K / 2 + QK_K / 8);
static_assert(b::Q6_K::bytes == kHalf + QK_K / 16 + 3 * QK_K / 4);
static_assert(b::Q8_K::bytes == 4 + QK_K + QK_K / 16 * 2);
static_assert(b::IQ2_XXS::bytes == kHalf + QK_K / 8 * 2);
static_assert(b::IQ2_XS::bytes == kHalf + QK_K / 8 * 2 + QK_K / 32);
static_assert(b::IQ2_S::bytes == kHalf + QK_K / 4 + QK_K / 16);
static_assert(b::IQ3_XXS::bytes == kHalf + 3 * (QK_K / 8));
static_assert(b::IQ3_S::bytes == kHalf + 13 * (QK_K / 32) + QK_K / 64);
static_assert(b::IQ1_S::bytes == kHalf + QK_K / 8 + QK_K / 16);
static_assert(b::IQ1_M::bytes == QK_K / 8 + QK_K / 16 + QK_K / 32);
static_assert(b::IQ4_NL::bytes == kHalf + 32 / 2);
static_assert(b::IQ4_XS::bytes == kHalf + 2 + QK_K / 64 + QK_K / 2);
static_assert(b::TQ1_0::bytes == kHalf + QK_K / 64 + (QK_K - 4 * QK_K / 64) / 5);
static_assert(b::TQ2_0::bytes == kHalf + QK_K / 4);
static_assert(b::MXFP4::bytes == 1 + 32 / 2);
static_assert(b::NVFP4::bytes == b::NVFP4::elements / b::NVFP4::subBlock + b::NVFP4::elements / 2);
static_assert(b::Q1_0::bytes == kHalf + 128 / 8);
static_assert(b::Q2_0::bytes == kHalf + 64 / 4);

using KernelSet = std::array<DequantizeBlocksFn, kKernelIsaCount>;  // indexed by KernelIsa

// A type's kernels: the scalar one and, on x86-64, its SSE4.1 and AVX2 variants (IsaKernels.h).
#if GGUFX_X86_KERNELS
#define GGUFX_KERNELS(Name) KernelSet{dequantize##Name, sse41::dequantize##Name, avx2::dequantize##Name}
#else
#define GGUFX_KERNELS(Name) KernelSet{dequantize##Name, nullptr, nullptr}
#endif
constexpr KernelSet scalarOnly(DequantizeBlocksFn kernel)
{
    return {kernel, nullptr, nullptr};
}

// A row under construction: sizes, kernels and byte swap first, then what else the type has.
// `dequantize` starts as the scalar kernel; dispatchedTypes() below replaces it.
struct Row {
    TypeTraits t;

    // A copy of this row with `set` applied to its traits: every builder below is one of these.
    template <class Set>
    constexpr Row with(Set set) const
    {
        Row r = *this;
        set(r.t);
        return r;
    }
    constexpr Row quantizedBy(QuantizeBlocksFn plain, QuantizeRowFn weighted = nullptr) const
    {
        return with([&](TypeTraits& r) { r.quantize = plain; r.quantizeWeighted = weighted; });
    }
    constexpr Row withFields(std::span<const BlockField> fields) const
    {
        return with([&](TypeTraits& r) { r.fields = fields; });
    }
    // `subScales` sub-blocks of equal size; mins, where the type has them, one per sub-block.
    constexpr Row withScales(std::uint32_t superScales, std::array<const char*, 2> superNames, std::uint32_t subScales,
                             MinRole minRole, ExtractBlockScalesFn extract) const
    {
        return with([&](TypeTraits& r) {
            r.scales = {superScales, subScales, minRole == MinRole::None ? 0 : subScales, r.blockSize / subScales, minRole, superNames, extract};
        });
    }
    constexpr Row inFileType(std::int32_t llamaFileType) const
    {
        return with([&](TypeTraits& r) { r.llamaFileType = llamaFileType; });
    }
    // llama.cpp's CPU product (CpuProduct): the activation type, ggml_vec_dot, and what else
    // multiplies the type for some shapes.
    constexpr Row multipliedAs(GgmlTypeId activations, RowDotFn vecDot = nullptr) const
    {
        return with([&](TypeTraits& r) { r.cpu.activations = activations; r.cpu.vecDot = vecDot; });
    }
    constexpr Row withTinyBlas(RowDotFn kernel) const
    {
        return with([&](TypeTraits& r) { r.cpu.tinyBlas = kernel; });
    }
    constexpr Row repackedAs(RepackedLayout layout, RowDotFn gemv, RowDotFn gemm) const
    {
        return with([&](TypeTraits& r) { r.cpu.repacked = layout; r.cpu.repackedGemv = gemv; r.cpu.repackedGemm = gemm; });
    }
    constexpr Row withPanel(RowDotFn kernel) const
    {
        return with([&](TypeTraits& r) { r.cpu.panel = kernel; });
    }
    constexpr operator TypeTraits() const { return t; }
};

template <class Layout>
constexpr Row row(GgmlTypeId id, const char* name, TypeKind kind, KernelSet kernels, SwapBlockFn swapBlock)
{
    return {{typeIdValue(id), name, std::uint32_t(Layout::elements), std::uint32_t(Layout::bytes), kind, kernels[0], swapBlock, kernels}};
}

using T = GgmlTypeId;
constexpr TypeKind kFloat = TypeKind::Float;
constexpr TypeKind kInt = TypeKind::Integer;
constexpr TypeKind kQuant = TypeKind::Quantized;
constexpr MinRole kNone = MinRole::None, kAdded = MinRole::Added, kSubtracted = MinRole::Subtracted;
namespace q = quantize;
namespace f = blockfields;
namespace s = scaledecoders;
namespace d = ggmldot;
using RL = RepackedLayout;

// The one table of per-type facts, in id order. Names are ggml's type_traits names.
constexpr TypeTraits kTypes[] = {
    row<b::F32>(T::F32, "f32", kFloat, GGUFX_KERNELS(F32), swapElement32).quantizedBy(q::quantizeF32).inFileType(0).multipliedAs(T::F32),
    row<b::F16>(T::F16, "f16", kFloat, GGUFX_KERNELS(F16), swapElement16).quantizedBy(q::quantizeF16).inFileType(1).multipliedAs(T::F16),
    row<b::Q4_0>(T::Q4_0, "q4_0", kQuant, GGUFX_KERNELS(Q4_0), swapLeadingF16)
        .quantizedBy(q::quantizeQ4_0, q::quantizeRowQ4_0Weighted)
        .withFields(f::kQ4_0)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::Q4_0>)
        .inFileType(2)
        .multipliedAs(T::Q8_0, d::q4_0)
        .withTinyBlas(d::q4_0)
        .repackedAs(RL::Q4_0_8x8, d::q4_0x8, d::q4_0x8),
    row<b::Q4_1>(T::Q4_1, "q4_1", kQuant, GGUFX_KERNELS(Q4_1), swapLeadingF16Pair)
        .quantizedBy(q::quantizeQ4_1, q::quantizeRowQ4_1Weighted)
        .withFields(f::kQ4_1)
        .withScales(2, {"d", "m"}, 1, kAdded, s::f16ScaleAndMin<b::Q4_1>)
        .inFileType(3)
        .multipliedAs(T::Q8_1, d::q4_1),
    row<b::Q5_0>(T::Q5_0, "q5_0", kQuant, GGUFX_KERNELS(Q5_0), swapLeadingF16)
        .quantizedBy(q::quantizeQ5_0, q::quantizeRowQ5_0Weighted)
        .withFields(f::kQ5_0)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::Q5_0>)
        .inFileType(8)
        .multipliedAs(T::Q8_0, d::q5_0)
        .withTinyBlas(d::q5_0),
    row<b::Q5_1>(T::Q5_1, "q5_1", kQuant, GGUFX_KERNELS(Q5_1), swapLeadingF16Pair)
        .quantizedBy(q::quantizeQ5_1, q::quantizeRowQ5_1Weighted)
        .withFields(f::kQ5_1)
        .withScales(2, {"d", "m"}, 1, kAdded, s::f16ScaleAndMin<b::Q5_1>)
        .inFileType(9)
        .multipliedAs(T::Q8_1, d::q5_1),
    row<b::Q8_0>(T::Q8_0, "q8_0", kQuant, GGUFX_KERNELS(Q8_0), swapLeadingF16)
        .quantizedBy(q::quantizeQ8_0)
        .withFields(f::kQ8_0)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::Q8_0>)
        .inFileType(7)
        .multipliedAs(T::Q8_0, d::q8_0)
        .withTinyBlas(d::q8_0),
    row<b::Q8_1>(T::Q8_1, "q8_1", kQuant, GGUFX_KERNELS(Q8_1), swapLeadingF16Pair)
        .withFields(f::kQ8_1)
        .withScales(2, {"d", "s"}, 1, kNone, s::q8_1Scales),
    row<b::Q2_K>(T::Q2_K, "q2_K", kQuant, GGUFX_KERNELS(Q2_K), swapBlockQ2_K)
        .quantizedBy(q::quantizeQ2_K, q::quantizeRowQ2_KWeighted)
        .withFields(f::kQ2_K)
        .withScales(2, {"d", "dmin"}, 16, kSubtracted, s::q2_KScales)
        .inFileType(10)
        .multipliedAs(T::Q8_K, d::q2_K),
    row<b::Q3_K>(T::Q3_K, "q3_K", kQuant, GGUFX_KERNELS(Q3_K), swapBlockQ3_K)
        .quantizedBy(q::quantizeQ3_K, q::quantizeRowQ3_KWeighted)
        .withFields(f::kQ3_K)
        .withScales(1, {"d"}, 16, kNone, s::q3_KScales)
        .inFileType(12)
        .multipliedAs(T::Q8_K, d::q3_K),
    row<b::Q4_K>(T::Q4_K, "q4_K", kQuant, GGUFX_KERNELS(Q4_K), swapLeadingF16Pair)
        .quantizedBy(q::quantizeQ4_K, q::quantizeRowQ4_KWeighted)
        .withFields(f::kQ4_K)
        .withScales(2, {"d", "dmin"}, 8, kSubtracted, s::q4_KLikeScales<b::Q4_K>)
        .inFileType(15)
        .multipliedAs(T::Q8_K, d::q4_K)
        .repackedAs(RL::Q4_K_8x8, d::q4_Kx8Gemv, d::q4_Kx8Gemm),
    row<b::Q5_K>(T::Q5_K, "q5_K", kQuant, GGUFX_KERNELS(Q5_K), swapLeadingF16Pair)
        .quantizedBy(q::quantizeQ5_K, q::quantizeRowQ5_KWeighted)
        .withFields(f::kQ5_K)
        .withScales(2, {"d", "dmin"}, 8, kSubtracted, s::q4_KLikeScales<b::Q5_K>)
        .inFileType(17)
        .multipliedAs(T::Q8_K, d::q5_K),
    row<b::Q6_K>(T::Q6_K, "q6_K", kQuant, GGUFX_KERNELS(Q6_K), swapBlockQ6_K)
        .quantizedBy(q::quantizeQ6_K, q::quantizeRowQ6_KWeighted)
        .withFields(f::kQ6_K)
        .withScales(1, {"d"}, 16, kNone, s::q6_KScales)
        .inFileType(18)
        .multipliedAs(T::Q8_K, d::q6_K),
    row<b::Q8_K>(T::Q8_K, "q8_K", kQuant, GGUFX_KERNELS(Q8_K), swapBlockQ8_K)
        .quantizedBy(q::quantizeQ8_K)
        .withFields(f::kQ8_K)
        .withScales(1, {"d"}, 1, kNone, s::q8_KScales),
    row<b::IQ2_XXS>(T::IQ2_XXS, "iq2_xxs", kQuant, GGUFX_KERNELS(IQ2_XXS), swapLeadingF16)
        .quantizedBy(nullptr, q::quantizeRowIQ2_XXS)
        .withFields(f::kIQ2_XXS)
        .withScales(1, {"d"}, 8, kNone, s::iq2_XXSScales)
        .multipliedAs(T::Q8_K, d::iq2_xxs)
        .withPanel(d::iq2_xxsPanel),
    row<b::IQ2_XS>(T::IQ2_XS, "iq2_xs", kQuant, GGUFX_KERNELS(IQ2_XS), swapLeadingF16)
        .quantizedBy(nullptr, q::quantizeRowIQ2_XS)
        .withFields(f::kIQ2_XS)
        .withScales(1, {"d"}, 16, kNone, s::iq2_XSLikeScales<b::IQ2_XS>)
        .multipliedAs(T::Q8_K, d::iq2_xs)
        .withPanel(d::iq2_xsPanel),
    row<b::IQ3_XXS>(T::IQ3_XXS, "iq3_xxs", kQuant, GGUFX_KERNELS(IQ3_XXS), swapLeadingF16)
        .quantizedBy(q::quantizeIQ3_XXS, q::quantizeRowIQ3_XXS)
        .withFields(f::kIQ3_XXS)
        .withScales(1, {"d"}, 8, kNone, s::iq3_XXSScales)
        .multipliedAs(T::Q8_K, d::iq3_xxs)
        .withPanel(d::iq3_xxsPanel),
    row<b::IQ1_S>(T::IQ1_S, "iq1_s", kQuant, GGUFX_KERNELS(IQ1_S), swapLeadingF16)
        .quantizedBy(nullptr, q::quantizeRowIQ1_S)
        .withFields(f::kIQ1_S)
        .withScales(1, {"d"}, 8, kNone, s::iq1_SScales)
        .multipliedAs(T::Q8_K, d::iq1_s)
        .withPanel(d::iq1_sPanel),
    row<b::IQ4_NL>(T::IQ4_NL, "iq4_nl", kQuant, GGUFX_KERNELS(IQ4_NL), swapLeadingF16)
        .quantizedBy(q::quantizeIQ4_NL, q::quantizeRowIQ4_NL)
        .withFields(f::kIQ4_NL)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::IQ4_NL>)
        .multipliedAs(T::Q8_0, d::iq4_nl)
        .withTinyBlas(d::iq4_nlLanes)
        .repackedAs(RL::IQ4_NL_8x8, d::iq4_nlx8, d::iq4_nlx8),
    row<b::IQ3_S>(T::IQ3_S, "iq3_s", kQuant, GGUFX_KERNELS(IQ3_S), swapLeadingF16)
        .quantizedBy(q::quantizeIQ3_S, q::quantizeRowIQ3_S)
        .withFields(f::kIQ3_S)
        .withScales(1, {"d"}, 8, kNone, s::iq3_SScales)
        .multipliedAs(T::Q8_K, d::iq3_s)
        .withPanel(d::iq3_sPanel),
    row<b::IQ2_S>(T::IQ2_S, "iq2_s", kQuant, GGUFX_KERNELS(IQ2_S), swapLeadingF16)
        .quantizedBy(q::quantizeIQ2_S, q::quantizeRowIQ2_S)
        .withFields(f::kIQ2_S)
        .withScales(1, {"d"}, 16, kNone, s::iq2_XSLikeScales<b::IQ2_S>)
        .multipliedAs(T::Q8_K, d::iq2_s)
        .withPanel(d::iq2_sPanel),
    row<b::IQ4_XS>(T::IQ4_XS, "iq4_xs", kQuant, GGUFX_KERNELS(IQ4_XS), swapLeadingF16)
        .quantizedBy(q::quantizeIQ4_XS, q::quantizeRowIQ4_XS)
        .withFields(f::kIQ4_XS)
        .withScales(1, {"d"}, 8, kNone, s::iq4_XSScales)
        .multipliedAs(T::Q8_K, d::iq4_xs)
        .withPanel(d::iq4_xsPanel),
    row<b::I8>(T::I8, "i8", kInt, GGUFX_KERNELS(I8), nullptr),
    row<b::I16>(T::I16, "i16", kInt, GGUFX_KERNELS(I16), swapElement16),
    row<b::I32>(T::I32, "i32", kInt, GGUFX_KERNELS(I32), swapElement32),
    row<b::I64>(T::I64, "i64", kInt, scalarOnly(dequantizeI64), swapElement64),
    row<b::F64>(T::F64, "f64", kFloat, GGUFX_KERNELS(F64), swapElement64),
    // IQ1_M's super scale d has no field of its own: its nibbles sit in the tops of `scales`.
    row<b::IQ1_M>(T::IQ1_M, "iq1_m", kQuant, GGUFX_KERNELS(IQ1_M), nullptr)
        .quantizedBy(q::quantizeIQ1_M, q::quantizeRowIQ1_M)
        .withFields(f::kIQ1_M)
        .withScales(1, {"d"}, 16, kNone, s::iq1_MScales)
        .multipliedAs(T::Q8_K, d::iq1_m)
        .withPanel(d::iq1_mPanel),
    row<b::BF16>(T::BF16, "bf16", kFloat, GGUFX_KERNELS(BF16), swapElement16).quantizedBy(q::quantizeBF16).inFileType(32).multipliedAs(T::BF16),
    row<b::TQ1_0>(T::TQ1_0, "tq1_0", kQuant, GGUFX_KERNELS(TQ1_0), swapBlockTQ1_0)
        .quantizedBy(q::quantizeTQ1_0)
        .withFields(f::kTQ1_0)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::TQ1_0>)
        .multipliedAs(T::Q8_K, d::tq1_0),
    row<b::TQ2_0>(T::TQ2_0, "tq2_0", kQuant, GGUFX_KERNELS(TQ2_0), swapBlockTQ2_0)
        .quantizedBy(q::quantizeTQ2_0)
        .withFields(f::kTQ2_0)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::TQ2_0>)
        .multipliedAs(T::Q8_K, d::tq2_0),
    row<b::MXFP4>(T::MXFP4, "mxfp4", kQuant, GGUFX_KERNELS(MXFP4), nullptr)
        .quantizedBy(q::quantizeMXFP4)
        .withFields(f::kMXFP4)
        .withScales(1, {"e"}, 1, kNone, s::mxfp4Scales)
        .multipliedAs(T::Q8_0, d::mxfp4)
        .repackedAs(RL::MXFP4_8x8, d::mxfp4x8, d::mxfp4x8),
    row<b::NVFP4>(T::NVFP4, "nvfp4", kQuant, GGUFX_KERNELS(NVFP4), nullptr)
        .quantizedBy(q::quantizeNVFP4)
        .withFields(f::kNVFP4)
        .withScales(0, {}, 4, kNone, s::nvfp4Scales)
        .multipliedAs(T::Q8_0, d::nvfp4),
    row<b::Q1_0>(T::Q1_0, "q1_0", kQuant, GGUFX_KERNELS(Q1_0), swapLeadingF16)
        .quantizedBy(q::quantizeQ1_0)
        .withFields(f::kQ1_0)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::Q1_0>)
        .multipliedAs(T::Q8_0, d::q1_0),
    row<b::Q2_0>(T::Q2_0, "q2_0", kQuant, GGUFX_KERNELS(Q2_0), swapLeadingF16)
        .quantizedBy(q::quantizeQ2_0)
        .withFields(f::kQ2_0)
        .withScales(1, {"d"}, 1, kNone, s::f16Scale<b::Q2_0>)
        .multipliedAs(T::Q8_0, d::q2_0),
};

constexpr std::size_t kTypeCount = std::size(kTypes);
constexpr std::uint32_t kRetiredIds[] = {4, 5, 31, 32, 33, 36, 37, 38};

constexpr bool isRetired(std::uint32_t id)
{
    for (const std::uint32_t retired : kRetiredIds) {
        if (retired == id) {
            return true;
        }
    }
    return false;
}

constexpr bool tableIsWellFormed()
{
    for (std::size_t i = 0; i < kTypeCount; ++i) {
        const TypeTraits& t = kTypes[i];
        if ((i > 0 && kTypes[i - 1].id >= t.id) || isRetired(t.id) || t.blockSize == 0 || t.blockBytes == 0) {
            return false;
        }
    }
    return true;
}
static_assert(tableIsWellFormed(), "type table must be sorted by id, skip retired ids, and have non-empty blocks");

constexpr bool tableMatchesTypeIds()
{
    if (std::size(kGgmlTypeIds) != kTypeCount)
        return false;
    for (std::size_t i = 0; i < kTypeCount; ++i)
        if (kTypes[i].id != typeIdValue(kGgmlTypeIds[i]))
            return false;
    return true;
}
static_assert(tableMatchesTypeIds(), "the type table must have one row per GgmlTypeId, in the same order");

constexpr bool sameText(const char* a, const char* b)
{
    for (; *a && *a == *b; ++a, ++b) {
    }
    return *a == *b;
}

// A quantized type's fields tile its block in byte order, from byte 0 to the last; plain types
// have none.
constexpr bool fieldsTileTheBlock(const TypeTraits& t)
{
    if (t.kind != TypeKind::Quantized)
        return t.fields.empty();
    std::uint32_t end = 0;
    for (const BlockField& field : t.fields) {
        if (field.offset != end || field.size == 0)
            return false;
        end += field.size;
    }
    return !t.fields.empty() && end == t.blockBytes;
}

// A quantized type's scale sub-blocks tile its block, each super scale is named after a float
// field of the block (IQ1_M keeps d in the top nibbles of its scales), and a big-endian block
// fits the decoder's scratch copy; plain types have no codec. (Whether the decoder pointer is set
// is checked by tst_type_table: GCC does not fold the address of an explicitly instantiated
// template against null in a constant expression under -fsanitize, so it cannot be asserted here.)
constexpr bool scalesDescribeTheBlock(const TypeTraits& t)
{
    const BlockScaleCodec& c = t.scales;
    if (t.kind != TypeKind::Quantized)
        return c.subScales == 0 && c.superScales == 0;
    if (c.subScales == 0 || c.elementsPerSubBlock * c.subScales != t.blockSize || c.superScales > 2
        || t.blockBytes > kMaxScaleBlockBytes)
        return false;
    for (std::uint32_t i = 0; i < c.superScales; ++i) {
        if (!c.superNames[i])
            return false;
        bool named = t.id == typeIdValue(T::IQ1_M);
        for (const BlockField& field : t.fields)
            named = named || (field.encoding != FieldEncoding::Packed && sameText(field.name, c.superNames[i]));
        if (!named)
            return false;
    }
    return true;
}

// Integers are never quantized to; importance weights only steer block quantizers.
constexpr bool quantizersFitTheKind(const TypeTraits& t)
{
    return (t.kind != TypeKind::Integer || (!t.quantize && !t.quantizeWeighted))
        && (t.kind == TypeKind::Quantized || !t.quantizeWeighted);
}

// The row of a type id in kTypes (every activation type has one).
constexpr const TypeTraits* rowOf(GgmlTypeId id)
{
    for (const TypeTraits& t : kTypes)
        if (t.id == typeIdValue(id))
            return &t;
    return nullptr;
}

// llama.cpp's product (CpuProduct): float types keep their own activations and have no block
// kernels; every quantized type but the q8 activation types (q8_1, q8_K: no vec_dot) has
// q8_0, q8_1 or q8_K activations whose blocks tile its own, and its vec_dot; integer types
// have nothing. tinyBLAS takes q8_0 activations only; a repacked layout has both kernels and
// the activations its layout takes; the panel is for q8_K activations and 256-value blocks.
constexpr bool productFitsTheType(const TypeTraits& t)
{
    const CpuProduct& p = t.cpu;
    const bool kernels = p.vecDot || p.tinyBlas || p.repackedGemv || p.repackedGemm || p.panel || p.repacked != RepackedLayout::None;
    if (t.kind == TypeKind::Integer)
        return p.activations == T::F32 && !kernels;
    if (t.kind == TypeKind::Float)
        return (p.activations == t.typeId() || (t.is(T::F64) && p.activations == T::F32)) && !kernels;
    if (t.is(T::Q8_1) || t.is(T::Q8_K))
        return p.activations == T::F32 && !kernels;
    const bool q8 = p.activations == T::Q8_0 || p.activations == T::Q8_1 || p.activations == T::Q8_K;
    const TypeTraits* activations = rowOf(p.activations);
    if (!q8 || !activations || !p.vecDot || t.blockSize % activations->blockSize != 0)
        return false;
    if (p.tinyBlas && p.activations != T::Q8_0)
        return false;
    const RepackedLayout layout = p.repacked;
    if ((layout != RepackedLayout::None) != (p.repackedGemv && p.repackedGemm))
        return false;
    if (layout != RepackedLayout::None && p.activations != (layout == RepackedLayout::Q4_K_8x8 ? T::Q8_K : T::Q8_0))
        return false;
    return !p.panel || (p.activations == T::Q8_K && t.blockSize == 256);
}

constexpr bool fileTypesAreDistinct()
{
    for (std::size_t i = 0; i < kTypeCount; ++i)
        for (std::size_t j = i + 1; j < kTypeCount; ++j)
            if (kTypes[i].llamaFileType >= 0 && kTypes[i].llamaFileType == kTypes[j].llamaFileType)
                return false;
    return true;
}

constexpr bool everyRow(bool (*check)(const TypeTraits&))
{
    for (const TypeTraits& t : kTypes)
        if (!check(t))
            return false;
    return true;
}
static_assert(everyRow(fieldsTileTheBlock), "a quantized type's block fields must tile its block in byte order");
static_assert(everyRow(scalesDescribeTheBlock), "a quantized type's scale codec must tile its block and name float fields");
static_assert(everyRow(quantizersFitTheKind), "quantizers only for float and block types, importance only for block types");
static_assert(fileTypesAreDistinct(), "one llama_ftype belongs to one type");
static_assert(everyRow(productFitsTheType), "every quantized type needs llama.cpp's activation type and vec_dot, fitting its block");

// findType is a lookup in this id -> table index map (-1 = no traits).
constexpr std::uint32_t kIdLimit = kTypes[kTypeCount - 1].id + 1;
constexpr auto kIndexById = [] {
    std::array<std::int8_t, kIdLimit> index{};
    index.fill(-1);
    for (std::size_t i = 0; i < kTypeCount; ++i) {
        index[kTypes[i].id] = static_cast<std::int8_t>(i);
    }
    return index;
}();
static_assert(kTypeCount <= 127);

// The best kernel of `type` at or below `cap` that this CPU runs (the scalar one at worst).
DequantizeBlocksFn bestKernel(const TypeTraits& type, KernelIsa cap)
{
    for (std::size_t isa = static_cast<std::size_t>(cap) + 1; isa-- > 0;) {
        if (type.kernels[isa] && kernelIsaSupported(static_cast<KernelIsa>(isa)))
            return type.kernels[isa];
    }
    return type.kernels[0];
}

// kTypes with `dequantize` set to the best variant, built on first use (thread-safe). Every
// lookup goes through this copy, so callers never see a kernel the CPU cannot run.
const std::array<TypeTraits, kTypeCount>& dispatchedTypes()
{
    static const std::array<TypeTraits, kTypeCount> table = [] {
        std::array<TypeTraits, kTypeCount> types{};
        const KernelIsa cap = preferredKernelIsa();
        for (std::size_t i = 0; i < kTypeCount; ++i) {
            types[i] = kTypes[i];
            types[i].dequantize = bestKernel(kTypes[i], cap);
        }
        return types;
    }();
    return table;
}

constexpr char asciiLower(char c)
{
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (asciiLower(a[i]) != asciiLower(b[i])) {
            return false;
        }
    }
    return true;
}

}  // namespace

const TypeTraits* findType(std::uint32_t id)
{
    if (id >= kIdLimit || kIndexById[id] < 0) {
        return nullptr;
    }
    return &dispatchedTypes()[static_cast<std::size_t>(kIndexById[id])];
}

const TypeTraits* findTypeByName(std::string_view name)
{
    for (const TypeTraits& t : dispatchedTypes()) {
        if (equalsIgnoringCase(t.name, name)) {
            return &t;
        }
    }
    return nullptr;
}

const TypeTraits& traitsOf(GgmlTypeId id)
{
    return dispatchedTypes()[static_cast<std::size_t>(kIndexById[typeIdValue(id)])];
}

bool isRetiredTypeId(std::uint32_t id)
{
    return isRetired(id);
}

std::string typeName(std::uint32_t id)
{
    if (const TypeTraits* t = findType(id)) {
        return t->name;
    }
    return (isRetired(id) ? "retired type " : "unknown type ") + std::to_string(id);
}

const TypeTraits* typeTableBegin()
{
    return dispatchedTypes().data();
}

const TypeTraits* typeTableEnd()
{
    return dispatchedTypes().data() + kTypeCount;
}

KernelIsa activeKernelIsa(const TypeTraits& type)
{
    for (const KernelIsa isa : kAllKernelIsas) {
        if (type.kernels[static_cast<std::size_t>(isa)] == type.dequantize)
            return isa;
    }
    return KernelIsa::Scalar;
}

}  // namespace gguf
