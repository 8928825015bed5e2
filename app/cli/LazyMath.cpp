// libm, loaded on the first call of a math function instead of at start-up.
//
// Loading libm.so.6 costs every run of the CLI about 0.3 MiB of resident pages and ~0.1 ms:
// the loader maps it and runs its own relocations, which call the resolvers of its CPU-specific
// variants spread over its text. Most commands (`info`, `meta`, `tensors`, `check`, ...) never
// compute an exponential. The link therefore renames every reference to the functions below to
// `__wrap_<name>` (-Wl,--wrap, app/cli/CMakeLists.txt); each one calls the real function,
// looked up in libm.so.6 the first time. dlsym returns the variant the loader would have bound
// (the same resolver picks it), so every result is bit for bit that of a direct link.
//
// fegetround and fesetround come from libstdc++'s std::from_chars for floating point.
// A math function missing from this list still works: the linker then binds it to libm, which is
// loaded at start-up again. tests/cli/check-cli-libraries.cmake catches that.

#include "LazyLoad.h"

#include <atomic>

namespace {

void* libm()
{
    static void* const handle = [] {
        static const char* const kNames[] = {"libm.so.6", nullptr};
        return lazyload::libraryOrExit(kNames, "the C math library");
    }();
    return handle;
}

// One function's real address. A plain relaxed atomic rather than a function-local static:
// the forward pass calls expf once per activation, and this keeps that one load and an
// indirect call. Two threads may both look it up first; they store the same address.
template <typename Function>
Function resolved(std::atomic<Function>& slot, const char* name)
{
    Function function = slot.load(std::memory_order_relaxed);
    if (!function) {
        function = lazyload::symbolOrExit<Function>(libm(), name, "the C math library");
        slot.store(function, std::memory_order_relaxed);
    }
    return function;
}

}  // namespace

// Each wrapper: the real function's pointer, found once, then called with the same arguments.
#define GGUFX_LAZY_MATH(Result, name, Parameters, ...)                          \
    namespace {                                                                 \
    std::atomic<Result(*) Parameters> real_##name{nullptr};                     \
    }                                                                           \
    extern "C" Result __wrap_##name Parameters                                  \
    {                                                                           \
        return resolved(real_##name, #name)(__VA_ARGS__);                       \
    }

GGUFX_LAZY_MATH(double, exp, (double x), x)
GGUFX_LAZY_MATH(float, expf, (float x), x)
GGUFX_LAZY_MATH(int, fegetround, (), )
GGUFX_LAZY_MATH(int, fesetround, (int mode), mode)
GGUFX_LAZY_MATH(double, fma, (double x, double y, double z), x, y, z)
GGUFX_LAZY_MATH(float, ldexpf, (float x, int e), x, e)
GGUFX_LAZY_MATH(double, log, (double x), x)
GGUFX_LAZY_MATH(double, log10, (double x), x)
GGUFX_LAZY_MATH(double, log2, (double x), x)
GGUFX_LAZY_MATH(float, log2f, (float x), x)
GGUFX_LAZY_MATH(long, lroundf, (float x), x)
GGUFX_LAZY_MATH(float, powf, (float x, float y), x, y)
GGUFX_LAZY_MATH(float, roundf, (float x), x)
GGUFX_LAZY_MATH(void, sincosf, (float x, float* s, float* c), x, s, c)
GGUFX_LAZY_MATH(double, sqrt, (double x), x)
GGUFX_LAZY_MATH(float, sqrtf, (float x), x)
