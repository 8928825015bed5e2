#include "core/kernels/KernelIsa.h"

#include "core/kernels/KernelIsaCap.h"

#include <array>
#include <cstdlib>

#if GGUFX_X86_KERNELS
#include <cpuid.h>
#endif

namespace gguf {

namespace {


bool cpuRuns(KernelIsa isa)
{
    switch (isa) {
    case KernelIsa::Scalar:
        return true;
#if GGUFX_X86_KERNELS
    // __builtin_cpu_supports also checks that the OS saves the AVX registers.
    case KernelIsa::Sse41:
        return __builtin_cpu_supports("sse4.1");
    case KernelIsa::Avx2:
        return __builtin_cpu_supports("avx2") && cpuHasF16c();
#else
    case KernelIsa::Sse41:
    case KernelIsa::Avx2:
        return false;
#endif
    }
    return false;
}

KernelIsa choosePreferred()
{
    KernelIsa best = KernelIsa::Scalar;
    for (const KernelIsa isa : kAllKernelIsas) {
        if (kernelIsaSupported(isa))
            best = isa;
    }
    if (const char* requested = std::getenv("GGUFX_KERNELS")) {
        if (const auto cap = kernelIsaFromName(requested); cap && *cap < best)
            best = *cap;
    }
    return best;
}

}  // namespace

const char* kernelIsaName(KernelIsa isa)
{
    switch (isa) {
    case KernelIsa::Scalar: return "scalar";
    case KernelIsa::Sse41: return "sse4.1";
    case KernelIsa::Avx2: return "avx2";
    }
    return "?";
}

std::optional<KernelIsa> kernelIsaFromName(std::string_view name)
{
    for (const KernelIsa isa : kAllKernelIsas) {
        if (name == kernelIsaName(isa))
            return isa;
    }
    return std::nullopt;
}

// Read directly: every CPU with AVX2 has F16C in practice, but the kernels rely on it.
bool cpuHasF16c()
{
#if GGUFX_X86_KERNELS
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
#else
    return false;
#endif
}

bool kernelIsaSupported(KernelIsa isa)
{
    // Asked once per instruction set: CPUID (the F16C check) is a trap to the hypervisor in a
    // VM, tens of microseconds each, and the type table asks for every type at start-up.
    static const auto supported = [] {
        std::array<bool, kKernelIsaCount> runs{};
        for (const KernelIsa each : kAllKernelIsas)
            runs[static_cast<std::size_t>(each)] = cpuRuns(each);
        return runs;
    }();
    return supported[static_cast<std::size_t>(isa)];
}

KernelIsa preferredKernelIsa()
{
    static const KernelIsa preferred = choosePreferred();
    return preferred;
}

bool kernelIsaAllowsAvx512()
{
    static const bool allowed = [] {
        const char* requested = std::getenv("GGUFX_KERNELS");
        return !(requested && kernelIsaFromName(requested));
    }();
    return allowed;
}

const char* activeKernelIsaName()
{
#if GGUFX_X86_KERNELS
    if (kernelIsaAllowsAvx512() && preferredKernelIsa() == KernelIsa::Avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512vl"))
        return "avx512";
#endif
    return kernelIsaName(preferredKernelIsa());
}

}  // namespace gguf
