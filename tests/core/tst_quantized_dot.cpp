// The integer products of quantized weights and q8 activations (kernels/QuantizedDot.h):
// every vector kernel this CPU runs (AVX2, AVX-512 VNNI) gives the scalar reference's bits, on
// random blocks and on blocks of extreme values, for token counts that exercise each tile
// remainder; the scalar reference is the product of the dequantized weights and activations
// (a plain sum in double) within float rounding; and the quantized activations dequantize to
// what the pass's emulation of llama.cpp rounds them to (ActivationRounding.h).

#include "core/forward/ActivationRounding.h"
#include "core/kernels/QuantizedDot.h"
#include "core/quantize/FloatEncode.h"
#include "core/types/GgmlType.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace gguf;

namespace {

struct TypeCase {
    const char* name;
    QuantizedWeight type;
    GgmlTypeId id;
};

const TypeCase kTypes[] = {{"q4_0", QuantizedWeight::Q4_0, GgmlTypeId::Q4_0},
                           {"q8_0", QuantizedWeight::Q8_0, GgmlTypeId::Q8_0},
                           {"q4_K", QuantizedWeight::Q4_K, GgmlTypeId::Q4_K},
                           {"q4_K 8x8", QuantizedWeight::Q4_K_8x8, GgmlTypeId::Q4_K},
                           {"q6_K", QuantizedWeight::Q6_K, GgmlTypeId::Q6_K}};

void putF16(std::uint8_t* p, float value)
{
    const std::uint16_t bits = quantize::f32ToF16Bits(value);
    p[0] = static_cast<std::uint8_t>(bits & 0xFF);
    p[1] = static_cast<std::uint8_t>(bits >> 8);
}

// Random weight rows: random bytes, with every f16 scale replaced by a finite value (extreme:
// every byte 0xFF, so all nibbles 15, Q6_K values 63 and scales -1, Q8_0 values -1; and
// byte 0x80 for the Q8_0 value -128).
std::vector<std::uint8_t> weightRows(const TypeCase& c, std::int64_t rows, std::int64_t columns, unsigned seed, int extreme)
{
    const std::int64_t rowBytes = bytesPerRow(c.type, columns);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(rows * rowBytes));
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(-0.05f, 0.05f);
    for (auto& b : bytes)
        b = extreme == 1 ? 0xFF : extreme == 2 ? 0x80 : static_cast<std::uint8_t>(byte(random));
    const TypeTraits& traits = traitsOf(c.id);
    for (std::size_t first = 0; first < bytes.size(); first += traits.blockBytes) {
        std::uint8_t* block = bytes.data() + first;
        switch (c.type) {
        case QuantizedWeight::Q4_0:
        case QuantizedWeight::Q8_0:
            putF16(block, scale(random));
            break;
        case QuantizedWeight::Q4_K:
        case QuantizedWeight::Q4_K_8x8:
            putF16(block, std::abs(scale(random)));
            putF16(block + 2, std::abs(scale(random)));
            break;
        case QuantizedWeight::Q6_K:
            putF16(block + 208, scale(random));
            break;
        }
    }
    return bytes;
}

std::vector<float> activations(std::int64_t count, unsigned seed, bool extreme)
{
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = extreme ? (i % 3 == 0 ? 100.0f : i % 3 == 1 ? -100.0f : 0.0f) : normal(random);
    if (x.size() > 300)
        std::fill(x.begin() + 256, x.begin() + 288, 0.0f);  // an all-zero block
    return x;
}

std::vector<float> productWith(int kernel, const TypeCase& c, const std::vector<std::uint8_t>& w, std::int64_t rows, const Q8Activations& x)
{
    std::vector<float> y(static_cast<std::size_t>(rows * x.tokens), -1.0f);
    quantizedDotRowsWith(kernel, c.type, w.data(), rows, x, y.data(), rows);
    return y;
}

}  // namespace

class QuantizedDotTest : public QObject {
    Q_OBJECT

private slots:
    void kernelsMatchReference_data()
    {
        QTest::addColumn<int>("typeIndex");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("extreme");
        for (int i = 0; i < 5; ++i)
            for (const int tokens : {1, 2, 3, 4, 7, 8, 9, 19})
                for (const int extreme : {0, 1, 2})
                    QTest::newRow(QStringLiteral("%1 %2 tokens%3").arg(QLatin1String(kTypes[i].name)).arg(tokens)
                                      .arg(extreme == 0 ? "" : extreme == 1 ? " all-ones bytes" : " 0x80 bytes")
                                      .toUtf8())
                        << i << tokens << extreme;
    }

