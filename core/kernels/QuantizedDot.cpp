#include "core/kernels/QuantizedDot.h"

#include "core/kernels/GgmlDotLanes.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/KernelIsa.h"
#include "core/kernels/KernelIsaCap.h"
#include "core/kernels/QuantizedDotVector.h"
#include "core/kernels/FloatEncode.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gguf {

namespace {

// ggml's nearest_int: round half to even through the float magic number.
int nearestInt(float value)
{
    const float shifted = value + 12582912.0f;
    return static_cast<int>(std::bit_cast<std::int32_t>(shifted) & 0x007fffff) - 0x00400000;
}

// quantize_row_q8_0 / q8_1 as ggml-cpu builds them for x86 with AVX2: d = amax / 127 stored as
// f16, the multiplier 127 / amax (not 1 / d), rounding half to even (_mm256_round_ps), unlike
// quantize_row_q8_0_ref's 1 / d and roundf: the two differ by one step on a few values per
// model, enough to move a Llama 3 Q8_0 file's logits by 1e-2. q8_1 also keeps s = f16(d *
// sum(q)), the float product of d and the integer sum.
void quantizeRowQ8_0(const float* x, std::int64_t columns, std::int8_t* q, float* scales, float* blockSums)
{
    for (std::int64_t first = 0; first + 32 <= columns; first += 32) {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(x[first + j]));
        const float d = amax / 127.0f;
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        scales[first / 32] = f16ToF32(quantize::f32ToF16Bits(d));
        int sum = 0;
        for (int j = 0; j < 32; ++j) {
            const int value = nearestInt(x[first + j] * id);
            q[first + j] = static_cast<std::int8_t>(value);
            sum += value;
        }
        if (blockSums)
            blockSums[first / 32] = f16ToF32(quantize::f32ToF16Bits(d * static_cast<float>(sum)));
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

// The vector kernels and the order (scalar kernel) each computes; `prepare` reads the rows of
// the types the vector bodies do not read themselves.
struct VectorForm {
    RowDotFn dot;
    qdot::VectorDot vector;
    qdot::PrepareRowFn prepare = nullptr;
};
using qdot::VectorDot;
constexpr VectorForm kVectorForms[] = {
    {ggmldot::q8_0, VectorDot::Q8_0Lanes},
    {ggmldot::q4_0, VectorDot::Q4_0Lanes},
    {ggmldot::q4_0x8, VectorDot::Q4_0Chain},
    {ggmldot::q4_K, VectorDot::Q4_KLanes},
    {ggmldot::q4_Kx8Gemv, VectorDot::Q4_KGemv},
    {ggmldot::q4_Kx8Gemm, VectorDot::Q4_KGemm},
    {ggmldot::q6_K, VectorDot::Q6_KLanes},
    {ggmldot::q5_K, VectorDot::Q5_KLanes},
    {ggmldot::q5_0, VectorDot::Q5_0Lanes},
    {ggmldot::q4_1, VectorDot::Q4_1Lanes},
    {ggmldot::q5_1, VectorDot::Q5_1Lanes},
    {ggmldot::q2_K, VectorDot::Q2_KLanes, ggmldot::prepareQ2_K},
    {ggmldot::q3_K, VectorDot::Lanes, ggmldot::prepareQ3_K},
    {ggmldot::iq2_xxs, VectorDot::Lanes, ggmldot::prepareIq2_xxs},
    {ggmldot::iq2_xs, VectorDot::Lanes, ggmldot::prepareIq2_xs},
    {ggmldot::iq2_s, VectorDot::Lanes, ggmldot::prepareIq2_s},
    {ggmldot::iq3_xxs, VectorDot::Lanes, ggmldot::prepareIq3_xxs},
    {ggmldot::iq3_s, VectorDot::Lanes, ggmldot::prepareIq3_s},
    {ggmldot::iq4_xs, VectorDot::Lanes, ggmldot::prepareIq4_xs},
    {ggmldot::iq2_xxsPanel, VectorDot::Chain, ggmldot::prepareIq2_xxsPanel},
    {ggmldot::iq2_xsPanel, VectorDot::Chain, ggmldot::prepareIq2_xsPanel},
    {ggmldot::iq2_sPanel, VectorDot::Chain, ggmldot::prepareIq2_sPanel},
    {ggmldot::iq3_xxsPanel, VectorDot::Chain, ggmldot::prepareIq3_xxsPanel},
    {ggmldot::iq3_sPanel, VectorDot::Chain, ggmldot::prepareIq3_sPanel},
    {ggmldot::iq1_sPanel, VectorDot::Chain, ggmldot::prepareIq1_sPanel},
    {ggmldot::iq1_mPanel, VectorDot::Chain, ggmldot::prepareIq1_mPanel},
    {ggmldot::iq4_xsPanel, VectorDot::Chain, ggmldot::prepareIq4_xsPanel},
};

const VectorForm* vectorFormOf(RowDotFn dot)
{
    for (const VectorForm& form : kVectorForms)
        if (form.dot == dot)
            return &form;
    return nullptr;
}

}  // namespace

std::optional<Q8Kind> q8KindOf(GgmlTypeId activations)
{
    switch (activations) {
    case GgmlTypeId::Q8_0:
        return Q8Kind::Q8_0;
    case GgmlTypeId::Q8_1:
        return Q8Kind::Q8_1;
    case GgmlTypeId::Q8_K:
        return Q8Kind::Q8_K;
    default:
        return std::nullopt;
    }
}

void quantizeActivations(Q8Kind kind, const float* x, std::int64_t tokens, std::int64_t columns, Q8Activations& out)
{
    const std::int64_t block = Q8Activations::blockSize(kind);
    out.kind = kind;
    out.tokens = tokens;
    out.columns = columns;
    out.values.resize(static_cast<std::size_t>(tokens * columns));
    out.scales.resize(static_cast<std::size_t>(tokens * (columns / block)));
    const bool k = kind == Q8Kind::Q8_K;
    out.blockSums.resize(kind == Q8Kind::Q8_1 ? static_cast<std::size_t>(tokens * (columns / 32)) : 0);
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
        if (k)
            quantizeRowQ8_K(x + t * columns, columns, q, scales, out.sums.data() + t * (columns / 16));
        else
            quantizeRowQ8_0(x + t * columns, columns, q, scales, out.blockSums.empty() ? nullptr : out.blockSums.data() + t * (columns / 32));
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

void dequantizeActivations(const Q8Activations& x, float* out)
{
    const std::int64_t block = Q8Activations::blockSize(x.kind);
    for (std::int64_t t = 0; t < x.tokens; ++t)
        for (std::int64_t c = 0; c < x.columns / block * block; ++c)
            out[t * x.columns + c] = x.scalesOf(t)[c / block] * static_cast<float>(x.valuesOf(t)[c]);
}

ProductPlan planProduct(const TypeTraits& type, ProductKind kind, std::int64_t rows, std::int64_t columns, std::int64_t tokens,
                        bool repackable)
{
    const CpuProduct& p = type.cpu;
    // repack.cpp: a 2-D matrix (mul_mat) or a 3-D stack of experts (mul_mat_id) of a repacked
    // type whose rows are a multiple of 8. mul_mat runs gemm on the tokens in fours and gemv on
    // the rest; mul_mat_id gemv on every token.
    if (p.repacked != RepackedLayout::None && repackable && rows % 8 == 0 && kind != ProductKind::Batched) {
        if (kind == ProductKind::Expert)
            return {p.repackedGemv, p.repackedGemv, tokens};
        return {p.repackedGemm, p.repackedGemv, tokens - tokens % 4};
    }
    // iqp.cpp: 8 tokens or more (an expert's own) against whole super-blocks, rows a multiple of
    // 8; mul_mat only of a 2-D weight.
    if (p.panel && tokens >= 8 && rows % 8 == 0 && columns % 256 == 0 && kind != ProductKind::Batched)
        return {p.panel, p.panel, tokens};
    // llamafile_sgemm takes mul_mat of 2 tokens or more for the types it knows.
    if (p.tinyBlas && tokens >= 2 && kind != ProductKind::Expert)
        return {p.tinyBlas, p.tinyBlas, tokens};
    return {p.vecDot, p.vecDot, tokens};
}

int quantizedDotKernel()
{
#if GGUFX_X86_KERNELS && defined(__GNUC__)
    static const int kernel = [] {
        __builtin_cpu_init();
        const bool f16c = cpuHasF16c();
        // GGUFX_KERNELS caps these as it caps the dequantization kernels (KernelIsa.h).
        const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c && preferredKernelIsa() == KernelIsa::Avx2;
        if (avx2 && kernelIsaAllowsAvx512() && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl")
            && __builtin_cpu_supports("avx512bw"))
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

namespace ggmldot {
bool laneProductsHaveAvx2()
{
    static const bool has = quantizedDotKernel() >= 1;
    return has;
}
}  // namespace ggmldot

bool hasVectorDot(RowDotFn dot)
{
    return quantizedDotKernel() >= 1 && vectorFormOf(dot) != nullptr;
}

void quantizedDotRowsWith(int kernel, RowDotFn dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows,
                          const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    kernel = std::min(kernel, quantizedDotKernel());
#if GGUFX_X86_KERNELS
    if (const VectorForm* form = vectorFormOf(dot); form && kernel >= 1) {
        (kernel >= 2 ? qdot::dotRowsAvx512 : qdot::dotRowsAvx2)(form->vector, form->prepare, weights, rowBytes, rows, x, span, y, yStride);
        return;
    }
#endif
    for (std::int64_t r = 0; r < rows; ++r)
        dot(weights + r * rowBytes, x, span, y + r, yStride);
}

void quantizedDotRows(RowDotFn dot, const std::uint8_t* weights, std::int64_t rowBytes, std::int64_t rows, const Q8Activations& x,
                      qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    quantizedDotRowsWith(quantizedDotKernel(), dot, weights, rowBytes, rows, x, span, y, yStride);
}

}  // namespace gguf
