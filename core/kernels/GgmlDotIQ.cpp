// The kernels of GgmlDot.h for the grid IQ types and IQ4_XS against q8_K activations:
// ggml-cpu's vec_dot (arch/x86/quants.c) and the panel of iqp.cpp. Each super-block is read
// as iqp.cpp decodes it: integer weights (the signed grid values; for IQ1 the grid value and
// the +-1 delta apart), an integer scale per 16 values and the f16 d; value = d * factor *
// scale * weight (IQ1: weight + delta / 8).

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/BlockRead.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/GgmlDot.h"
#include "core/kernels/GgmlDotLanes.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/IqGrid.h"
#include "core/kernels/QuantizedDotVector.h"

#include <cmath>

namespace gguf::ggmldot {

namespace {

namespace b = blocks;
namespace cb = codebooks;
using kernels::gridByte;
using kernels::gridSignedByte;
using kernels::loadF16;
using kernels::loadLe;

struct IqSuperBlock {
    std::int8_t w[256];      // the integer weights (IQ1: the grid value, -1, 0 or 1)
    std::int8_t delta[256];  // IQ1 only: the delta's sign, -1 or 1
    int scale16[16];
    float d;                 // the f16 super-block scale
};

inline std::int8_t signedByte(int magnitude, std::uint8_t signs, int k)
{
    return static_cast<std::int8_t>((signs & cb::kmask_iq2xs[k]) ? -magnitude : magnitude);
}

void readIQ2_XXS(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ2_XXS;
    s.d = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t* group = block + L::qs + 8 * ib;
        const std::uint32_t signsAndScale = loadLe<std::uint32_t>(group + 4);
        s.scale16[2 * ib] = s.scale16[2 * ib + 1] = static_cast<int>(2 * (signsAndScale >> 28) + 1);
        for (int l = 0; l < 4; ++l) {
            const std::uint8_t signs = cb::ksigns_iq2xs[(signsAndScale >> (7 * l)) & 127];
            for (int j = 0; j < 8; ++j)
                s.w[32 * ib + 8 * l + j] = signedByte(gridByte(cb::iq2xxs_grid[group[l]], j), signs, j);
        }
    }
}

void readIQ2_XS(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ2_XS;
    s.d = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        s.scale16[2 * ib] = 2 * (block[L::scales + ib] & 0xF) + 1;
        s.scale16[2 * ib + 1] = 2 * (block[L::scales + ib] >> 4) + 1;
        for (int l = 0; l < 4; ++l) {
            const std::uint16_t q = loadLe<std::uint16_t>(block + L::qs + 2 * (4 * ib + l));
            for (int j = 0; j < 8; ++j)
                s.w[32 * ib + 8 * l + j] = signedByte(gridByte(cb::iq2xs_grid[q & 511], j), cb::ksigns_iq2xs[q >> 9], j);
        }
    }
}

void readIQ2_S(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ2_S;
    s.d = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        s.scale16[2 * ib] = 2 * (block[L::scales + ib] & 0xF) + 1;
        s.scale16[2 * ib + 1] = 2 * (block[L::scales + ib] >> 4) + 1;
        for (int l = 0; l < 4; ++l) {
            const int index = block[L::qs + 4 * ib + l] | ((block[L::qh + ib] << (8 - 2 * l)) & 0x300);
            const std::uint8_t signs = block[L::qs + 32 + 4 * ib + l];
            for (int j = 0; j < 8; ++j)
                s.w[32 * ib + 8 * l + j] = signedByte(gridByte(cb::iq2s_grid[index], j), signs, j);
        }
    }
}

void readIQ3_XXS(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ3_XXS;
    s.d = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t* qs = block + L::qs + 8 * ib;
        const std::uint32_t aux = loadLe<std::uint32_t>(block + L::qs + 64 + 4 * ib);
        s.scale16[2 * ib] = s.scale16[2 * ib + 1] = static_cast<int>(2 * (aux >> 28) + 1);
        for (int l = 0; l < 4; ++l) {
            const std::uint8_t signs = cb::ksigns_iq2xs[(aux >> (7 * l)) & 127];
            for (int j = 0; j < 4; ++j) {
                s.w[32 * ib + 8 * l + j] = signedByte(gridByte(cb::iq3xxs_grid[qs[2 * l]], j), signs, j);
                s.w[32 * ib + 8 * l + 4 + j] = signedByte(gridByte(cb::iq3xxs_grid[qs[2 * l + 1]], j), signs, j + 4);
            }
        }
    }
}

