#pragma once
// Which instruction set the dequantization kernels use. Every type has a scalar kernel (the
// portable reference); x86-64 builds add SSE4.1 and AVX2 variants, bit-identical to it. The best
// variant this CPU runs is chosen once, at the first type lookup, and findType(id)->dequantize
// is that variant; TypeTraits::kernels lists them all so tests and the benchmark can run each.
//
// The environment variable GGUFX_KERNELS=scalar|sse4.1|avx2 caps the choice (for comparisons
// and to rule the SIMD code out when chasing a bug); other values are ignored.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gguf {

enum class KernelIsa : std::uint8_t { Scalar = 0, Sse41 = 1, Avx2 = 2 };
inline constexpr std::size_t kKernelIsaCount = 3;
inline constexpr KernelIsa kAllKernelIsas[kKernelIsaCount] = {KernelIsa::Scalar, KernelIsa::Sse41, KernelIsa::Avx2};

const char* kernelIsaName(KernelIsa isa);  // "scalar", "sse4.1", "avx2"
std::optional<KernelIsa> kernelIsaFromName(std::string_view name);

// A SIMD kernel call whose output reaches this many bytes writes it with non-temporal stores
// (past the caches, see kernels/simd/Streaming.inc); smaller outputs stay in cache for the
// caller. 8 MiB: above the 4 MiB chunks the streaming consumers (statistics, export) read back
// at once and far beyond L2, so outputs this large would not be read from cache anyway.
inline constexpr std::size_t kKernelStreamingBytes = std::size_t{8} << 20;

// Compiled into this build and runnable on this CPU.
bool kernelIsaSupported(KernelIsa isa);

// F16C (CPUID leaf 1, ECX bit 29), which clang before 16 cannot ask __builtin_cpu_supports
// about; false off x86.
bool cpuHasF16c();
// The best supported instruction set, capped by GGUFX_KERNELS; decided once per process.
KernelIsa preferredKernelIsa();

}  // namespace gguf
