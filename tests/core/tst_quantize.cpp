// The core's quantizers against ggml's own output. The fixtures' quantized tensors were made by
// ggml_quantize_chunk(type, f32 source, nrows = ne[1] (* ne[2]), n_per_row = ne[0], no imatrix)
// (../shared/fixtures/README.md); quantizing the same f32 source here must give the same bytes,
// for every tensor of every type the core can produce. The MoE files are the exception: ggml
// quantized them from f32 source values that are not shipped (tiny-moe-F16 is their f16
// rounding), so there the test holds the core's quantization of the F16 values to ggml's result
// block by block and by error, which still catches a wrong 3-D row layout. Also: the f16/bf16 encoders against every
// bit pattern, chunked quantization against whole-tensor quantization, and inputs that ggml
// never sees in fixtures (zeros, NaN, infinities, huge values) quantize without undefined
// behaviour.

#include "core/gguf/Dequantize.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "DequantizeWhole.h"
#include "core/gguf/GgufFile.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/FloatEncode.h"
#include "core/quantize/Iq4SearchAvx2.h"
#include "core/kernels/Codebooks.h"
#include "core/quantize/AsymmetricSearch8.h"
#include "core/quantize/Fp4Avx2.h"
#include "core/quantize/LegacyAvx2.h"
#include "core/quantize/Q3KAvx2.h"
#include "core/quantize/Quantize.h"
#include "core/quantize/ScaleSearch.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace gguf;

using testsupport::dequantizeWhole;
using testsupport::openFixtureFile;

namespace {

// "" when equal, else where the first difference is (block index and byte within the block).
QString firstDifference(const std::vector<std::uint8_t>& ours, const TensorInfo& theirs)
{
    if (ours.size() != theirs.nbytes)
        return QStringLiteral("size %1 vs %2").arg(ours.size()).arg(theirs.nbytes);
    if (std::memcmp(ours.data(), theirs.data, ours.size()) == 0)
        return {};
    std::size_t at = 0;
    while (ours[at] == theirs.data[at])
        ++at;
    const std::size_t blockBytes = theirs.traits->blockBytes;
    return QStringLiteral("block %1 byte %2: ours 0x%3, ggml 0x%4")
        .arg(at / blockBytes)
        .arg(at % blockBytes)
        .arg(ours[at], 2, 16, QLatin1Char('0'))
        .arg(theirs.data[at], 2, 16, QLatin1Char('0'));
}

std::vector<std::uint8_t> quantizeAll(std::uint32_t typeId, std::span<const float> values)
{
    const TypeTraits* traits = findType(typeId);
    std::vector<std::uint8_t> out(quantizedSize(*traits, values.size()));
    if (Status s = quantizeValues(typeId, values, out); !s) {
        qWarning("%s", s.error().toString().c_str());
        out.clear();
    }
    return out;
}

}  // namespace

class QuantizeTest : public QObject {
    Q_OBJECT

private slots:
    void fixtureBytesIdentical_data();
    void fixtureBytesIdentical();
    void moeCloseToGgml_data();
    void moeCloseToGgml();
    void chunkedEqualsWhole_data();
    void chunkedEqualsWhole();
    void f16EncoderRoundTripsEveryPattern();
    void f16EncoderRoundsHalfToEven();
    void bf16EncoderRoundTripsEveryPattern();
    void edgeInputsAreDeterministic_data();
    void edgeInputsAreDeterministic();
    void laneSearchesMatchScalar();
    void legacyAvx2MatchesScalar();
    void ternaryAvx2MatchesScalar();
    void q3KLevelsAvx2MatchesScalar();
    void iq4TrialSumsAvx2MatchScalar();
    void interleaveTransposeMatchesCopyLoop();
    void rejectsMisfits();
    void quantizableTypesListed();
};

void QuantizeTest::fixtureBytesIdentical_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("target");
    QTest::addColumn<int>("expectedTensors");

    // Every 2-D tensor of tiny-llama is in the file's type: token_embd, output, 7 per layer x 2.
    for (const char* type : {"F16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"}) {
        const QString target = QStringLiteral("tiny-llama-%1.gguf").arg(QLatin1String(type));
        QTest::newRow(qPrintable(target)) << QStringLiteral("tiny-llama-F32.gguf") << target << 16;
    }
    // all-types.gguf: one [1024, 4] tensor per type, all from the values of its f32 tensor.
    // 25: the 13 types of the first quantizers plus iq1_m, iq2_s, iq3_xxs, iq3_s, iq4_nl, iq4_xs, tq1_0, tq2_0, mxfp4, nvfp4,
    // q1_0, q2_0.
    QTest::newRow("all-types.gguf") << QStringLiteral("all-types.gguf") << QStringLiteral("all-types.gguf") << 25;
}

