// The grid quantizers' fast searches against their scalar forms, bit for bit: the neighbour search
// (quantize/GridNeighbours.h) for every off-grid point of every grid, and IQ1_S's split search
// (quantize/TernarySplit.h, both forms also against ggml's loop written out), on inputs the fixtures rarely hold: exact ties (the point itself at
// scale 1, so every nearest neighbour is at the same distance), zeros, zero weights, flat groups,
// huge values whose distances overflow, NaN. The fixture suites (tst_quantize_imatrix,
// tst_convert_imatrix, tst_cli_recipe) prove the dispatched path byte-identical to ggml;
// this suite makes the other path answer for itself too.

#include "core/kernels/KernelIsa.h"
#include "core/quantize/GridNeighbours.h"
#include "core/quantize/GridTables.h"
#include "core/quantize/TernarySplit.h"

#include <QtTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

using namespace gguf::quantize;

namespace {

struct Lcg {
    std::uint32_t state = 2024;
    float next()  // [0, 1)
    {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) / float(1u << 24);
    }
};

// Fills x and w (elements values each) for variant `kind` of the off-grid point with levels `levels`.
void fillCase(int kind, int elements, const int* levels, Lcg& rng, float* x, float* w, float& scale)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    scale = 1.0f;
    for (int i = 0; i < elements; ++i) {
        const float point = float(2 * levels[i] + 1);
        switch (kind) {
        case 0: x[i] = point; w[i] = 1.0f; break;                                  // exact ties
        case 1: x[i] = point; w[i] = 0.5f + float(i % 2); break;                   // ties, two weights
        case 2: x[i] = 0.0f; w[i] = 0.0f; break;                                   // all zero
        case 3: x[i] = 2.0f; w[i] = rng.next(); scale = 0.0f; break;               // zero scale
        case 4: x[i] = point * 0.37f + rng.next() * 0.1f; w[i] = rng.next(); scale = 0.37f; break;
        case 5: x[i] = 3e19f * point; w[i] = 1e10f; scale = 1e-19f; break;        // overflowing distances
        case 6: x[i] = i == 1 ? nan : point; w[i] = 1.0f; break;                  // one NaN: all NaN
        case 7: x[i] = point + rng.next() - 0.5f; w[i] = i == 2 ? 0.0f : rng.next() * 4.0f; break;
        default: x[i] = rng.next() * 15.0f; w[i] = rng.next(); scale = 0.5f + rng.next(); break;
        }
    }
}

constexpr int kCases = 10;

// ggml's split loop as quantize_row_iq1_s_impl writes it, the reference both forms answer to.
TernarySplit literalSplit(const float* sumx, const float* sumw, int n, float scale, const float* plus, const float* minus)
{
    TernarySplit best;
    best.scale = scale;
    float bestScore = -std::numeric_limits<float>::max();
    for (int i1 = 0; i1 <= n; ++i1)
        for (int i2 = i1; i2 <= n; ++i2)
            for (const int shift : {1, -1}) {
                const float* v = shift == 1 ? plus : minus;
                const float sumqx = (sumx[i1] - sumx[0]) * v[0] + (sumx[i2] - sumx[i1]) * v[1] + (sumx[n] - sumx[i2]) * v[2];
                const float sumq2 = (sumw[i1] - sumw[0]) * v[0] * v[0] + (sumw[i2] - sumw[i1]) * v[1] * v[1]
                                  + (sumw[n] - sumw[i2]) * v[2] * v[2];
                if (sumq2 > 0.0f && sumqx * sumqx > bestScore * sumq2) {
                    best.scale = sumqx / sumq2;
                    bestScore = best.scale * sumqx;
                    best.i1 = i1;
                    best.i2 = i2;
                    best.shift = shift;
                }
            }
    return best;
}

}  // namespace

class QuantizeGridTest : public QObject {
    Q_OBJECT

private slots:
    void neighbourSearchMatchesScalar_data();
    void neighbourSearchMatchesScalar();
    void ternarySplitMatchesScalar();
};

void QuantizeGridTest::neighbourSearchMatchesScalar_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("iq2_xxs") << int(GridKind::IQ2_XXS);
    QTest::newRow("iq2_xs") << int(GridKind::IQ2_XS);
    QTest::newRow("iq2_s") << int(GridKind::IQ2_S);
    QTest::newRow("iq1_s") << int(GridKind::IQ1_S);
    QTest::newRow("iq3_xxs") << int(GridKind::IQ3_XXS);
    QTest::newRow("iq3_s") << int(GridKind::IQ3_S);
}

