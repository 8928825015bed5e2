#pragma once
// One table of per-type facts drives every size computation and every dispatch in the core.
// A type's row holds its sizes, its dequantizer, its quantizers, its block fields, its block
// scale codec, the llama_ftype of a file all in that type and how llama.cpp's CPU backend
// multiplies it (activation type, kernels, repacked layout). Adding a ggml type means one entry
// in GGUFX_GGML_TYPE_IDS below, one row in GgmlType.cpp and its kernels; the static_asserts
// there check the row (fields tile the block, scale sub-blocks tile it, quantizers only where
// they can exist, a product for every quantized type) when it is compiled.

#include "core/blocks/BlockFields.h"
#include "core/blocks/BlockScaleCodec.h"
#include "core/kernels/GgmlDot.h"
#include "core/kernels/KernelIsa.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
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

// Quantizes `blockCount` blocks: `blockCount * blockSize` floats from `src` into
// `blockCount * blockBytes` bytes at `dst`, as ggml_quantize_chunk without importance weights.
using QuantizeBlocksFn = void (*)(const float* src, std::uint8_t* dst, std::size_t blockCount);

// Quantizes one row of `n` values (a multiple of the block size) with its `n` importance weights
// (ggml's quant_weights) into n / blockSize blocks, as ggml_quantize_chunk with quant_weights.
using QuantizeRowFn = void (*)(const float* x, std::uint8_t* dst, std::int64_t n, const float* weights);

enum class TypeKind : std::uint8_t { Float, Integer, Quantized };

// The 8x8 interleaved layouts llama.cpp's CPU backend gives a weight in its extra buffer type
// (ggml-cpu repack.cpp) on x86 with AVX2, when the weight is a matrix (mul_mat) or a stack of
// experts (mul_mat_id) whose row count ne[1] is a multiple of 8.
enum class RepackedLayout : std::uint8_t { None, Q4_0_8x8, Q4_K_8x8, IQ4_NL_8x8, MXFP4_8x8 };

// How llama.cpp's CPU backend (80fb11a, its x86 haswell build) multiplies a weight of a type by
// f32 activations (QuantizedDot.h, planProduct, chooses among the kernels for a product's shape).
struct CpuProduct {
    // ggml-cpu's vec_dot_type: the activations are first converted to it, F16 / BF16 rounded,
    // Q8_0 / Q8_1 / Q8_K quantized. F32: kept as they are (f32 weights, and types llama.cpp's
    // CPU backend cannot multiply, which the pass multiplies as f32).
    GgmlTypeId activations = GgmlTypeId::F32;
    // ggml_vec_dot_<type>_<activations> (GgmlDot.h): one output at a time, in its summation
    // order. Set for every quantized type the CPU backend multiplies; the float types' products
    // are float lanes (LaneProduct.h).
    RowDotFn vecDot = nullptr;
    // llamafile's tinyBLAS, which takes mul_mat of 2 tokens or more before vec_dot for a few
    // legacy types (sgemm.cpp, tinyBLAS_Q0_AVX); null where it does not.
    RowDotFn tinyBlas = nullptr;
    // The repacked layout, and its gemv (a token alone) and gemm (four at a time) kernels.
    RepackedLayout repacked = RepackedLayout::None;
    RowDotFn repackedGemv = nullptr;
    RowDotFn repackedGemm = nullptr;
    // iqp.cpp's panel: mul_mat of 8 tokens or more (mul_mat_id: an expert's 8 or more) of a grid
    // IQ type whose rows are a multiple of 8 and of 256 values; null for other types.
    RowDotFn panel = nullptr;
};

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
    // core/quantize's quantizers (Quantizers.h, WeightedQuantizers.h). `quantize` is null for
    // types the core cannot make and for those ggml makes only with importance weights;
    // `quantizeWeighted` is null for types whose ggml quantizer ignores the weights.
    QuantizeBlocksFn quantize = nullptr;
    QuantizeRowFn quantizeWeighted = nullptr;
    // The named byte fields of a block in byte order (BlockFieldLayouts.h); empty for plain types.
    std::span<const BlockField> fields{};
    // The block's scales (BlockScales.h); extract is null for plain types.
    BlockScaleCodec scales{};
    // general.file_type (llama_ftype) of a file whose weights are all this type, the "_M" variant
    // for Q3_K, Q4_K and Q5_K; -1 when llama.cpp has none.
    std::int32_t llamaFileType = -1;
    // llama.cpp's CPU product with a weight of this type.
    CpuProduct cpu{};

    // ggml_quantize_requires_imatrix: made only with importance weights.
    bool requiresImportance() const { return quantizeWeighted && !quantize; }
    bool canQuantize() const { return quantize || quantizeWeighted; }

    double bitsPerWeight() const { return 8.0 * blockBytes / blockSize; }
    constexpr GgmlTypeId typeId() const { return static_cast<GgmlTypeId>(id); }
    constexpr bool is(GgmlTypeId other) const { return id == typeIdValue(other); }
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