// For each tensor of the target file in a type the core can produce (and not simply the source's
// own type), quantize the source's values and compare bytes.
void QuantizeTest::fixtureBytesIdentical()
{
    QFETCH(QString, source);
    QFETCH(QString, target);
    QFETCH(int, expectedTensors);
    const auto sourceFile = openFixtureFile(source);
    const auto targetFile = openFixtureFile(target);
    QVERIFY(sourceFile && targetFile);
    const bool allTypes = source == target;

    int identical = 0;
    QStringList failures;
    for (const TensorInfo& tensor : targetFile->tensors()) {
        if (!canQuantize(tensor.typeId) || requiresImportance(tensor.typeId) || tensor.nDims < 2)
            continue;  // (the all-ones-imatrix types of all-types.gguf: tst_quantize_imatrix)
        const TensorInfo* origin = allTypes ? sourceFile->findTensor("f32") : sourceFile->findTensor(tensor.name);
        QVERIFY2(origin, qPrintable(QStringLiteral("no source for %1").arg(QLatin1String(tensor.name))));
        if (!allTypes && tensor.typeId == origin->typeId)
            continue;  // e.g. the F32 router of an MoE file: a copy, not a quantization
        QCOMPARE(origin->ne, tensor.ne);
        const std::vector<float> values = dequantizeWhole(*origin);
        QVERIFY(!values.empty());
        const QString difference = firstDifference(quantizeAll(tensor.typeId, values), tensor);
        if (difference.isEmpty())
            ++identical;
        else
            failures << QStringLiteral("%1 (%2): %3").arg(QLatin1String(tensor.name), QLatin1String(tensor.traits->name), difference);
    }
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QStringLiteral("; "))));
    QCOMPARE(identical, expectedTensors);
    qInfo("%s: %d tensors byte-identical", qPrintable(target), identical);
}

void QuantizeTest::moeCloseToGgml_data()
{
    QTest::addColumn<QString>("target");
    QTest::newRow("tiny-moe-Q2_K") << QStringLiteral("tiny-moe-Q2_K.gguf");
    QTest::newRow("tiny-moe-Q4_K") << QStringLiteral("tiny-moe-Q4_K.gguf");
}

// Measured with ggml's files: 44-58% of the blocks come out byte-identical from the f16-rounded
// inputs and the RMSE against the F16 values is within 0.4% of ggml's. Quantizing with rows in
// the wrong order (or the wrong expert) would leave next to no identical block and a far larger
// error, per expert.
void QuantizeTest::moeCloseToGgml()
{
    QFETCH(QString, target);
    const auto sourceFile = openFixtureFile(QStringLiteral("tiny-moe-F16.gguf"));
    const auto targetFile = openFixtureFile(target);
    QVERIFY(sourceFile && targetFile);
    int checked = 0;
    for (const TensorInfo& tensor : targetFile->tensors()) {
        if (tensor.nDims < 2 || !canQuantize(tensor.typeId) || tensor.typeId == typeIdValue(GgmlTypeId::F32))
            continue;
        const TensorInfo* origin = sourceFile->findTensor(tensor.name);
        QVERIFY(origin);
        const std::vector<float> values = dequantizeWhole(*origin);
        const std::vector<std::uint8_t> ours = quantizeAll(tensor.typeId, values);
        QCOMPARE(ours.size(), std::size_t(tensor.nbytes));
        const std::size_t blockBytes = tensor.traits->blockBytes;
        const std::size_t blockCount = ours.size() / blockBytes;
        std::vector<float> oursDecoded(values.size());
        tensor.traits->dequantize(ours.data(), oursDecoded.data(), blockCount);
        const std::vector<float> ggmlDecoded = dequantizeWhole(tensor);
        // Per expert (or the whole tensor when 2-D): identical blocks and squared error.
        const std::uint64_t parts = std::uint64_t(tensor.ne[2]);
        const std::size_t partBlocks = blockCount / parts;
        const std::size_t partValues = values.size() / parts;
        for (std::uint64_t part = 0; part < parts; ++part) {
            std::size_t same = 0;
            for (std::size_t b = part * partBlocks; b < (part + 1) * partBlocks; ++b)
                same += std::memcmp(ours.data() + b * blockBytes, tensor.data + b * blockBytes, blockBytes) == 0;
            double oursError = 0.0;
            double ggmlError = 0.0;
            for (std::size_t i = part * partValues; i < (part + 1) * partValues; ++i) {
                oursError += (double(oursDecoded[i]) - values[i]) * (double(oursDecoded[i]) - values[i]);
                ggmlError += (double(ggmlDecoded[i]) - values[i]) * (double(ggmlDecoded[i]) - values[i]);
            }
            const QString what = QStringLiteral("%1 part %2: %3/%4 blocks identical, error ratio %5")
                                     .arg(QLatin1String(tensor.name)).arg(part).arg(same).arg(partBlocks)
                                     .arg(std::sqrt(oursError / ggmlError));
            QVERIFY2(double(same) >= 0.3 * double(partBlocks), qPrintable(what));
            QVERIFY2(std::abs(std::sqrt(oursError / ggmlError) - 1.0) < 0.02, qPrintable(what));
        }
        ++checked;
    }
    QCOMPARE(checked, 16);
}