void readIQ3_S(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ3_S;
    s.d = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t* qs = block + L::qs + 8 * ib;
        const std::uint8_t qh = block[L::qh + ib];
        const int scale = (ib % 2 == 0) ? (block[L::scales + ib / 2] & 0xF) : (block[L::scales + ib / 2] >> 4);
        s.scale16[2 * ib] = s.scale16[2 * ib + 1] = 1 + 2 * scale;
        for (int l = 0; l < 4; ++l) {
            const std::uint8_t signs = block[L::signs + 4 * ib + l];
            const int index1 = qs[2 * l] | ((qh << (8 - 2 * l)) & 256);
            const int index2 = qs[2 * l + 1] | ((qh << (7 - 2 * l)) & 256);
            for (int j = 0; j < 4; ++j) {
                s.w[32 * ib + 8 * l + j] = signedByte(gridByte(cb::iq3s_grid[index1], j), signs, j);
                s.w[32 * ib + 8 * l + 4 + j] = signedByte(gridByte(cb::iq3s_grid[index2], j), signs, j + 4);
            }
        }
    }
}

void readIQ1_S(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ1_S;
    s.d = loadF16(block + L::d);
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint16_t qh = loadLe<std::uint16_t>(block + L::qh + 2 * ib);
        s.scale16[2 * ib] = s.scale16[2 * ib + 1] = 2 * ((qh >> 12) & 7) + 1;
        const std::int8_t delta = (qh & 0x8000) ? -1 : 1;
        for (int l = 0; l < 4; ++l) {
            const std::uint64_t grid = cb::iq1s_grid[block[L::qs + 4 * ib + l] | (((qh >> (3 * l)) & 7) << 8)];
            for (int j = 0; j < 8; ++j) {
                s.w[32 * ib + 8 * l + j] = gridSignedByte(grid, j);
                s.delta[32 * ib + 8 * l + j] = delta;
            }
        }
    }
}

void readIQ1_M(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ1_M;
    std::uint16_t sc[4];
    for (int k = 0; k < 4; ++k)
        sc[k] = loadLe<std::uint16_t>(block + L::scales + 2 * k);
    s.d = f16ToF32(static_cast<std::uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000)));
    for (int ib = 0; ib < 8; ++ib) {
        const std::uint8_t* qs = block + L::qs + 4 * ib;
        const std::uint8_t* qh = block + L::qh + 2 * ib;
        s.scale16[2 * ib] = 2 * ((sc[ib / 2] >> (6 * (ib % 2))) & 7) + 1;
        s.scale16[2 * ib + 1] = 2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1;
        const int index[4] = {qs[0] | ((qh[0] << 8) & 0x700), qs[1] | ((qh[0] << 4) & 0x700), qs[2] | ((qh[1] << 8) & 0x700),
                              qs[3] | ((qh[1] << 4) & 0x700)};
        const bool negative[4] = {(qh[0] & 0x08) != 0, (qh[0] & 0x80) != 0, (qh[1] & 0x08) != 0, (qh[1] & 0x80) != 0};
        for (int l = 0; l < 4; ++l)
            for (int j = 0; j < 8; ++j) {
                s.w[32 * ib + 8 * l + j] = gridSignedByte(cb::iq1s_grid[index[l]], j);
                s.delta[32 * ib + 8 * l + j] = negative[l] ? -1 : 1;
            }
    }
}

void readIQ4_XS(const std::uint8_t* block, IqSuperBlock& s)
{
    using L = b::IQ4_XS;
    s.d = loadF16(block + L::d);
    const std::uint16_t scalesH = loadLe<std::uint16_t>(block + L::scalesH);
    for (int ib = 0; ib < 8; ++ib) {
        const int ls = ((block[L::scalesL + ib / 2] >> (4 * (ib % 2))) & 0xF) | (((scalesH >> (2 * ib)) & 3) << 4);
        s.scale16[2 * ib] = s.scale16[2 * ib + 1] = ls - 32;
        const std::uint8_t* qs = block + L::qs + 16 * ib;
        for (int j = 0; j < 16; ++j) {
            s.w[32 * ib + j] = cb::kvalues_iq4nl[qs[j] & 0xF];
            s.w[32 * ib + 16 + j] = cb::kvalues_iq4nl[qs[j] >> 4];
        }
    }
}

using ReadFn = void (*)(const std::uint8_t*, IqSuperBlock&);

template <ReadFn read, std::size_t BlockBytes>
auto reader(const std::uint8_t* row)
{
    return [row](std::int64_t k, IqSuperBlock& block) { read(row + k * static_cast<std::int64_t>(BlockBytes), block); };
}

struct Lanes {
    float acc[8] = {};
};

