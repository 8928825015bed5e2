#pragma once
// One table of per-type facts drives every size computation and every dispatch in the core.
// Adding a ggml type means one row in GgmlType.cpp plus its kernel.

#include "KernelIsa.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gguf {

// Dequantizes `blockCount` consecutive blocks starting at `src` (little-endian block layout)
// into `blockCount * blockSize` floats at `dst`. Must reproduce ggml's to_float bit for bit.
using DequantizeBlocksFn = void (*)(const std::uint8_t* src, float* dst, std::size_t blockCount);

// Converts one block, in place, from big-endian to little-endian layout: swaps exactly the
// multi-byte fields that gguf-py's endian converter swaps (scales; whole elements for plain types).
using SwapBlockFn = void (*)(std::uint8_t* block);

enum class TypeKind : std::uint8_t { Float, Integer, Quantized };

struct TypeTraits {
    std::uint32_t id;
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
};

// The instruction set of `type.dequantize`.
KernelIsa activeKernelIsa(const TypeTraits& type);

// Traits of a type id this build knows, or nullptr for retired (4, 5, 31-33, 36-38) and unknown ids.
const TypeTraits* findType(std::uint32_t id);
const TypeTraits* findTypeByName(std::string_view name);  // case-insensitive
bool isRetiredTypeId(std::uint32_t id);
// "q4_K", or "unknown type 250" / "retired type 4" for ids without traits.
std::string typeName(std::uint32_t id);

// All known types in id order, for listings (About dialog, CLI help).
const TypeTraits* typeTableBegin();
const TypeTraits* typeTableEnd();

}  // namespace gguf