void QuantizeTest::chunkedEqualsWhole_data()
{
    QTest::addColumn<int>("typeId");
    for (const TypeTraits* type : quantizableTypes())
        if (!requiresImportance(type->id))  // made only with weights: tst_quantize_imatrix
            QTest::newRow(type->name) << int(type->id);
}

// Quantizing a tensor a few rows at a time (and a single row in odd pieces of whole blocks) must
// give the bytes of one whole-tensor call: this is what lets convert and simulate stream.
void QuantizeTest::chunkedEqualsWhole()
{
    QFETCH(int, typeId);
    const auto file = openFixtureFile(QStringLiteral("tiny-llama-F32.gguf"));
    QVERIFY(file);
    const TensorInfo* tensor = file->findTensor("blk.0.ffn_down.weight");  // [768, 256]
    QVERIFY(tensor);
    const std::vector<float> values = dequantizeWhole(*tensor);
    const std::vector<std::uint8_t> whole = quantizeAll(std::uint32_t(typeId), values);
    QVERIFY(!whole.empty());

    const TypeTraits& traits = *findType(std::uint32_t(typeId));
    const std::size_t rowLength = std::size_t(tensor->ne[0]);
    const std::size_t rowBytes = quantizedSize(traits, rowLength);
    std::vector<std::uint8_t> pieces(whole.size());
    const std::size_t rowsPerChunk = 7;
    for (std::size_t row = 0; row < std::size_t(tensor->rowCount()); row += rowsPerChunk) {
        const std::size_t rows = std::min(rowsPerChunk, std::size_t(tensor->rowCount()) - row);
        QVERIFY(quantizeValues(traits.id, std::span(values).subspan(row * rowLength, rows * rowLength),
                               std::span(pieces).subspan(row * rowBytes, rows * rowBytes)));
    }
    QVERIFY(pieces == whole);
}

void QuantizeTest::f16EncoderRoundTripsEveryPattern()
{
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float value = f16ToF32(std::uint16_t(bits));
        const std::uint16_t back = quantize::f32ToF16Bits(value);
        if (std::isnan(value)) {
            QCOMPARE(back & 0x7E00u, 0x7E00u);  // still a NaN, quiet, same sign
            QCOMPARE(back & 0x8000u, bits & 0x8000u);
        } else if (back != bits) {
            QFAIL(qPrintable(QStringLiteral("f16 0x%1 -> %2 -> 0x%3").arg(bits, 4, 16).arg(double(value)).arg(back, 4, 16)));
        }
    }
}

void QuantizeTest::f16EncoderRoundsHalfToEven()
{
    using quantize::f32ToF16Bits;
    QCOMPARE(f32ToF16Bits(1.0f + std::ldexp(1.0f, -11)), std::uint16_t(0x3C00));      // tie -> even (down)
    QCOMPARE(f32ToF16Bits(1.0f + 3 * std::ldexp(1.0f, -11)), std::uint16_t(0x3C02));  // tie -> even (up)
    QCOMPARE(f32ToF16Bits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), std::uint16_t(0x3C01));
    QCOMPARE(f32ToF16Bits(65504.0f), std::uint16_t(0x7BFF));
    QCOMPARE(f32ToF16Bits(65519.996f), std::uint16_t(0x7BFF));
    QCOMPARE(f32ToF16Bits(65520.0f), std::uint16_t(0x7C00));  // rounds up to infinity
    QCOMPARE(f32ToF16Bits(-std::numeric_limits<float>::infinity()), std::uint16_t(0xFC00));
    QCOMPARE(f32ToF16Bits(std::ldexp(1.0f, -25)), std::uint16_t(0x0000));  // half the smallest subnormal: tie -> 0
    QCOMPARE(f32ToF16Bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), std::uint16_t(0x0001));
    QCOMPARE(f32ToF16Bits(3 * std::ldexp(1.0f, -25)), std::uint16_t(0x0002));  // 1.5 units: tie -> even
    QCOMPARE(f32ToF16Bits(std::ldexp(1023.5f, -24)), std::uint16_t(0x0400));   // carries into the first normal
    QCOMPARE(f32ToF16Bits(-0.0f), std::uint16_t(0x8000));
    QCOMPARE(f32ToF16Bits(std::numeric_limits<float>::denorm_min()), std::uint16_t(0x0000));
    QCOMPARE(f32ToF16Bits(std::numeric_limits<float>::quiet_NaN()), std::uint16_t(0x7E00));
}