    // Bit for bit: the integer sums are exact and the float order is fixed.
    void kernelsMatchReference()
    {
        QFETCH(int, typeIndex);
        QFETCH(int, tokens);
        QFETCH(int, extreme);
        const TypeCase& c = kTypes[typeIndex];
        constexpr std::int64_t columns = 768;
        constexpr std::int64_t rows = 5;
        const auto w = weightRows(c, rows, columns, 11u + static_cast<unsigned>(typeIndex), extreme);
        const auto xf = activations(tokens * columns, 7u + static_cast<unsigned>(tokens), extreme != 0);
        Q8Activations x;
        quantizeActivations(activationKindOf(c.type), xf.data(), tokens, columns, x);
        const auto reference = productWith(0, c, w, rows, x);
        for (const float v : reference)
            QVERIFY(std::isfinite(v));
        for (int kernel = 1; kernel <= quantizedDotKernel(); ++kernel) {
            const auto fast = productWith(kernel, c, w, rows, x);
            for (std::size_t i = 0; i < reference.size(); ++i)
                QVERIFY2(std::memcmp(&fast[i], &reference[i], sizeof(float)) == 0,
                         qPrintable(QStringLiteral("kernel %1 output %2: %3 vs %4")
                                        .arg(kernel)
                                        .arg(i)
                                        .arg(fast[i], 0, 'g', 9)
                                        .arg(reference[i], 0, 'g', 9)));
        }
        if (quantizedDotKernel() < 2)
            qInfo("this CPU runs kernels up to %d; the others fall back and are not compared", quantizedDotKernel());
    }

    // Wide rows: the kernels cut rows and tokens into cache-sized blocks, with remainders. The
    // 512-bit kernels lay out 16 or 32 rows at a time: one whole chunk, and whole chunks plus 5.
    void blockedShapesMatchReference_data()
    {
        QTest::addColumn<int>("typeIndex");
        QTest::addColumn<int>("rows");
        for (int i = 0; i < 5; ++i)
            for (const int rows : {16, 37, 69})
                QTest::newRow(QStringLiteral("%1 rows%2").arg(QLatin1String(kTypes[i].name)).arg(rows).toUtf8()) << i << rows;
    }

    void blockedShapesMatchReference()
    {
        QFETCH(int, typeIndex);
        QFETCH(int, rows);
        const TypeCase& c = kTypes[typeIndex];
        constexpr std::int64_t columns = 8192;
        constexpr std::int64_t tokens = 21;
        const auto w = weightRows(c, rows, columns, 23u, 0);
        const auto xf = activations(tokens * columns, 29u, false);
        Q8Activations x;
        quantizeActivations(activationKindOf(c.type), xf.data(), tokens, columns, x);
        const auto reference = productWith(0, c, w, rows, x);
        for (int kernel = 1; kernel <= quantizedDotKernel(); ++kernel)
            QVERIFY(productWith(kernel, c, w, rows, x) == reference);
    }

    // Q8_0 and Q4_0 rows of an odd number of blocks, an odd number of tokens: the activations end
    // on half a 64-byte register.
    void oddBlockCountsMatchReference_data()
    {
        QTest::addColumn<int>("typeIndex");
        QTest::addColumn<int>("tokens");
        for (int i = 0; i < 2; ++i)
            for (const int tokens : {1, 5, 7})
                QTest::newRow(QStringLiteral("%1 tokens%2").arg(QLatin1String(kTypes[i].name)).arg(tokens).toUtf8()) << i << tokens;
    }

    void oddBlockCountsMatchReference()
    {
        QFETCH(int, typeIndex);
        QFETCH(int, tokens);
        const TypeCase& c = kTypes[typeIndex];
        constexpr std::int64_t columns = 43 * 32;
        constexpr std::int64_t rows = 21;
        const auto w = weightRows(c, rows, columns, 31u, 0);
        const auto xf = activations(tokens * columns, 37u, false);
        Q8Activations x;
        quantizeActivations(activationKindOf(c.type), xf.data(), tokens, columns, x);
        const auto reference = productWith(0, c, w, rows, x);
        for (int kernel = 1; kernel <= quantizedDotKernel(); ++kernel)
            QVERIFY(productWith(kernel, c, w, rows, x) == reference);
    }

    void referenceIsTheProduct_data()
    {
        QTest::addColumn<int>("typeIndex");
        for (int i = 0; i < 5; ++i)
            QTest::newRow(kTypes[i].name) << i;
    }