// The vec_dot of the IQ2, IQ3 and IQ4_XS types (AVX2): per super-block lane =
// fma(dW * dA, lane sum of scale * weight * a), then `factor` times the horizontal sum.
template <ReadFn read, std::size_t BlockBytes>
void laneChain(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride, float factor)
{
    overTokens<IqSuperBlock, Lanes>(
        span, x.columns / 256, y, yStride, reader<read, BlockBytes>(row),
        [&](Lanes& s, const IqSuperBlock& block, std::int64_t t, std::int64_t k) {
            std::int32_t lanes[8] = {};
            addLaneProducts(block.w, x.valuesOf(t) + 256 * k, 256, block.scale16, lanes);
            fmaLanes(block.d * x.scalesOf(t)[k], lanes, s.acc);
        },
        [factor](const Lanes& s) { return factor * sumLanes8(s.acc); });
}

// iqp.cpp (AVX2, without VNNI): per super-block the integer sum of scale * (weight, IQ1:
// 8 weight + delta) * a, then one chain, fma(float(sum), d * factor * dA, acc).
template <ReadFn read, std::size_t BlockBytes, bool Iq1>
void panelChain(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride, float factor)
{
    struct Panel {
        IqSuperBlock block;
        std::int8_t weights[256];  // as the panel stores them
    };
    overTokens<Panel, float>(
        span, x.columns / 256, y, yStride,
        [row](std::int64_t k, Panel& panel) {
            read(row + k * static_cast<std::int64_t>(BlockBytes), panel.block);
            for (int v = 0; v < 256; ++v)
                panel.weights[v] = static_cast<std::int8_t>(Iq1 ? 8 * panel.block.w[v] + panel.block.delta[v] : panel.block.w[v]);
        },
        [&](float& acc, const Panel& panel, std::int64_t t, std::int64_t k) {
            const std::int8_t* a = x.valuesOf(t) + 256 * k;
            // The super-block's integer sum, formed in lanes (exact in any order).
            std::int32_t lanes[8] = {};
            addLaneProducts(panel.weights, a, 256, panel.block.scale16, lanes);
            std::int32_t sum = 0;
            for (const std::int32_t lane : lanes)
                sum += lane;
            acc = std::fma(static_cast<float>(sum), (panel.block.d * factor) * x.scalesOf(t)[k], acc);
        },
        [](float acc) { return acc; });
}

// Each super-block of a row into `out` (QuantizedDotVector.h): as laneChain reads it (the factor
// applied to the lane sum at the end) or, `Panel`, as panelChain does (IQ1: 8 weight + delta;
// d times the factor, in that order). The factor is `Eighths` / 8, exact.
template <ReadFn read, std::size_t BlockBytes, bool Panel, bool Iq1, int Eighths>
void prepareRow(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    const float factor = static_cast<float>(Eighths) / 8.0f;
    IqSuperBlock block;
    for (std::int64_t k = 0; k < columns / 256; ++k) {
        read(row + k * static_cast<std::int64_t>(BlockBytes), block);
        if constexpr (Iq1)
            for (int v = 0; v < 256; ++v)
                block.w[v] = static_cast<std::int8_t>(8 * block.w[v] + block.delta[v]);
        storeWideScaled(block.w, block.scale16, out.weights + 256 * k);
        out.d[k] = Panel ? block.d * factor : block.d;
    }
    out.factor = Panel ? 1.0f : factor;
}

}  // namespace

void prepareIq2_xxs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ2_XXS, b::IQ2_XXS::bytes, false, false, 1>(row, columns, out);
}
void prepareIq2_xs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ2_XS, b::IQ2_XS::bytes, false, false, 1>(row, columns, out);
}
void prepareIq2_s(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ2_S, b::IQ2_S::bytes, false, false, 1>(row, columns, out);
}
void prepareIq3_xxs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ3_XXS, b::IQ3_XXS::bytes, false, false, 2>(row, columns, out);
}
void prepareIq3_s(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ3_S, b::IQ3_S::bytes, false, false, 8>(row, columns, out);
}
void prepareIq4_xs(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ4_XS, b::IQ4_XS::bytes, false, false, 8>(row, columns, out);
}
void prepareIq2_xxsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ2_XXS, b::IQ2_XXS::bytes, true, false, 1>(row, columns, out);
}
void prepareIq2_xsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ2_XS, b::IQ2_XS::bytes, true, false, 1>(row, columns, out);
}
void prepareIq2_sPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ2_S, b::IQ2_S::bytes, true, false, 1>(row, columns, out);
}
void prepareIq3_xxsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ3_XXS, b::IQ3_XXS::bytes, true, false, 2>(row, columns, out);
}
void prepareIq3_sPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ3_S, b::IQ3_S::bytes, true, false, 8>(row, columns, out);
}
void prepareIq1_sPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ1_S, b::IQ1_S::bytes, true, true, 1>(row, columns, out);
}
void prepareIq1_mPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ1_M, b::IQ1_M::bytes, true, true, 1>(row, columns, out);
}
void prepareIq4_xsPanel(const std::uint8_t* row, std::int64_t columns, qdot::PreparedRow& out)
{
    prepareRow<readIQ4_XS, b::IQ4_XS::bytes, true, false, 8>(row, columns, out);
}