void QuantizeTest::bf16EncoderRoundTripsEveryPattern()
{
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        const float value = bf16ToF32(std::uint16_t(bits));
        const std::uint16_t back = quantize::f32ToBf16Bits(value);
        const std::uint16_t expected = std::isnan(value) ? std::uint16_t(bits | 64u) : std::uint16_t(bits);
        if (back != expected)
            QFAIL(qPrintable(QStringLiteral("bf16 0x%1 -> 0x%2").arg(bits, 4, 16).arg(back, 4, 16)));
    }
    QCOMPARE(quantize::f32ToBf16Bits(std::bit_cast<float>(0x3F808000u)), std::uint16_t(0x3F80));  // tie -> even
    QCOMPARE(quantize::f32ToBf16Bits(std::bit_cast<float>(0x3F818000u)), std::uint16_t(0x3F82));
}

void QuantizeTest::edgeInputsAreDeterministic_data()
{
    QTest::addColumn<int>("typeId");
    for (const TypeTraits* type : quantizableTypes())
        if (!requiresImportance(type->id))  // made only with weights: tst_quantize_imatrix
            QTest::newRow(type->name) << int(type->id);
}

// Zeros must come back as zeros; NaN, infinities and values near FLT_MAX must not hit undefined
// behaviour (the sanitizer build runs this) and must quantize the same way twice.
void QuantizeTest::edgeInputsAreDeterministic()
{
    QFETCH(int, typeId);
    const TypeTraits& traits = *findType(std::uint32_t(typeId));
    const std::size_t n = 512;

    std::vector<float> zeros(n, 0.0f);
    std::vector<std::uint8_t> packed = quantizeAll(traits.id, zeros);
    QVERIFY(!packed.empty());
    std::vector<float> decoded(n, 1.0f);
    traits.dequantize(packed.data(), decoded.data(), n / traits.blockSize);
    for (const float v : decoded)
        QCOMPARE(v, 0.0f);

    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float big = std::numeric_limits<float>::max();
    std::vector<float> wild(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float pattern[] = {nan, inf, -inf, big, -big, 1e-40f, -0.0f, float(i) * 1e30f, 0.5f};
        wild[i] = (i / 97) % 2 ? float(i % 13) - 6.0f : pattern[i % std::size(pattern)];
    }
    const std::vector<std::uint8_t> first = quantizeAll(traits.id, wild);
    const std::vector<std::uint8_t> second = quantizeAll(traits.id, wild);
    QVERIFY(!first.empty());
    QVERIFY(first == second);
    traits.dequantize(first.data(), decoded.data(), n / traits.blockSize);
}

