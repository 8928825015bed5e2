#include "core/kernels/QuantizedDot.h"

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/KernelIsa.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/QuantizedDotScalar.h"
#include "core/quantize/FloatEncode.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gguf {

namespace qdot {
#if GGUFX_X86_KERNELS
void dotRowsAvx2(QuantizedWeight type, const std::uint8_t* weights, std::int64_t rows, const Q8Activations& x, float* y,
                 std::int64_t yStride);
void dotRowsAvx512(QuantizedWeight type, const std::uint8_t* weights, std::int64_t rows, const Q8Activations& x, float* y,
                   std::int64_t yStride);
void quantizeRowsQ8KAvx512(const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out);
#endif
}  // namespace qdot

namespace {

// ggml's nearest_int: round half to even through the float magic number.
int nearestInt(float value)
{
    const float shifted = value + 12582912.0f;
    return static_cast<int>(std::bit_cast<std::int32_t>(shifted) & 0x007fffff) - 0x00400000;
}

// quantize_row_q8_0 as ggml-cpu builds it for x86 with AVX2: d = amax / 127 stored as f16, the
// multiplier 127 / amax, rounding half to even.
void quantizeRowQ8_0(const float* x, std::int64_t columns, std::int8_t* q, float* scales)
{
    for (std::int64_t first = 0; first + 32 <= columns; first += 32) {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(x[first + j]));
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        scales[first / 32] = f16ToF32(quantize::f32ToF16Bits(amax / 127.0f));
        for (int j = 0; j < 32; ++j)
            q[first + j] = static_cast<std::int8_t>(nearestInt(x[first + j] * id));
    }
}

// quantize_row_q8_K_ref: iscale = -127 / (the value of largest magnitude), q = min(127,
// nearest_int(iscale * x)), d = 1 / iscale, and the sum of each 16 values.
void quantizeRowQ8_K(const float* x, std::int64_t columns, std::int8_t* q, float* scales, std::int16_t* sums)
{
    for (std::int64_t first = 0; first + 256 <= columns; first += 256) {
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < 256; ++j) {
            const float a = std::fabs(x[first + j]);
            if (a > amax) {
                amax = a;
                max = x[first + j];
            }
        }
        if (amax == 0.0f) {
            std::fill(q + first, q + first + 256, std::int8_t{0});
            std::fill(sums + first / 16, sums + first / 16 + 16, std::int16_t{0});
            scales[first / 256] = 0.0f;
            continue;
        }
        const float iscale = -127.0f / max;
        for (int j = 0; j < 256; ++j)
            q[first + j] = static_cast<std::int8_t>(std::min(127, nearestInt(iscale * x[first + j])));
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int j = 0; j < 16; ++j)
                sum += q[first + g * 16 + j];
            sums[first / 16 + g] = static_cast<std::int16_t>(sum);
        }
        scales[first / 256] = 1.0f / iscale;
    }
}

}  // namespace

void quantizeActivations(Q8Kind kind, const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out)
{
    const std::int64_t block = Q8Activations::blockSize(kind);
    out.kind = kind;
    out.tokens = tokens;
    out.columns = columns;
    out.values.resize(static_cast<std::size_t>(tokens * columns));
    out.scales.resize(static_cast<std::size_t>(tokens * (columns / block)));
    const bool k = kind == Q8Kind::Q8_K;
    out.sums.resize(k ? static_cast<std::size_t>(tokens * (columns / 16)) : 0);
    out.wide.resize(k ? static_cast<std::size_t>(tokens * columns) : 0);
    out.pairSums.resize(k ? static_cast<std::size_t>(tokens * (columns / 32)) : 0);
#if GGUFX_X86_KERNELS
    if (k && quantizedDotKernel() >= 2) {
        qdot::quantizeRowsQ8KAvx512(x, tokens, columns, out);
        return;
    }
#endif
    for (std::int64_t t = 0; t < tokens; ++t) {
        std::int8_t* q = out.values.data() + t * columns;
        float* scales = out.scales.data() + t * (columns / block);
        if (kind == Q8Kind::Q8_0)
            quantizeRowQ8_0(x + t * columns, columns, q, scales);
        else
            quantizeRowQ8_K(x + t * columns, columns, q, scales, out.sums.data() + t * (columns / 16));
    }
    if (!k)
        return;
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t first = 0; first < columns; first += 32) {
            const std::int8_t* q = out.valuesOf(t) + first;
            std::int16_t* wide = out.wide.data() + t * columns + first;
            for (int p = 0; p < 32; ++p)
                wide[p] = q[wideOrder(p)];
            const std::int16_t* sums = out.sumsOf(t) + first / 16;
            out.pairSums[static_cast<std::size_t>(t * (columns / 32) + first / 32)] = static_cast<std::int16_t>(sums[0] + sums[1]);
        }
}

