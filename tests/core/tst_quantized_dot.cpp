// The integer products of quantized weights and q8 activations (kernels/QuantizedDot.h), for
// every kernel the type table names (CpuProduct: vec_dot, tinyBLAS, the repacked gemv / gemm,
// the IQ panel):
//  - every vector kernel this CPU runs (AVX2, AVX-512 VNNI) gives the scalar kernel's bits, on
//    random blocks and on blocks of extreme values, for token spans that exercise each tile
//    remainder and start past the first token;
//  - every scalar kernel is the product of the dequantized weights and activations (a plain sum
//    in double) within float rounding, so each kernel reads the blocks as the dequantization
//    does;
//  - the quantized activations dequantize to what the pass rounds them to (ActivationRounding.h),
//    q8_1's block sums are f16(d * sum) and q8_K's the sums of each 16 values.
// (Their bits against llama.cpp's own are tst_forward_types' and the oracle's.)

#include "core/forward/ActivationRounding.h"
#include "core/kernels/GgmlDotLanes.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/KernelIsa.h"
#include "core/kernels/KernelIsaCap.h"
#include "core/kernels/LaneProduct.h"
#include "core/kernels/QuantizedDot.h"
#include "core/kernels/FloatEncode.h"
#include "core/types/GgmlType.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <random>
#include <vector>

using namespace gguf;