// The eight-lane scale searches (AsymmetricSearch8.h) against the scalar ones, group by group,
// on groups the fixtures rarely hold: flat, all zero, tiny, one-signed, spiky, with NaN.
void QuantizeTest::laneSearchesMatchScalar()
{
    using namespace gguf::quantize;
    const AsymmetricSearch8Fn asymmetric = asymmetricSearch8();
    const SymmetricSearch8Fn symmetric = symmetricSearch8();
    const SymmetricSearch8Fn refined = refinedSymmetricSearch8();
    if (!asymmetric || !symmetric || !refined)
        QSKIP("this CPU (or GGUFX_KERNELS) has no lane-parallel search");
    std::uint32_t seed = 12345;
    const auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return float(seed >> 8) / float(1u << 24) - 0.5f;  // [-0.5, 0.5)
    };
    const auto fillGroup = [&](int kind, int n, float* g) {
        for (int i = 0; i < n; ++i) {
            switch (kind % 8) {
            case 0: g[i] = next() * 0.04f; break;
            case 1: g[i] = -0.25f; break;                       // flat, negative
            case 2: g[i] = 0.0f; break;                         // all zero
            case 3: g[i] = next() * 1e-17f; break;              // below GROUP_MAX_EPS
            case 4: g[i] = std::fabs(next()) + 0.01f; break;    // positive only
            case 5: g[i] = i == 3 ? 40.0f : next() * 0.01f; break;  // one spike
            case 6: g[i] = i == 5 ? std::numeric_limits<float>::quiet_NaN() : next(); break;
            default: g[i] = next() * float(1 << (i % 12)); break;
            }
        }
    };
    struct Setup {
        int n, nmax;
        float rmin, rdelta;
        int nstep;
        bool mad;
    };
    const Setup setups[] = {{32, 15, -1.0f, 0.1f, 20, false}, {32, 31, -0.5f, 0.1f, 15, false}, {16, 3, -0.5f, 0.1f, 15, true}};
    int compared = 0;
    for (int round = 0; round < 200; ++round) {
        for (const Setup& setup : setups) {
            std::vector<float> groups(8 * setup.n);
            std::vector<float> weights(8 * setup.n);
            for (int g = 0; g < 8; ++g)
                fillGroup(round + g, setup.n, groups.data() + g * setup.n);
            for (int i = 0; i < 8 * setup.n; ++i)
                weights[i] = std::fabs(groups[i]) + 0.001f;
            std::vector<float> xi(8 * setup.n), wi(8 * setup.n);
            interleaveGroups(groups.data(), setup.n, 8, xi.data());
            interleaveGroups(weights.data(), setup.n, 8, wi.data());
            std::vector<std::uint8_t> lanesL(8 * setup.n);
            float lanesScale[8], lanesMin[8];
            asymmetric(setup.n, setup.nmax, xi.data(), wi.data(), lanesL.data(), lanesScale, lanesMin, setup.rmin, setup.rdelta,
                       setup.nstep, setup.mad);
            for (int g = 0; g < 8; ++g) {
                std::uint8_t L[32], scratch[32];
                float min = 0;
                const float scale = makeAsymmetricLevels(setup.n, setup.nmax, groups.data() + g * setup.n, weights.data() + g * setup.n,
                                                         L, &min, scratch, setup.rmin, setup.rdelta, setup.nstep, setup.mad);
                QCOMPARE(std::bit_cast<std::uint32_t>(lanesScale[g]), std::bit_cast<std::uint32_t>(scale));
                QCOMPARE(std::bit_cast<std::uint32_t>(lanesMin[g]), std::bit_cast<std::uint32_t>(min));
                for (int i = 0; i < setup.n; ++i)
                    QCOMPARE(lanesL[8 * i + g], L[i]);
                ++compared;
            }
        }
        std::vector<float> groups(8 * 16), xi(8 * 16);
        for (int g = 0; g < 8; ++g)
            fillGroup(round + g, 16, groups.data() + g * 16);
        interleaveGroups(groups.data(), 16, 8, xi.data());
        std::int8_t lanesL[8 * 16];
        float lanesScale[8];
        symmetric(16, 32, xi.data(), lanesL, lanesScale);
        for (int g = 0; g < 8; ++g) {
            std::int8_t L[16];
            const float scale = makeSymmetricLevels(16, 32, groups.data() + g * 16, L);
            QCOMPARE(std::bit_cast<std::uint32_t>(lanesScale[g]), std::bit_cast<std::uint32_t>(scale));
            for (int i = 0; i < 16; ++i)
                QCOMPARE(lanesL[8 * i + g], L[i]);
            ++compared;
        }
        refined(16, 4, xi.data(), lanesL, lanesScale);
        for (int g = 0; g < 8; ++g) {
            std::int8_t L[16];
            const float scale = makeRefinedSymmetricLevels(16, 4, groups.data() + g * 16, L);
            QCOMPARE(std::bit_cast<std::uint32_t>(lanesScale[g]), std::bit_cast<std::uint32_t>(scale));
            for (int i = 0; i < 16; ++i)
                QCOMPARE(lanesL[8 * i + g], L[i]);
            ++compared;
        }
    }
    QCOMPARE(compared, 200 * 5 * 8);
}

