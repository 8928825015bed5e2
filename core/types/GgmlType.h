#pragma once
// One table of per-type facts drives every size computation and every dispatch in the core.
// Adding a ggml type means one entry in GGUFX_GGML_TYPE_IDS below, one row in GgmlType.cpp and
// its kernel; the other per-type tables (block fields, block scales, quantizers) are keyed by
// GgmlTypeId and tst_type_table checks them against this table.

#include "core/kernels/KernelIsa.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gguf {

// Every type id this build knows, as (enumerator, ggml id). Retired ids (4, 5, 31-33, 36-38)
// have no entry. Code names types by GgmlTypeId, never by number.
#define GGUFX_GGML_TYPE_IDS(X)                                                                              \
    X(F32, 0) X(F16, 1) X(Q4_0, 2) X(Q4_1, 3) X(Q5_0, 6) X(Q5_1, 7) X(Q8_0, 8) X(Q8_1, 9) X(Q2_K, 10)       \
    X(Q3_K, 11) X(Q4_K, 12) X(Q5_K, 13) X(Q6_K, 14) X(Q8_K, 15) X(IQ2_XXS, 16) X(IQ2_XS, 17) X(IQ3_XXS, 18) \
    X(IQ1_S, 19) X(IQ4_NL, 20) X(IQ3_S, 21) X(IQ2_S, 22) X(IQ4_XS, 23) X(I8, 24) X(I16, 25) X(I32, 26)      \
    X(I64, 27) X(F64, 28) X(IQ1_M, 29) X(BF16, 30) X(TQ1_0, 34) X(TQ2_0, 35) X(MXFP4, 39) X(NVFP4, 40)      \
    X(Q1_0, 41) X(Q2_0, 42)

// ggml_type ids. A file may hold any 32-bit id, so TensorInfo keeps a plain integer; this enum
// names the ones the code treats specially.
enum class GgmlTypeId : std::uint32_t {
#define GGUFX_TYPE_ENUMERATOR(name, id) name = id,
    GGUFX_GGML_TYPE_IDS(GGUFX_TYPE_ENUMERATOR)
#undef GGUFX_TYPE_ENUMERATOR
};

// Every GgmlTypeId in id order; GgmlType.cpp checks at compile time that its table has exactly
// these rows.
inline constexpr GgmlTypeId kGgmlTypeIds[] = {
#define GGUFX_TYPE_LIST_ENTRY(name, id) GgmlTypeId::name,
    GGUFX_GGML_TYPE_IDS(GGUFX_TYPE_LIST_ENTRY)
#undef GGUFX_TYPE_LIST_ENTRY
};

// The id as stored in files and in TensorInfo::typeId.
constexpr std::uint32_t typeIdValue(GgmlTypeId id)
{
    return static_cast<std::uint32_t>(id);
}

// Dequantizes `blockCount` consecutive blocks starting at `src` (little-endian block layout)
// into `blockCount * blockSize` floats at `dst`. Must reproduce ggml's to_float bit for bit.
using DequantizeBlocksFn = void (*)(const std::uint8_t* src, float* dst, std::size_t blockCount);

// Converts one block, in place, from big-endian to little-endian layout: swaps exactly the
// multi-byte fields that gguf-py's endian converter swaps (scales; whole elements for plain types).
using SwapBlockFn = void (*)(std::uint8_t* block);

enum class TypeKind : std::uint8_t { Float, Integer, Quantized };

struct TypeTraits {
    std::uint32_t id;          // typeIdValue() of a GgmlTypeId
    const char* name;          // ggml's name, e.g. "q4_K"
    std::uint32_t blockSize;   // elements per block (1 for plain types)
    std::uint32_t blockBytes;  // bytes per block
    TypeKind kind;
    // The fastest of `kernels` this CPU runs (chosen once, see KernelIsa.h); nullptr only for
    // types with no dequantization.
    DequantizeBlocksFn dequantize;
    SwapBlockFn swapBlock;  // nullptr when no field needs swapping (e.g. i8, mxfp4)
    // Every variant of the kernel, indexed by KernelIsa, all bit-identical; nullptr where the
    // build has none (then `dequantize` falls back to a lower instruction set). Only variants
    // whose instruction set kernelIsaSupported() may be called.
    std::array<DequantizeBlocksFn, kKernelIsaCount> kernels;

    double bitsPerWeight() const { return 8.0 * blockBytes / blockSize; }
    GgmlTypeId typeId() const { return static_cast<GgmlTypeId>(id); }
    bool is(GgmlTypeId other) const { return id == typeIdValue(other); }
};

// The instruction set of `type.dequantize`.
KernelIsa activeKernelIsa(const TypeTraits& type);

// Traits of a type id this build knows, or nullptr for retired (4, 5, 31-33, 36-38) and unknown ids.
const TypeTraits* findType(std::uint32_t id);
// Traits of a known type: every GgmlTypeId has a row.
const TypeTraits& traitsOf(GgmlTypeId id);
const TypeTraits* findTypeByName(std::string_view name);  // case-insensitive
bool isRetiredTypeId(std::uint32_t id);
// "q4_K", or "unknown type 250" / "retired type 4" for ids without traits.
std::string typeName(std::uint32_t id);
inline std::string typeName(GgmlTypeId id)
{
    return typeName(typeIdValue(id));
}

// All known types in id order, for listings (About dialog, CLI help).
const TypeTraits* typeTableBegin();
const TypeTraits* typeTableEnd();

}  // namespace gguf