std::optional<QuantizedWeight> quantizedWeightOfType(std::uint32_t typeId, bool repackedRows)
{
    switch (static_cast<GgmlTypeId>(typeId)) {
    case GgmlTypeId::Q4_0:
        return QuantizedWeight::Q4_0;
    case GgmlTypeId::Q8_0:
        return QuantizedWeight::Q8_0;
    case GgmlTypeId::Q4_K:
        return repackedRows ? QuantizedWeight::Q4_K_8x8 : QuantizedWeight::Q4_K;
    case GgmlTypeId::Q6_K:
        return QuantizedWeight::Q6_K;
    default:
        return std::nullopt;
    }
}

Q8Kind activationKindOf(QuantizedWeight type)
{
    return type == QuantizedWeight::Q4_0 || type == QuantizedWeight::Q8_0 ? Q8Kind::Q8_0 : Q8Kind::Q8_K;
}

std::int64_t bytesPerRow(QuantizedWeight type, std::int64_t columns)
{
    switch (type) {
    case QuantizedWeight::Q4_0:
        return columns / 32 * static_cast<std::int64_t>(blocks::Q4_0::bytes);
    case QuantizedWeight::Q8_0:
        return columns / 32 * static_cast<std::int64_t>(blocks::Q8_0::bytes);
    case QuantizedWeight::Q4_K:
    case QuantizedWeight::Q4_K_8x8:
        return columns / 256 * static_cast<std::int64_t>(blocks::Q4_K::bytes);
    case QuantizedWeight::Q6_K:
        return columns / 256 * static_cast<std::int64_t>(blocks::Q6_K::bytes);
    }
    return 0;
}

int quantizedDotKernel()
{
#if GGUFX_X86_KERNELS && defined(__GNUC__)
    static const int kernel = [] {
        __builtin_cpu_init();
        const bool f16c = cpuHasF16c();
        if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")
            && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c)
            return 2;
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c)
            return 1;
        return 0;
    }();
    return kernel;
#else
    return 0;
#endif
}

void quantizedDotRowsWith(int kernel, QuantizedWeight type, const std::uint8_t* weights, std::int64_t rows, const Q8Activations& x,
                          float* y, std::int64_t yStride)
{
    kernel = std::min(kernel, quantizedDotKernel());
#if GGUFX_X86_KERNELS
    if (kernel >= 2) {
        qdot::dotRowsAvx512(type, weights, rows, x, y, yStride);
        return;
    }
    if (kernel == 1) {
        qdot::dotRowsAvx2(type, weights, rows, x, y, yStride);
        return;
    }
#endif
    const std::int64_t rowBytes = bytesPerRow(type, x.columns);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t t = 0; t < x.tokens; ++t)
            y[t * yStride + r] = qdot::scalarDot(type, weights + r * rowBytes, x, t);
}

void quantizedDotRows(QuantizedWeight type, const std::uint8_t* weights, std::int64_t rows, const Q8Activations& x, float* y,
                      std::int64_t yStride)
{
    quantizedDotRowsWith(quantizedDotKernel(), type, weights, rows, x, y, yStride);
}

}  // namespace gguf