// The AVX2 Q8_0 and Q4_0 quantizers against the scalar ones, block by block, on blocks made to
// hit their corner cases: ties of magnitude (first wins), halves that round away from zero,
// zeros of both signs, and NaN / infinity (which take the scalar path).
void QuantizeTest::legacyAvx2MatchesScalar()
{
    using namespace gguf::quantize;
    const LegacyAvx2& fast = legacyAvx2();
    if (!fast.q8_0 || !fast.q4_0)
        QSKIP("this CPU (or GGUFX_KERNELS) has no AVX2");
    constexpr int kBlocks = 4096;
    std::vector<float> values(32 * kBlocks);
    std::uint32_t seed = 99;
    const auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return float(seed >> 8) / float(1u << 24) - 0.5f;
    };
    for (int b = 0; b < kBlocks; ++b) {
        float* x = values.data() + 32 * b;
        for (int j = 0; j < 32; ++j)
            x[j] = next() * 0.1f;
        switch (b % 10) {
        case 0: x[7] = 0.3f, x[20] = -0.3f; break;  // equal magnitudes, opposite signs
        case 1: x[2] = -0.3f, x[9] = 0.3f; break;
        case 2:
            for (int j = 0; j < 32; ++j)
                x[j] = j % 2 ? -0.0f : 0.0f;
            break;
        case 3: x[0] = -0.0f; for (int j = 1; j < 32; ++j) x[j] = 0.0f; break;
        case 4: x[0] = 127.0f; for (int j = 1; j < 32; ++j) x[j] = float(j) - 0.5f; break;  // halves at scale 1
        case 5: x[5] = std::numeric_limits<float>::quiet_NaN(); break;
        case 6: x[31] = -std::numeric_limits<float>::infinity(); break;
        case 7: x[0] = 8.0f; for (int j = 1; j < 32; ++j) x[j] = float(j % 17) - 8.5f; break;
        default: break;
        }
    }
    std::vector<std::uint8_t> expected(34 * kBlocks), actual(34 * kBlocks);
    quantizeQ8_0Scalar(values.data(), expected.data(), kBlocks);
    fast.q8_0(values.data(), actual.data(), kBlocks, quantizeQ8_0Scalar);
    for (int b = 0; b < kBlocks; ++b)
        QVERIFY2(std::memcmp(expected.data() + 34 * b, actual.data() + 34 * b, 34) == 0, qPrintable(QStringLiteral("q8_0 block %1").arg(b)));
    quantizeQ4_0Scalar(values.data(), expected.data(), kBlocks);
    fast.q4_0(values.data(), actual.data(), kBlocks, quantizeQ4_0Scalar);
    for (int b = 0; b < kBlocks; ++b)
        QVERIFY2(std::memcmp(expected.data() + 18 * b, actual.data() + 18 * b, 18) == 0, qPrintable(QStringLiteral("q4_0 block %1").arg(b)));
    // Q4_1, Q5_0, Q5_1: the same blocks, plus huge ranges whose differences overflow.
    for (int b = 8; b < kBlocks; b += 10) {
        float* x = values.data() + 32 * b;
        x[1] = 3.0e38f, x[2] = -3.0e38f;
    }
    struct Case {
        const char* name;
        LegacyAvx2Fn fastFn;
        BlocksFn scalar;
        std::size_t bytes;
    };
    for (const Case& c : {Case{"q4_1", fast.q4_1, quantizeQ4_1Scalar, 20}, Case{"q5_0", fast.q5_0, quantizeQ5_0Scalar, 22},
                          Case{"q5_1", fast.q5_1, quantizeQ5_1Scalar, 24}}) {
        QVERIFY(c.fastFn);
        c.scalar(values.data(), expected.data(), kBlocks);
        c.fastFn(values.data(), actual.data(), kBlocks, c.scalar);
        for (int b = 0; b < kBlocks; ++b)
            QVERIFY2(std::memcmp(expected.data() + c.bytes * b, actual.data() + c.bytes * b, c.bytes) == 0,
                     qPrintable(QStringLiteral("%1 block %2").arg(QLatin1String(c.name)).arg(b)));
    }
}

// The AVX2 TQ1_0 / TQ2_0 block quantizers against the scalar ones on 256-element blocks made to
// hit their corners: exact halves of the absmax (lroundf's ties, both signs), one ulp either side
// of them, zeros of both signs, flat and all-zero blocks, an absmax so small that its inverse
// overflows, and NaN / infinity (which take the scalar path).
void QuantizeTest::ternaryAvx2MatchesScalar()
{
    using namespace gguf::quantize;
    const TernaryAvx2Fn tq1 = tq1_0Avx2();
    const TernaryAvx2Fn tq2 = tq2_0Avx2();
    if (!tq1 || !tq2)
        QSKIP("this CPU (or GGUFX_KERNELS) has no AVX2");
    constexpr int kBlocks = 608;
    std::vector<float> values(256 * kBlocks);
    std::uint32_t seed = 7;
    const auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return float(seed >> 8) / float(1u << 24) - 0.5f;
    };
    for (int b = 0; b < kBlocks; ++b) {
        float* x = values.data() + 256 * b;
        const float amax = b % 3 == 0 ? 4.0f : 0.37f;  // a power of two makes amax / 2 an exact tie
        for (int j = 0; j < 256; ++j) {
            switch ((b + j) % 7) {
            case 0: x[j] = amax / 2; break;
            case 1: x[j] = -amax / 2; break;
            case 2: x[j] = std::nextafter(amax / 2, 0.0f); break;
            case 3: x[j] = -std::nextafter(amax / 2, amax); break;
            case 4: x[j] = j % 2 ? -0.0f : 0.0f; break;
            default: x[j] = next() * amax; break;
            }
        }
        x[(b * 37) % 256] = b % 2 ? amax : -amax;
        switch (b % 12) {
        case 1: std::fill(x, x + 256, 0.25f); break;
        case 2: std::fill(x, x + 256, b % 4 ? 0.0f : -0.0f); break;
        case 3: x[b % 256] = std::numeric_limits<float>::quiet_NaN(); break;
        case 4: x[255 - b % 256] = -std::numeric_limits<float>::infinity(); break;
        case 5:  // 1 / absmax overflows: ggml's lroundf sees infinities and NaN
            for (int j = 0; j < 256; ++j)
                x[j] = j % 3 ? 0.0f : std::numeric_limits<float>::denorm_min() * float(j % 5);
            break;
        case 6: x[b % 256] = std::numeric_limits<float>::max(); break;
        default: break;
        }
    }
    // The last 8 blocks give TQ1_0's first 32 bytes every five-digit value q = 0..242 once (the
    // byte is ceil(q * 256 / 243), computed by a multiply and shift in AVX2).
    for (int b = kBlocks - 8, q = 0; b < kBlocks; ++b) {
        float* x = values.data() + 256 * b;
        std::fill(x, x + 256, 0.0f);
        x[255] = 1.0f;  // absmax 1
        for (int m = 0; m < 32; ++m, ++q) {
            int digits = q % 243;
            for (int n = 4; n >= 0; --n, digits /= 3)
                x[m + 32 * n] = float(digits % 3 - 1);
        }
    }
    struct Case {
        const char* name;
        TernaryAvx2Fn fast;
        TernaryBlocksFn scalar;
        std::size_t bytes;
    };
    for (const Case& c : {Case{"tq1_0", tq1, quantizeTQ1_0Scalar, 54}, Case{"tq2_0", tq2, quantizeTQ2_0Scalar, 66}}) {
        std::vector<std::uint8_t> expected(c.bytes * kBlocks), actual(c.bytes * kBlocks, 0xAA);
        c.scalar(values.data(), expected.data(), kBlocks);
        c.fast(values.data(), actual.data(), kBlocks, c.scalar);
        for (int b = 0; b < kBlocks; ++b)
            QVERIFY2(std::memcmp(expected.data() + c.bytes * b, actual.data() + c.bytes * b, c.bytes) == 0,
                     qPrintable(QStringLiteral("%1 block %2").arg(QLatin1String(c.name)).arg(b)));
    }
}

