#include "core/types/GgmlType.h"

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/IsaKernels.h"
#include "core/kernels/ScalarKernels.h"

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

// `dequantize` starts as the scalar kernel; dispatchedTypes() below replaces it.
template <class Layout>
constexpr TypeTraits row(GgmlTypeId id, const char* name, TypeKind kind, KernelSet kernels, SwapBlockFn swapBlock)
{
    return {typeIdValue(id), name, std::uint32_t(Layout::elements), std::uint32_t(Layout::bytes), kind, kernels[0], swapBlock, kernels};
}

using T = GgmlTypeId;
constexpr TypeKind kFloat = TypeKind::Float;
constexpr TypeKind kInt = TypeKind::Integer;
constexpr TypeKind kQuant = TypeKind::Quantized;

// The one table of per-type facts, in id order. Names are ggml's type_traits names.
constexpr TypeTraits kTypes[] = {
    row<b::F32>(T::F32, "f32", kFloat, GGUFX_KERNELS(F32), swapElement32),
    row<b::F16>(T::F16, "f16", kFloat, GGUFX_KERNELS(F16), swapElement16),
    row<b::Q4_0>(T::Q4_0, "q4_0", kQuant, GGUFX_KERNELS(Q4_0), swapLeadingF16),
    row<b::Q4_1>(T::Q4_1, "q4_1", kQuant, GGUFX_KERNELS(Q4_1), swapLeadingF16Pair),
    row<b::Q5_0>(T::Q5_0, "q5_0", kQuant, GGUFX_KERNELS(Q5_0), swapLeadingF16),
    row<b::Q5_1>(T::Q5_1, "q5_1", kQuant, GGUFX_KERNELS(Q5_1), swapLeadingF16Pair),
    row<b::Q8_0>(T::Q8_0, "q8_0", kQuant, GGUFX_KERNELS(Q8_0), swapLeadingF16),
    row<b::Q8_1>(T::Q8_1, "q8_1", kQuant, GGUFX_KERNELS(Q8_1), swapLeadingF16Pair),
    row<b::Q2_K>(T::Q2_K, "q2_K", kQuant, GGUFX_KERNELS(Q2_K), swapBlockQ2_K),
    row<b::Q3_K>(T::Q3_K, "q3_K", kQuant, GGUFX_KERNELS(Q3_K), swapBlockQ3_K),
    row<b::Q4_K>(T::Q4_K, "q4_K", kQuant, GGUFX_KERNELS(Q4_K), swapLeadingF16Pair),
    row<b::Q5_K>(T::Q5_K, "q5_K", kQuant, GGUFX_KERNELS(Q5_K), swapLeadingF16Pair),
    row<b::Q6_K>(T::Q6_K, "q6_K", kQuant, GGUFX_KERNELS(Q6_K), swapBlockQ6_K),
    row<b::Q8_K>(T::Q8_K, "q8_K", kQuant, GGUFX_KERNELS(Q8_K), swapBlockQ8_K),
    row<b::IQ2_XXS>(T::IQ2_XXS, "iq2_xxs", kQuant, GGUFX_KERNELS(IQ2_XXS), swapLeadingF16),
    row<b::IQ2_XS>(T::IQ2_XS, "iq2_xs", kQuant, GGUFX_KERNELS(IQ2_XS), swapLeadingF16),
    row<b::IQ3_XXS>(T::IQ3_XXS, "iq3_xxs", kQuant, GGUFX_KERNELS(IQ3_XXS), swapLeadingF16),
    row<b::IQ1_S>(T::IQ1_S, "iq1_s", kQuant, GGUFX_KERNELS(IQ1_S), swapLeadingF16),
    row<b::IQ4_NL>(T::IQ4_NL, "iq4_nl", kQuant, GGUFX_KERNELS(IQ4_NL), swapLeadingF16),
    row<b::IQ3_S>(T::IQ3_S, "iq3_s", kQuant, GGUFX_KERNELS(IQ3_S), swapLeadingF16),
    row<b::IQ2_S>(T::IQ2_S, "iq2_s", kQuant, GGUFX_KERNELS(IQ2_S), swapLeadingF16),
    row<b::IQ4_XS>(T::IQ4_XS, "iq4_xs", kQuant, GGUFX_KERNELS(IQ4_XS), swapLeadingF16),
    row<b::I8>(T::I8, "i8", kInt, GGUFX_KERNELS(I8), nullptr),
    row<b::I16>(T::I16, "i16", kInt, GGUFX_KERNELS(I16), swapElement16),
    row<b::I32>(T::I32, "i32", kInt, GGUFX_KERNELS(I32), swapElement32),
    row<b::I64>(T::I64, "i64", kInt, scalarOnly(dequantizeI64), swapElement64),
    row<b::F64>(T::F64, "f64", kFloat, GGUFX_KERNELS(F64), swapElement64),
    row<b::IQ1_M>(T::IQ1_M, "iq1_m", kQuant, GGUFX_KERNELS(IQ1_M), nullptr),
    row<b::BF16>(T::BF16, "bf16", kFloat, GGUFX_KERNELS(BF16), swapElement16),
    row<b::TQ1_0>(T::TQ1_0, "tq1_0", kQuant, GGUFX_KERNELS(TQ1_0), swapBlockTQ1_0),
    row<b::TQ2_0>(T::TQ2_0, "tq2_0", kQuant, GGUFX_KERNELS(TQ2_0), swapBlockTQ2_0),
    row<b::MXFP4>(T::MXFP4, "mxfp4", kQuant, GGUFX_KERNELS(MXFP4), nullptr),
    row<b::NVFP4>(T::NVFP4, "nvfp4", kQuant, GGUFX_KERNELS(NVFP4), nullptr),
    row<b::Q1_0>(T::Q1_0, "q1_0", kQuant, GGUFX_KERNELS(Q1_0), swapLeadingF16),
    row<b::Q2_0>(T::Q2_0, "q2_0", kQuant, GGUFX_KERNELS(Q2_0), swapLeadingF16),
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