void QuantizeGridTest::neighbourSearchMatchesScalar()
{
    QFETCH(int, kind);
    qInfo("dispatched search: %s", gguf::kernelIsaName(gguf::preferredKernelIsa()));
    const GridTables& t = gridTables(GridKind(kind));
    const bool iq1 = GridKind(kind) == GridKind::IQ1_S;
    const int bits = t.elements == 8 ? 2 : 3;
    constexpr float kDelta = 0.125f;
    const float plus[3] = {-1.0f + kDelta, kDelta, 1.0f + kDelta};
    const float minus[3] = {-1.0f - kDelta, -kDelta, 1.0f - kDelta};
    Lcg rng;
    int searched = 0;
    int tiesLost = 0;  // cases where the winner is not the list's first entry despite ties: a sanity count
    for (std::size_t u = 0; u < t.map.size(); ++u) {
        const int mapValue = t.map[u];
        if (mapValue >= 0)
            continue;
        QVERIFY(t.listOf(mapValue).count > 0);
        int levels[8];
        for (int i = 0; i < t.elements; ++i)
            levels[i] = int(u >> (bits * i)) & ((1 << bits) - 1);
        for (int c = 0; c < kCases; ++c) {
            float x[8];
            float w[8];
            float scale = 1.0f;
            fillCase(c, t.elements, levels, rng, x, w, scale);
            for (const float* values : {iq1 ? plus : kOddLevelValues, iq1 ? minus : kOddLevelValues}) {
                const int expected = bestGridNeighbourScalar(t, mapValue, x, w, scale, values);
                const int actual = bestGridNeighbour(t, mapValue, x, w, scale, values);
                if (expected != actual)
                    QFAIL(qPrintable(QStringLiteral("point %1 case %2: scalar chose %3, dispatched %4").arg(u).arg(c).arg(expected).arg(actual)));
                tiesLost += c == 2 && expected != t.neighbours[t.listOf(mapValue).first];
                ++searched;
            }
        }
    }
    std::size_t shortLists = 0;
    std::size_t candidates = 0;
    for (const NeighbourList& list : t.lists) {
        shortLists += list.count < 8;
        candidates += list.count;
    }
    qInfo("%zu off-grid lists, %zu of them under 8 candidates, %.1f candidates on average", t.lists.size(), shortLists,
          double(candidates) / double(t.lists.size()));
    QCOMPARE(tiesLost, 0);  // all-zero input: every distance 0, the first neighbour wins
    QVERIFY(searched > 1000);
}

void QuantizeGridTest::ternarySplitMatchesScalar()
{
    qInfo("dispatched search: %s", gguf::kernelIsaName(gguf::preferredKernelIsa()));
    constexpr float kDelta = 0.125f;
    const float plus[3] = {-1.0f + kDelta, kDelta, 1.0f + kDelta};
    const float minus[3] = {-1.0f - kDelta, -kDelta, 1.0f - kDelta};
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Lcg rng;
    for (const int n : {32, 16, 7, 1}) {
        for (int c = 0; c < 400; ++c) {
            std::vector<float> xs(static_cast<std::size_t>(n));
            std::vector<float> ws(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i) {
                switch (c % 9) {
                case 0: xs[std::size_t(i)] = 0.0f; ws[std::size_t(i)] = 1.0f; break;              // all zero
                case 1: xs[std::size_t(i)] = 0.5f; ws[std::size_t(i)] = 1.0f; break;              // flat
                case 2: xs[std::size_t(i)] = float(i % 3) - 1.0f; ws[std::size_t(i)] = 1.0f; break;  // ties
                case 3: xs[std::size_t(i)] = rng.next() - 0.5f; ws[std::size_t(i)] = 0.0f; break;  // no weight
                case 4: xs[std::size_t(i)] = (rng.next() - 0.5f) * 3e37f; ws[std::size_t(i)] = 1e10f; break;  // overflow
                case 5: xs[std::size_t(i)] = i == n / 2 ? nan : rng.next(); ws[std::size_t(i)] = 1.0f; break;
                case 6: xs[std::size_t(i)] = -rng.next(); ws[std::size_t(i)] = rng.next(); break;  // one-signed
                default: xs[std::size_t(i)] = rng.next() - 0.5f; ws[std::size_t(i)] = rng.next() * 2.0f; break;
                }
            }
            std::sort(xs.begin(), xs.end(), [](float a, float b) { return a < b; });
            std::vector<float> sumx(std::size_t(n + 1 + 8), 0.0f);
            std::vector<float> sumw(std::size_t(n + 1 + 8), 0.0f);
            for (int j = 0; j < n; ++j) {
                sumx[std::size_t(j + 1)] = sumx[std::size_t(j)] + ws[std::size_t(j)] * xs[std::size_t(j)];
                sumw[std::size_t(j + 1)] = sumw[std::size_t(j)] + ws[std::size_t(j)];
            }
            const TernarySplit expected = literalSplit(sumx.data(), sumw.data(), n, 1.5f, plus, minus);
            for (const TernarySplit& actual : {bestTernarySplitScalar(sumx.data(), sumw.data(), n, 1.5f, plus, minus),
                                               bestTernarySplit(sumx.data(), sumw.data(), n, 1.5f, plus, minus)}) {
                QCOMPARE(actual.i1, expected.i1);
                QCOMPARE(actual.i2, expected.i2);
                QCOMPARE(actual.shift, expected.shift);
                QCOMPARE(std::bit_cast<std::uint32_t>(actual.scale), std::bit_cast<std::uint32_t>(expected.scale));
            }
        }
    }
}

QTEST_APPLESS_MAIN(QuantizeGridTest)
#include "tst_quantize_grid.moc"