// Q3_K's re-rounding and packing in AVX2 against the scalar loop, per super-block: exact halves
// of the sub-block scale (nearest_int's ties to even), values far outside the 3-bit range, zeros
// of both signs, NaN and infinity among the values, and zero (kept levels), negative,
// subnormal, NaN and infinite sub-block scales.
void QuantizeTest::q3KLevelsAvx2MatchesScalar()
{
    using namespace gguf::quantize;
    const Q3KLevelsFn fast = q3KLevelsAvx2();
    if (!fast)
        QSKIP("this CPU (or GGUFX_KERNELS) has no AVX2");
    std::uint32_t seed = 11;
    const auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(), 1e30f, -1e30f};
    for (int block = 0; block < 2000; ++block) {
        float x[256];
        float subScale[16];
        std::int8_t expectedL[256], actualL[256];
        for (int j = 0; j < 16; ++j) {
            const std::uint32_t r = next();
            subScale[j] = r % 5 == 0 ? specials[r % 8] : (float(r % 2000) - 1000.0f) / 512.0f;
        }
        for (int i = 0; i < 256; ++i) {
            const std::uint32_t r = next();
            const float d = subScale[i / 16];
            if (r % 4 == 0)
                x[i] = (float(int(r % 13) - 6) + 0.5f) * d;  // a tie of x / d (when d is a plain number)
            else if (r % 17 == 1)
                x[i] = specials[r % 8];
            else
                x[i] = (float(r % 4096) - 2048.0f) / 256.0f;
            expectedL[i] = actualL[i] = static_cast<std::int8_t>(next() % 8);  // the search's levels
        }
        std::uint8_t expectedBits[32 + 64], actualBits[32 + 64];
        std::memset(actualBits, 0xAA, sizeof actualBits);
        q3KLevelsScalar(x, subScale, expectedL, expectedBits, expectedBits + 32);
        fast(x, subScale, actualL, actualBits, actualBits + 32);
        QVERIFY2(std::memcmp(expectedL, actualL, sizeof expectedL) == 0, qPrintable(QStringLiteral("levels, block %1").arg(block)));
        QVERIFY2(std::memcmp(expectedBits, actualBits, sizeof expectedBits) == 0, qPrintable(QStringLiteral("bits, block %1").arg(block)));
    }
}