namespace {

// One kernel of one type's row.
struct KernelCase {
    const TypeTraits* type;
    const char* role;
    RowDotFn dot;
};

std::vector<KernelCase> kernelCases()
{
    std::vector<KernelCase> cases;
    for (const TypeTraits* t = typeTableBegin(); t != typeTableEnd(); ++t) {
        const CpuProduct& p = t->cpu;
        const std::pair<const char*, RowDotFn> kernels[] = {
            {"vec_dot", p.vecDot}, {"tinyBLAS", p.tinyBlas}, {"gemv", p.repackedGemv}, {"gemm", p.repackedGemm}, {"panel", p.panel}};
        for (const auto& [role, dot] : kernels)
            if (dot)
                cases.push_back({t, role, dot});
    }
    return cases;
}

void putF16(std::uint8_t* p, float value)
{
    const std::uint16_t bits = quantize::f32ToF16Bits(value);
    p[0] = static_cast<std::uint8_t>(bits & 0xFF);
    p[1] = static_cast<std::uint8_t>(bits >> 8);
}

// Random weight rows: random bytes (extreme: every byte 0xFF, or every byte 0x80, a Q8_0 value
// -128), with every scale field replaced by a finite value of a usual size.
std::vector<std::uint8_t> weightRows(const TypeTraits& type, std::int64_t rows, std::int64_t columns, unsigned seed, int extreme)
{
    const std::int64_t rowBytes = columns / type.blockSize * type.blockBytes;
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(rows * rowBytes));
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(-0.05f, 0.05f);
    for (auto& b : bytes)
        b = extreme == 1 ? 0xFF : extreme == 2 ? 0x80 : static_cast<std::uint8_t>(byte(random));
    for (std::size_t first = 0; first < bytes.size(); first += type.blockBytes)
        for (const BlockField& field : type.fields) {
            std::uint8_t* at = bytes.data() + first + field.offset;
            switch (field.encoding) {
            case FieldEncoding::F16:
                putF16(at, scale(random));
                break;
            case FieldEncoding::E8M0:
                *at = static_cast<std::uint8_t>(124 + byte(random) % 6);
                break;
            case FieldEncoding::UE4M3x4:
                for (std::uint32_t i = 0; i < field.size; ++i)
                    at[i] = static_cast<std::uint8_t>(0x30 + byte(random) % 16);
                break;
            default:
                break;
            }
        }
    // IQ1_M keeps its f16 scale in the top nibbles of its four u16 scales: a usual one.
    if (type.is(GgmlTypeId::IQ1_M))
        for (std::size_t first = 0; first < bytes.size(); first += type.blockBytes) {
            const std::uint16_t d = quantize::f32ToF16Bits(std::abs(scale(random)));
            for (int k = 0; k < 4; ++k) {
                std::uint8_t* high = bytes.data() + first + 48 + 2 * k + 1;
                *high = static_cast<std::uint8_t>((*high & 0x0F) | (((d >> (4 * k)) & 0xF) << 4));
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

Q8Activations quantized(const KernelCase& c, const std::vector<float>& xf, std::int64_t tokens, std::int64_t columns)
{
    Q8Activations x;
    quantizeActivations(*q8KindOf(c.type->cpu.activations), xf.data(), tokens, columns, x);
    return x;
}

// Outputs of tokens [first, tokens) (the others stay -1).
std::vector<float> productWith(int kernel, const KernelCase& c, const std::vector<std::uint8_t>& w, std::int64_t rows, const Q8Activations& x,
                               std::int64_t first = 0)
{
    std::vector<float> y(static_cast<std::size_t>(rows * x.tokens), -1.0f);
    const std::int64_t rowBytes = x.columns / c.type->blockSize * c.type->blockBytes;
    quantizedDotRowsWith(kernel, c.dot, w.data(), rowBytes, rows, x, {first, x.tokens - first}, y.data(), rows);
    return y;
}

void compareBits(const std::vector<float>& fast, const std::vector<float>& reference, int kernel)
{
    for (std::size_t i = 0; i < reference.size(); ++i)
        QVERIFY2(std::memcmp(&fast[i], &reference[i], sizeof(float)) == 0,
                 qPrintable(QStringLiteral("kernel %1 output %2: %3 vs %4").arg(kernel).arg(i).arg(fast[i], 0, 'g', 9).arg(reference[i], 0, 'g', 9)));
}

QString caseName(const KernelCase& c)
{
    return QLatin1String(c.type->name) + QLatin1Char(' ') + QLatin1String(c.role);
}

// A column count of whole blocks of the weight and of its activations, 768 or near it.
std::int64_t columnsFor(const KernelCase& c, std::int64_t wanted)
{
    const std::int64_t block = std::max<std::int64_t>(c.type->blockSize, Q8Activations::blockSize(*q8KindOf(c.type->cpu.activations)));
    return std::max<std::int64_t>(block, wanted / block * block);
}

}  // namespace

class QuantizedDotTest : public QObject {
    Q_OBJECT

private slots:
    void kernelsMatchScalar_data()
    {
        QTest::addColumn<int>("caseIndex");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("extreme");
        // The kernels with a vector form (the others run their scalar form on every CPU).
        const auto cases = kernelCases();
        for (int i = 0; i < static_cast<int>(cases.size()); ++i)
            if (hasVectorDot(cases[static_cast<std::size_t>(i)].dot))
                for (const int tokens : {1, 2, 3, 4, 7, 8, 9, 19})
                    for (const int extreme : {0, 1, 2})
                        QTest::newRow(qPrintable(caseName(cases[static_cast<std::size_t>(i)])
                                                 + QStringLiteral(" %1 tokens%2").arg(tokens).arg(extreme == 0   ? ""
                                                                                                  : extreme == 1 ? " all-ones bytes"
                                                                                                                 : " 0x80 bytes")))
                            << i << tokens << (tokens > 4 ? 3 : 0) << extreme;
        if (quantizedDotKernel() == 0)
            QSKIP("no vector kernels on this CPU");
    }

    // Bit for bit: the integer sums are exact and the float order is fixed.
    void kernelsMatchScalar()
    {
        QFETCH(int, caseIndex);
        QFETCH(int, tokens);
        QFETCH(int, first);
        QFETCH(int, extreme);
        const KernelCase c = kernelCases()[static_cast<std::size_t>(caseIndex)];
        const std::int64_t columns = columnsFor(c, 768);
        constexpr std::int64_t rows = 5;
        const auto w = weightRows(*c.type, rows, columns, 11u + static_cast<unsigned>(caseIndex), extreme);
        const auto x = quantized(c, activations(tokens * columns, 7u + static_cast<unsigned>(tokens), extreme != 0), tokens, columns);
        const auto reference = productWith(0, c, w, rows, x, first);
        for (std::size_t i = 0; i < reference.size(); ++i)
            QVERIFY(std::isfinite(reference[i]) && (reference[i] != -1.0f || static_cast<std::int64_t>(i) < first * rows));
        for (int kernel = 1; kernel <= quantizedDotKernel(); ++kernel)
            compareBits(productWith(kernel, c, w, rows, x, first), reference, kernel);
        if (quantizedDotKernel() < 2)
            qInfo("this CPU runs kernels up to %d; the others fall back and are not compared", quantizedDotKernel());
    }

    // Wide rows: the kernels cut rows and tokens into cache-sized blocks, with remainders. The
    // 512-bit kernels lay out 16 or 32 rows at a time: one whole chunk, and whole chunks plus 5.
    void blockedShapesMatchScalar_data()
    {
        QTest::addColumn<int>("caseIndex");
        QTest::addColumn<int>("rows");
        const auto cases = kernelCases();
        for (int i = 0; i < static_cast<int>(cases.size()); ++i)
            if (hasVectorDot(cases[static_cast<std::size_t>(i)].dot))
                for (const int rows : {16, 37, 69})
                    QTest::newRow(qPrintable(caseName(cases[static_cast<std::size_t>(i)]) + QStringLiteral(" rows%1").arg(rows))) << i << rows;
        if (quantizedDotKernel() == 0)
            QSKIP("no vector kernels on this CPU");
    }

    void blockedShapesMatchScalar()
    {
        QFETCH(int, caseIndex);
        QFETCH(int, rows);
        const KernelCase c = kernelCases()[static_cast<std::size_t>(caseIndex)];
        constexpr std::int64_t columns = 8192;
        constexpr std::int64_t tokens = 21;
        const auto w = weightRows(*c.type, rows, columns, 23u, 0);
        const auto x = quantized(c, activations(tokens * columns, 29u, false), tokens, columns);
        const auto reference = productWith(0, c, w, rows, x);
        for (int kernel = 1; kernel <= quantizedDotKernel(); ++kernel)
            compareBits(productWith(kernel, c, w, rows, x), reference, kernel);
    }

    // Rows of an odd number of 32-value blocks, an odd number of tokens: the activations end on
    // half a 64-byte register, and vec_dot kernels that take blocks in pairs have one left.
    void oddBlockCountsMatchScalar_data()
    {
        QTest::addColumn<int>("caseIndex");
        QTest::addColumn<int>("tokens");
        const auto cases = kernelCases();
        for (int i = 0; i < static_cast<int>(cases.size()); ++i)
            if (columnsFor(cases[static_cast<std::size_t>(i)], 43 * 32) == 43 * 32)
                for (const int tokens : {1, 5, 7})
                    QTest::newRow(qPrintable(caseName(cases[static_cast<std::size_t>(i)]) + QStringLiteral(" tokens%1").arg(tokens))) << i << tokens;
    }

    void oddBlockCountsMatchScalar()
    {
        QFETCH(int, caseIndex);
        QFETCH(int, tokens);
        const KernelCase c = kernelCases()[static_cast<std::size_t>(caseIndex)];
        constexpr std::int64_t columns = 43 * 32;
        constexpr std::int64_t rows = 21;
        const auto w = weightRows(*c.type, rows, columns, 31u, 0);
        const auto x = quantized(c, activations(tokens * columns, 37u, false), tokens, columns);
        const auto reference = productWith(0, c, w, rows, x);
        for (int kernel = 1; kernel <= quantizedDotKernel(); ++kernel)
            compareBits(productWith(kernel, c, w, rows, x), reference, kernel);
    }

    void scalarIsTheProduct_data()
    {
        QTest::addColumn<int>("caseIndex");
        const auto cases = kernelCases();
        for (int i = 0; i < static_cast<int>(cases.size()); ++i)
            QTest::newRow(qPrintable(caseName(cases[static_cast<std::size_t>(i)]))) << i;
    }

    // Each scalar kernel against sum_i w_i a_i in double, with w_i from the type's
    // dequantization and a_i the dequantized activations: within float rounding of
    // sum_i |w_i a_i| (the q8_1 kernels take each block's activation sum from its f16 `s`, a
    // rounding of the same size).
    void scalarIsTheProduct()
    {
        QFETCH(int, caseIndex);
        const KernelCase c = kernelCases()[static_cast<std::size_t>(caseIndex)];
        const std::int64_t columns = columnsFor(c, 1024);
        constexpr std::int64_t rows = 6;
        constexpr std::int64_t tokens = 3;
        const auto w = weightRows(*c.type, rows, columns, 5u, 0);
        const auto x = quantized(c, activations(tokens * columns, 3u, false), tokens, columns);
        const auto y = productWith(0, c, w, rows, x);
        std::vector<float> wf(static_cast<std::size_t>(rows * columns));
        c.type->dequantize(w.data(), wf.data(), static_cast<std::size_t>(rows * columns / c.type->blockSize));
        std::vector<float> a(static_cast<std::size_t>(tokens * columns));
        dequantizeActivations(x, a.data());
        for (std::int64_t t = 0; t < tokens; ++t)
            for (std::int64_t r = 0; r < rows; ++r) {
                double sum = 0.0, magnitude = 0.0;
                for (std::int64_t i = 0; i < columns; ++i) {
                    const double term = double(wf[static_cast<std::size_t>(r * columns + i)]) * double(a[static_cast<std::size_t>(t * columns + i)]);
                    sum += term;
                    magnitude += std::abs(term);
                }
                const double got = y[static_cast<std::size_t>(t * rows + r)];
                const double bound = (x.kind == Q8Kind::Q8_1 ? 2e-3 : 1e-6) * magnitude;
                QVERIFY2(std::abs(got - sum) <= bound,
                         qPrintable(QStringLiteral("token %1 row %2: %3 vs %4 (of %5)").arg(t).arg(r).arg(got).arg(sum).arg(magnitude)));
            }
    }

    // The quantized activations are the pass's llama.cpp rounding to the bit; q8_1's block sums
    // are f16(d * sum(q)) and q8_K's sums those of each 16 values.
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
        const std::pair<Q8Kind, ActivationRounding> kinds[] = {
            {Q8Kind::Q8_0, ActivationRounding::Q8_0}, {Q8Kind::Q8_1, ActivationRounding::Q8_1}, {Q8Kind::Q8_K, ActivationRounding::Q8_K}};
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
            if (kind == Q8Kind::Q8_1)
                for (std::int64_t t = 0; t < tokens; ++t)
                    for (std::int64_t b = 0; b < columns / 32; ++b) {
                        int sum = 0;
                        for (int j = 0; j < 32; ++j)
                            sum += x.valuesOf(t)[b * 32 + j];
                        // d before its f16 rounding: amax / 127.
                        float amax = 0.0f;
                        for (int j = 0; j < 32; ++j)
                            amax = std::max(amax, std::abs(xf[static_cast<std::size_t>(t * columns + b * 32 + j)]));
                        QCOMPARE(x.blockSumsOf(t)[b], f16ToF32(quantize::f32ToF16Bits(amax / 127.0f * static_cast<float>(sum))));
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

    // The AVX2 lane sums every kernel adds with are the scalar loop's, for weights and scales
    // at the ends of their ranges (|w| up to 128: vpmaddubsw must not saturate), with and
    // without a scale per 16 values, over one block and a super-block.
    void laneSumsMatchScalar_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<bool>("scaled");
        for (const int count : {32, 256})
            for (const bool scaled : {false, true})
                QTest::newRow(qPrintable(QStringLiteral("%1 values%2").arg(count).arg(scaled ? QStringLiteral(", scaled") : QString())))
                    << count << scaled;
    }

    void laneSumsMatchScalar()
    {
        QFETCH(int, count);
        QFETCH(bool, scaled);
        if (!ggmldot::laneProductsHaveAvx2())
            QSKIP("this CPU has no AVX2");
        std::mt19937 random(77u + static_cast<unsigned>(count));
        std::uniform_int_distribution<int> weight(-128, 127), activation(-127, 127), scale(-64, 127);
        std::vector<std::int8_t> w(static_cast<std::size_t>(count)), a(w.size());
        for (std::size_t i = 0; i < w.size(); ++i) {
            w[i] = static_cast<std::int8_t>(weight(random));
            a[i] = static_cast<std::int8_t>(activation(random));
        }
        // The extremes: -128 against -127 and 127 in one pair of values.
        w[0] = w[1] = -128;
        a[0] = -127;
        a[1] = 127;
        int scales[16];
        for (int& s : scales)
            s = scale(random);
        std::int32_t expected[8] = {1, -2, 3, -4, 5, -6, 7, -8};
        std::int32_t actual[8] = {1, -2, 3, -4, 5, -6, 7, -8};
        ggmldot::addLaneProductsScalar(w.data(), a.data(), count, scaled ? scales : nullptr, expected);
        ggmldot::addLaneProductsAvx2(w.data(), a.data(), count, scaled ? scales : nullptr, actual);
        for (int l = 0; l < 8; ++l)
            QCOMPARE(actual[l], expected[l]);
    }

    // GGUFX_KERNELS caps the products as it caps dequantization (KernelIsaCap.h): the suite runs
    // a second time under GGUFX_KERNELS=avx2 (tests/CMakeLists.txt), where an AVX-512 machine
    // compares the AVX2 bodies alone, as an AVX2-only machine runs them.
    void productsHonourTheCap()
    {
        const std::string requested = qEnvironmentVariable("GGUFX_KERNELS").toStdString();
        const std::optional<KernelIsa> cap = kernelIsaFromName(requested);
        if (!cap)
            QSKIP("GGUFX_KERNELS caps nothing in this run");
        QVERIFY(!kernelIsaAllowsAvx512());
        const int most = *cap == KernelIsa::Avx2 ? 1 : 0;
        QVERIFY(quantizedDotKernel() <= most);
        QVERIFY(laneProductKernel() <= most);
        QCOMPARE(QString::fromLatin1(activeKernelIsaName()), QString::fromLatin1(kernelIsaName(preferredKernelIsa())));
    }
};

QTEST_APPLESS_MAIN(QuantizedDotTest)
#include "tst_quantized_dot.moc"
