#include "core/kernels/LaneProduct.h"

#include "core/kernels/KernelIsa.h"
#include "core/kernels/KernelIsaCap.h"
#include "core/kernels/LaneProductBlocking.h"

#include <cmath>

namespace gguf {

namespace lanes {
#if GGUFX_X86_KERNELS
void laneProductAvx512(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                       std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch);
void laneProductAvx2(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                     std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch);
#endif

namespace {

// The order itself, one output at a time: the reference the vector kernels reproduce.
struct PortableTile : RowMajorLanes {
    static constexpr int kRows = 1;
    static constexpr int kTokens = 1;
    static void run(int, int, const float* x, std::int64_t, const float* w, std::int64_t, std::int64_t kn, float* lanes, std::int64_t,
                    bool fresh, float* y, std::int64_t)
    {
        float l[8] = {};
        if (!fresh)
            for (int q = 0; q < 8; ++q)
                l[q] = lanes[q];
        for (std::int64_t k = 0; k < kn; k += 8)
            for (int q = 0; q < 8; ++q)
                l[q] = std::fma(w[k + q], x[k + q], l[q]);
        if (y) {
            *y = sumLanes(l);
            return;
        }
        for (int q = 0; q < 8; ++q)
            lanes[q] = l[q];
    }
};

}  // namespace
}  // namespace lanes

int laneProductKernel()
{
#if GGUFX_X86_KERNELS && defined(__GNUC__)
    static const int kernel = [] {
        __builtin_cpu_init();
        // GGUFX_KERNELS caps these as it caps the dequantization kernels (KernelIsa.h).
        const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && preferredKernelIsa() == KernelIsa::Avx2;
        if (avx2 && kernelIsaAllowsAvx512() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
            return 2;
        if (avx2)
            return 1;
        return 0;
    }();
    return kernel;
#else
    return 0;
#endif
}

void laneProductRowsWith(int kernel, const float* x, std::int64_t tokens, const float* weights, std::int64_t columns,
                         std::int64_t rowBegin, std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch)
{
    kernel = std::min(kernel, laneProductKernel());
#if GGUFX_X86_KERNELS
    if (kernel >= 2) {
        lanes::laneProductAvx512(x, tokens, weights, columns, rowBegin, rowEnd, y, yStride, scratch);
        return;
    }
    if (kernel == 1) {
        lanes::laneProductAvx2(x, tokens, weights, columns, rowBegin, rowEnd, y, yStride, scratch);
        return;
    }
#endif
    lanes::blockedLaneProduct<lanes::PortableTile>(x, tokens, weights, columns, rowBegin, rowEnd, y, yStride, scratch);
}

void laneProductRows(const float* x, std::int64_t tokens, const float* weights, std::int64_t columns, std::int64_t rowBegin,
                     std::int64_t rowEnd, float* y, std::int64_t yStride, std::vector<float>& scratch)
{
    laneProductRowsWith(laneProductKernel(), x, tokens, weights, columns, rowBegin, rowEnd, y, yStride, scratch);
}

}  // namespace gguf