void iq2_xxs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<readIQ2_XXS, b::IQ2_XXS::bytes>(row, x, span, y, yStride, 0.125f);
}
void iq2_xs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<readIQ2_XS, b::IQ2_XS::bytes>(row, x, span, y, yStride, 0.125f);
}
void iq2_s(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<readIQ2_S, b::IQ2_S::bytes>(row, x, span, y, yStride, 0.125f);
}
void iq3_xxs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<readIQ3_XXS, b::IQ3_XXS::bytes>(row, x, span, y, yStride, 0.25f);
}
void iq3_s(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<readIQ3_S, b::IQ3_S::bytes>(row, x, span, y, yStride, 1.0f);
}
void iq4_xs(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    laneChain<readIQ4_XS, b::IQ4_XS::bytes>(row, x, span, y, yStride, 1.0f);
}

// ggml_vec_dot_iq1_s_q8_K (AVX2): the grid values in lanes, fma(dA * d, lane); the deltas as one
// integer per super-block, the q8_K block sums of each 32 times its delta sign and scale,
// accum1 = fma(dA * d, that, accum1); the lane sum plus IQ1S_DELTA times accum1.
void iq1_s(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    struct Sums {
        float acc[8] = {};
        float accum1 = 0.0f;
    };
    overTokens<IqSuperBlock, Sums>(
        span, x.columns / 256, y, yStride, reader<readIQ1_S, b::IQ1_S::bytes>(row),
        [&](Sums& s, const IqSuperBlock& block, std::int64_t t, std::int64_t k) {
            std::int32_t lanes[8] = {};
            addLaneProducts(block.w, x.valuesOf(t) + 256 * k, 256, block.scale16, lanes);
            const std::int16_t* bsums = x.sumsOf(t) + 16 * k;
            std::int32_t deltas = 0;
            for (int ib = 0; ib < 8; ++ib)
                deltas += (bsums[2 * ib] + bsums[2 * ib + 1]) * block.delta[32 * ib] * block.scale16[2 * ib];
            const float d = x.scalesOf(t)[k] * block.d;
            fmaLanes(d, lanes, s.acc);
            s.accum1 = std::fma(d, static_cast<float>(deltas), s.accum1);
        },
        [](const Sums& s) { return sumLanes8(s.acc) + cb::IQ1S_DELTA * s.accum1; });
}

// ggml_vec_dot_iq1_m_q8_K (AVX2): the grid values and the deltas in two lane chains, each
// fma(dA * d, lane); the first's sum plus IQ1M_DELTA times the second's.
void iq1_m(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    struct Sums {
        float acc[8] = {};
        float accDelta[8] = {};
    };
    overTokens<IqSuperBlock, Sums>(
        span, x.columns / 256, y, yStride, reader<readIQ1_M, b::IQ1_M::bytes>(row),
        [&](Sums& s, const IqSuperBlock& block, std::int64_t t, std::int64_t k) {
            std::int32_t lanes[8] = {}, deltaLanes[8] = {};
            addLaneProducts(block.w, x.valuesOf(t) + 256 * k, 256, block.scale16, lanes);
            addLaneProducts(block.delta, x.valuesOf(t) + 256 * k, 256, block.scale16, deltaLanes);
            const float d = x.scalesOf(t)[k] * block.d;
            fmaLanes(d, lanes, s.acc);
            fmaLanes(d, deltaLanes, s.accDelta);
        },
        [](const Sums& s) { return sumLanes8(s.acc) + cb::IQ1M_DELTA * sumLanes8(s.accDelta); });
}

void iq2_xxsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ2_XXS, b::IQ2_XXS::bytes, false>(row, x, span, y, yStride, 0.125f);
}
void iq2_xsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ2_XS, b::IQ2_XS::bytes, false>(row, x, span, y, yStride, 0.125f);
}
void iq2_sPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ2_S, b::IQ2_S::bytes, false>(row, x, span, y, yStride, 0.125f);
}
void iq3_xxsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ3_XXS, b::IQ3_XXS::bytes, false>(row, x, span, y, yStride, 0.25f);
}
void iq3_sPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ3_S, b::IQ3_S::bytes, false>(row, x, span, y, yStride, 1.0f);
}
void iq1_sPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ1_S, b::IQ1_S::bytes, true>(row, x, span, y, yStride, 0.125f);
}
void iq1_mPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ1_M, b::IQ1_M::bytes, true>(row, x, span, y, yStride, 0.125f);
}
void iq4_xsPanel(const std::uint8_t* row, const Q8Activations& x, qdot::TokenSpan span, float* y, std::int64_t yStride)
{
    panelChain<readIQ4_XS, b::IQ4_XS::bytes, false>(row, x, span, y, yStride, 1.0f);
}

}  // namespace gguf::ggmldot