// The IQ4 scale search's trial sums in AVX2 against the scalar loop written out (the level
// nearest id * x by ggml's rule, then the products and adds in value order), bit for bit, on
// random blocks with ties of the level thresholds, zeros, huge and tiny values and NaN.
void QuantizeTest::iq4TrialSumsAvx2MatchScalar()
{
    using namespace gguf::quantize;
    const Iq4TrialSumsFn fast = iq4TrialSumsAvx2();
    if (!fast)
        QSKIP("this CPU (or GGUFX_KERNELS) has no AVX2");
    const std::int8_t* values = gguf::codebooks::kvalues_iq4nl;
    const auto nearest = [values](float v) {
        int idx = 0;
        for (int l = 1; l < 16; ++l)
            if (v + v >= float(values[l - 1] + values[l]))
                idx = l;
        return float(values[idx]);
    };
    std::uint32_t seed = 5;
    const auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 1e30f, -1e30f, std::numeric_limits<float>::denorm_min()};
    for (int block = 0; block < 3000; ++block) {
        float x[32], weight[32];
        float max = 0.0f, amax = 0.0f;
        for (int j = 0; j < 32; ++j) {
            const std::uint32_t r = next();
            x[j] = r % 23 == 0 ? specials[r % 6] : (float(r % 4096) - 2048.0f) / 128.0f;
            weight[j] = r % 7 == 0 ? 0.0f : float(next() % 1000) / 64.0f;
            if (std::fabs(x[j]) > amax) {
                amax = std::fabs(x[j]);
                max = x[j];
            }
        }
        if (block % 5 == 0)  // x / max on a threshold: (kvalues[l - 1] + kvalues[l]) / 2 / kvalues[0]
            x[3] = max * float(values[4] + values[5]) / (2.0f * float(values[0]));
        float expectedQx[kIq4Trials], expectedQ2[kIq4Trials], actualQx[kIq4Trials], actualQ2[kIq4Trials];
        for (int itry = -7; itry <= 7; ++itry) {
            const float id = (float(itry) + float(values[0])) / max;
            float sumqx = 0.0f, sumq2 = 0.0f;
            for (int j = 0; j < 32; ++j) {
                const float q = nearest(id * x[j]);
                const float wq = weight[j] * q;
                const float product = wq * x[j];  // two statements: no fused multiply-add
                sumqx += product;
                const float square = wq * q;
                sumq2 += square;
            }
            expectedQx[itry + 7] = sumqx;
            expectedQ2[itry + 7] = sumq2;
        }
        fast(x, weight, max, actualQx, actualQ2);
        // Equal bits, or both NaN (a NaN sum fails every comparison of the search, whatever its payload).
        const auto same = [](float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b) || (a != a && b != b); };
        for (int i = 0; i < kIq4Trials; ++i) {
            QVERIFY2(same(expectedQx[i], actualQx[i]), qPrintable(QStringLiteral("sumqx, block %1 trial %2").arg(block).arg(i)));
            QVERIFY2(same(expectedQ2[i], actualQ2[i]), qPrintable(QStringLiteral("sumq2, block %1 trial %2").arg(block).arg(i)));
        }
    }
}

// The lane searches' input interleave by 8x8 transposes against the plain copy loop, bit for
// bit (random bit patterns: NaN payloads, signed zeros, subnormals), for every n the callers use.
void QuantizeTest::interleaveTransposeMatchesCopyLoop()
{
    using namespace gguf::quantize;
    const Interleave8Fn fast = interleave8Fast();
    if (!fast)
        QSKIP("this CPU (or GGUFX_KERNELS) has no AVX2");
    std::uint32_t seed = 5;
    for (const int n : {8, 16, 32, 64}) {
        std::vector<float> src(8 * n);
        for (float& v : src) {
            seed = seed * 1664525u + 1013904223u;
            v = std::bit_cast<float>(seed);
        }
        std::vector<float> expected(8 * n), actual(8 * n);
        interleaveGroupsScalar(src.data(), n, 8, expected.data());
        fast(src.data(), n, actual.data());
        QVERIFY2(std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(float)) == 0, qPrintable(QString::number(n)));
        std::fill(actual.begin(), actual.end(), 1.0f);
        interleaveGroups(src.data(), n, 8, actual.data());  // the dispatching entry point
        QVERIFY(std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(float)) == 0);
    }
}

void QuantizeTest::rejectsMisfits()
{
    std::vector<float> values(256, 1.0f);
    std::vector<std::uint8_t> out(144);
    const std::uint32_t kQ4_K = typeIdValue(GgmlTypeId::Q4_K);
    QVERIFY(quantizeValues(kQ4_K, values, out));                                       // q4_K: one block
    QVERIFY(!quantizeValues(kQ4_K, std::span(values).first(255), out));                // not whole blocks
    QVERIFY(!quantizeValues(kQ4_K, values, std::span(out).first(143)));                // wrong output size
    QVERIFY(!quantizeValues(typeIdValue(GgmlTypeId::IQ2_XXS), values, out));           // no quantizer
    QVERIFY(!quantizeValues(250, values, out));                                        // unknown type
    QVERIFY(!quantizeValues(typeIdValue(GgmlTypeId::IQ1_M), values, out));             // no quantizer (yet)
}

void QuantizeTest::quantizableTypesListed()
{
    QStringList names;
    for (const TypeTraits* type : quantizableTypes())
        names << QLatin1String(type->name);
    QCOMPARE(names.join(QLatin1Char(',')),
             QStringLiteral("f32,f16,q4_0,q4_1,q5_0,q5_1,q8_0,q2_K,q3_K,q4_K,q5_K,q6_K,q8_K,iq2_xxs,iq2_xs,iq3_xxs,iq1_s,iq4_nl,iq3_s,iq2_s,iq4_xs,iq1_m,"
                            "bf16,tq1_0,tq2_0,mxfp4,nvfp4,q1_0,q2_0"));
}

QTEST_GUILESS_MAIN(QuantizeTest)
#include "tst_quantize.moc"