    // The reference against sum_i w_i a_i in double, with w_i from the type's dequantization and
    // a_i the dequantized activations: within float rounding of sum_i |w_i a_i|.
    void referenceIsTheProduct()
    {
        QFETCH(int, typeIndex);
        const TypeCase& c = kTypes[typeIndex];
        constexpr std::int64_t columns = 1024;
        constexpr std::int64_t rows = 6;
        constexpr std::int64_t tokens = 3;
        const auto w = weightRows(c, rows, columns, 5u, 0);
        const auto xf = activations(tokens * columns, 3u, false);
        Q8Activations x;
        quantizeActivations(activationKindOf(c.type), xf.data(), tokens, columns, x);
        const auto y = productWith(0, c, w, rows, x);
        const TypeTraits& traits = traitsOf(c.id);
        std::vector<float> wf(static_cast<std::size_t>(rows * columns));
        traits.dequantize(w.data(), wf.data(), static_cast<std::size_t>(rows * columns / traits.blockSize));
        const std::int64_t block = Q8Activations::blockSize(x.kind);
        for (std::int64_t t = 0; t < tokens; ++t)
            for (std::int64_t r = 0; r < rows; ++r) {
                double sum = 0.0, magnitude = 0.0;
                for (std::int64_t i = 0; i < columns; ++i) {
                    const double a = double(x.valuesOf(t)[i]) * double(x.scalesOf(t)[i / block]);
                    const double term = double(wf[static_cast<std::size_t>(r * columns + i)]) * a;
                    sum += term;
                    magnitude += std::abs(term);
                }
                const double got = y[static_cast<std::size_t>(t * rows + r)];
                QVERIFY2(std::abs(got - sum) <= 1e-6 * magnitude,
                         qPrintable(QStringLiteral("token %1 row %2: %3 vs %4 (of %5)").arg(t).arg(r).arg(got).arg(sum).arg(magnitude)));
            }
    }

    // The quantized activations are the pass's llama.cpp rounding (q8_0 and q8_K) to the bit,
    // and q8_K's sums are the sums of each 16 values.
    void activationsMatchTheRounding()
    {
        constexpr std::int64_t columns = 512;
        constexpr std::int64_t tokens = 3;
        auto xf = activations(tokens * columns, 9u, false);
        xf[5] = 1e-30f;
        xf[300] = -7.5f;
        // Token 1's second q8_K block all zero; token 2's first block has its largest magnitude
        // twice, negative first: that one gives the sign (d > 0, as ggml's strict `>` keeps it).
        std::fill(xf.begin() + columns + 256, xf.begin() + 2 * columns, 0.0f);
        xf[2 * columns + 17] = -9.0f;
        xf[2 * columns + 200] = 9.0f;
        const std::pair<Q8Kind, ActivationRounding> kinds[] = {{Q8Kind::Q8_0, ActivationRounding::Q8_0}, {Q8Kind::Q8_K, ActivationRounding::Q8_K}};
        for (const auto& [kind, rounding] : kinds) {
            Q8Activations x;
            quantizeActivations(kind, xf.data(), tokens, columns, x);
            std::vector<float> rounded = xf;
            roundActivations(rounding, rounded, columns);
            const std::int64_t block = Q8Activations::blockSize(kind);
            for (std::int64_t t = 0; t < tokens; ++t)
                for (std::int64_t i = 0; i < columns; ++i) {
                    const float mine = x.scalesOf(t)[i / block] * static_cast<float>(x.valuesOf(t)[i]);
                    QVERIFY2(mine == rounded[static_cast<std::size_t>(t * columns + i)],
                             qPrintable(QStringLiteral("token %1 value %2").arg(t).arg(i)));
                    QVERIFY(x.valuesOf(t)[i] >= -127);
                }
            if (kind != Q8Kind::Q8_K)
                continue;
            for (std::int64_t t = 0; t < tokens; ++t)
                for (std::int64_t g = 0; g < columns / 16; ++g) {
                    int sum = 0;
                    for (int j = 0; j < 16; ++j)
                        sum += x.valuesOf(t)[g * 16 + j];
                    QCOMPARE(int(x.sumsOf(t)[g]), sum);
                }
            // The int16 copy in wide order, and the sums of each 32.
            for (std::int64_t t = 0; t < tokens; ++t)
                for (std::int64_t i = 0; i < columns; ++i)
                    QCOMPARE(int(x.wideOf(t)[i]), int(x.valuesOf(t)[i / 32 * 32 + wideOrder(static_cast<int>(i % 32))]));
            for (std::int64_t t = 0; t < tokens; ++t)
                for (std::int64_t p = 0; p < columns / 32; ++p)
                    QCOMPARE(int(x.pairSumsOf(t)[p]), int(x.sumsOf(t)[2 * p]) + int(x.sumsOf(t)[2 * p + 1]));
            QCOMPARE(x.scalesOf(1)[1], 0.0f);
            QVERIFY(x.scalesOf(2)[0] > 0.0f);
            QCOMPARE(int(x.valuesOf(2)[17]), -127);
            QCOMPARE(int(x.valuesOf(2)[200]), 127);
        }
    }
};

QTEST_APPLESS_MAIN(QuantizedDotTest)
#include "tst_quantized_dot.moc"
