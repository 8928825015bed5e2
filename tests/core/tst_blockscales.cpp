// Per-block scale extraction against ggml's own dequantized output. The oracle is the expected
// f32 of every type in all-types.gguf: each element must be exactly subScale * level (+/- min)
// for one of the type's levels, so a scale that is off by one ulp, belongs to another sub-block
// or comes from the wrong bits fails. Big-endian files must give the same scales as their
// little-endian twin.

#include "core/blocks/BlockScales.h"
#include "core/gguf/Dequantize.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/gguf/GgufFile.h"
#include "core/kernels/Codebooks.h"

#include <QList>
#include <QSet>
#include <QtEndian>
#include <QtTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

using namespace gguf;

using testsupport::openFixtureFile;

namespace {

// ggml's to_float output for `tensor`: the .f32 file next to all-types.gguf when there is one,
// else (q8_1, q8_K, which ggml cannot quantize into all-types) our dequantizer, which the kernel
// checks hold to the manifests' hashes.
std::vector<float> expectedValues(const TensorInfo& tensor, const QString& f32File)
{
    std::vector<float> values(tensor.elementCount());
    if (f32File.isEmpty()) {
        if (!dequantizeRows(tensor, 0, tensor.rowCount(), values))
            values.clear();
        return values;
    }
    const QByteArray bytes = testsupport::readWholeFile(testsupport::fixturePath(f32File));
    if (std::size_t(bytes.size()) != values.size() * 4)
        return {};
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = std::bit_cast<float>(qFromLittleEndian<quint32>(bytes.constData() + 4 * i));
    return values;
}

bool sameBits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

// The same expression, in the same order, as every dequantizer: scale * level first, then the min.
float reconstruct(float scale, float level, float min, MinRole role)
{
    const float scaled = scale * level;
    switch (role) {
    case MinRole::Added: return scaled + min;
    case MinRole::Subtracted: return scaled - min;
    case MinRole::None: break;
    }
    return scaled;
}

// Index of the first value that is not scale * level (+/- min) for any level, if any.
std::optional<std::uint32_t> firstMisfit(std::span<const float> values, float scale, float min, MinRole role,
                                         const QList<float>& levels)
{
    for (std::uint32_t i = 0; i < values.size(); ++i) {
        const auto fits = [&](float level) { return sameBits(reconstruct(scale, level, min, role), values[i]); };
        if (std::none_of(levels.begin(), levels.end(), fits))
            return i;
    }
    return std::nullopt;
}

bool isProductOfSome(float value, float base, const QList<float>& factors)
{
    return std::any_of(factors.begin(), factors.end(), [&](float factor) { return sameBits(base * factor, value); });
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](float x, float y) { return sameBits(x, y); });
}

// ---- level and factor sets ----------------------------------------------------------------

QList<float> integers(int first, int last, int step = 1)
{
    QList<float> list;
    for (int i = first; i <= last; i += step)
        list.append(float(i));
    return list;
}

// Every signed magnitude a codebook's entries hold, one byte per element (IQ2 / IQ3 grids).
template <class Entry, std::size_t N>
QList<float> signedGridLevels(const Entry (&grid)[N])
{
    QSet<int> magnitudes;
    for (const Entry entry : grid)
        for (std::size_t k = 0; k < sizeof(Entry); ++k)
            magnitudes.insert(int((entry >> (8 * k)) & 0xFF));
    QList<float> list;
    for (const int m : magnitudes)
        list << float(m) << -float(m);
    return list;
}

QList<float> iq1Levels()
{
    QList<float> list;
    for (const int grid : {-1, 0, 1})
        for (const float delta : {-codebooks::IQ1S_DELTA, codebooks::IQ1S_DELTA})
            list.append(float(grid) + delta);
    return list;
}

// IQ2 / IQ3_XXS scale factors: (0.5 + s) * quarterOrHalf for the 4-bit s.
QList<float> halfOffsetFactors(float multiplier)
{
    QList<float> list;
    for (int s = 0; s < 16; ++s)
        list.append((0.5f + float(s)) * multiplier);
    return list;
}

}  // namespace

class TestBlockScales : public QObject {
    Q_OBJECT

private slots:
    void scalesReproduceValues_data();
    void scalesReproduceValues();
    void q4_KScalesApplyToTheirQuants();
    void bigEndianMatchesLittleEndian_data();
    void bigEndianMatchesLittleEndian();
    void everyQuantizedTypeHasALayout();
    void typesWithoutScalesFail();
    void rangesOutsideTheTensorFail();
};

void TestBlockScales::scalesReproduceValues_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("f32File");  // empty: expected values come from dequantizeRows
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<int>("superScales");
    QTest::addColumn<int>("subScales");
    QTest::addColumn<int>("subMins");
    QTest::addColumn<int>("minRole");
    QTest::addColumn<QList<float>>("levels");        // what an element's bits can select
    QTest::addColumn<QList<float>>("scaleFactors");  // subScale = superScales[0] * one of these
    QTest::addColumn<QList<float>>("minFactors");    // subMin = superScales[1] * one of these

    const QString all = "all-types.gguf";
    const int none = int(MinRole::None);
    const int added = int(MinRole::Added);
    const int subtracted = int(MinRole::Subtracted);
    const QList<float> one{1.0f};
    const QList<float> q8 = integers(-128, 127);
    const QList<float> iq4(std::begin(codebooks::kvalues_iq4nl), std::end(codebooks::kvalues_iq4nl));
    const QList<float> fp4(std::begin(codebooks::kvalues_fp4), std::end(codebooks::kvalues_fp4));
    const QList<float> iq2Factors = halfOffsetFactors(0.25f);
    auto add = [&](const char* name, const QString& file, const QString& f32, int super, int sub, int mins, int role,
                   QList<float> levels, QList<float> scaleFactors, QList<float> minFactors = {}) {
        QTest::newRow(name) << file << f32 << QString(name) << super << sub << mins << role << levels << scaleFactors
                            << minFactors;
    };
    auto addAll = [&](const char* name, int super, int sub, int mins, int role, QList<float> levels,
                      QList<float> scaleFactors, QList<float> minFactors = {}) {
        add(name, all, QString("all-types.%1.f32").arg(name), super, sub, mins, role, levels, scaleFactors, minFactors);
    };

    addAll("q4_0", 1, 1, 0, none, integers(-8, 7), one);
    addAll("q4_1", 2, 1, 1, added, integers(0, 15), one, one);
    addAll("q5_0", 1, 1, 0, none, integers(-16, 15), one);
    addAll("q5_1", 2, 1, 1, added, integers(0, 31), one, one);
    addAll("q8_0", 1, 1, 0, none, q8, one);
    add("q8_1", "q8-internal-types.gguf", {}, 2, 1, 0, none, q8, one);
    addAll("q2_k", 2, 16, 16, subtracted, integers(0, 3), integers(0, 15), integers(0, 15));
    addAll("q3_k", 1, 16, 0, none, integers(-4, 3), integers(-32, 31));
    addAll("q4_k", 2, 8, 8, subtracted, integers(0, 15), integers(0, 63), integers(0, 63));
    addAll("q5_k", 2, 8, 8, subtracted, integers(0, 31), integers(0, 63), integers(0, 63));
    addAll("q6_k", 1, 16, 0, none, integers(-32, 31), integers(-128, 127));
    add("q8_k", "q8-internal-types.gguf", {}, 1, 1, 0, none, q8, one);
    addAll("iq2_xxs", 1, 8, 0, none, signedGridLevels(codebooks::iq2xxs_grid), iq2Factors);
    addAll("iq2_xs", 1, 16, 0, none, signedGridLevels(codebooks::iq2xs_grid), iq2Factors);
    addAll("iq3_xxs", 1, 8, 0, none, signedGridLevels(codebooks::iq3xxs_grid), halfOffsetFactors(0.5f));
    addAll("iq1_s", 1, 8, 0, none, iq1Levels(), integers(1, 15, 2));
    addAll("iq4_nl", 1, 1, 0, none, iq4, one);
    addAll("iq3_s", 1, 8, 0, none, signedGridLevels(codebooks::iq3s_grid), integers(1, 31, 2));
    addAll("iq2_s", 1, 16, 0, none, signedGridLevels(codebooks::iq2s_grid), iq2Factors);
    addAll("iq4_xs", 1, 8, 0, none, iq4, integers(-32, 31));
    addAll("iq1_m", 1, 16, 0, none, iq1Levels(), integers(1, 15, 2));
    addAll("tq1_0", 1, 1, 0, none, integers(-1, 1), one);
    addAll("tq2_0", 1, 1, 0, none, integers(-1, 2), one);
    addAll("mxfp4", 1, 1, 0, none, fp4, {0.5f});
    addAll("nvfp4", 0, 4, 0, none, fp4, {});
    addAll("q1_0", 1, 1, 0, none, {-1.0f, 1.0f}, one);
    addAll("q2_0", 1, 1, 0, none, integers(-1, 2), one);
}

void TestBlockScales::scalesReproduceValues()
{
    QFETCH(QString, file);
    QFETCH(QString, f32File);
    QFETCH(QString, tensor);
    QFETCH(int, superScales);
    QFETCH(int, subScales);
    QFETCH(int, subMins);
    QFETCH(int, minRole);
    QFETCH(QList<float>, levels);
    QFETCH(QList<float>, scaleFactors);
    QFETCH(QList<float>, minFactors);

    const auto gguf = openFixtureFile(file);
    QVERIFY(gguf);
    const TensorInfo* info = gguf->findTensor(tensor.toStdString());
    QVERIFY(info && info->traits);
    const std::vector<float> expected = expectedValues(*info, f32File);
    QCOMPARE(expected.size(), info->elementCount());

    const auto layout = blockScaleLayout(info->typeId);
    QVERIFY(layout);
    QCOMPARE(int(layout->superScales), superScales);
    QCOMPARE(int(layout->subScales), subScales);
    QCOMPARE(int(layout->subMins), subMins);
    QCOMPARE(int(layout->minRole), minRole);
    QCOMPARE(layout->superScaleNames.size(), std::size_t(superScales));
    QCOMPARE(layout->subScales * layout->elementsPerSubBlock, info->traits->blockSize);

    BlockScales scales;
    const Status status = extractRowScales(*info, 0, info->rowCount(), scales);
    QVERIFY2(status, status.ok() ? "" : status.error().toString().c_str());
    const std::uint64_t blocks = info->elementCount() / info->traits->blockSize;
    QCOMPARE(scales.blockCount, blocks);
    QCOMPARE(scales.superScales.size(), blocks * superScales);
    QCOMPARE(scales.subScales.size(), blocks * subScales);
    QCOMPARE(scales.subMins.size(), blocks * subMins);

    // Every element must be exactly scale * level (+/- min) for one of the type's levels. And the
    // check must be able to fail: `pinned` counts the sub-blocks that reject a scale one ulp off
    // (a sub-block whose values all sit on level 0, or on small levels next to a large min, may
    // accept it), `minsPinned` the same for a min one ulp off.
    const auto role = MinRole(minRole);
    const std::uint32_t perSub = layout->elementsPerSubBlock;
    const auto up = [](float x) { return std::nextafter(x, std::numeric_limits<float>::infinity()); };
    std::uint64_t pinned = 0;
    std::uint64_t minsPinned = 0;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        for (std::uint32_t s = 0; s < layout->subScales; ++s) {
            const std::uint64_t sub = b * subScales + s;
            const std::span<const float> values(expected.data() + sub * perSub, perSub);
            const float scale = scales.subScales[sub];
            const float min = subMins ? scales.subMins[sub] : 0.0f;
            const std::optional<std::uint32_t> misfit = firstMisfit(values, scale, min, role, levels);
            QVERIFY2(!misfit,
                     qPrintable(QString("element %1 (block %2, sub-block %3) = %4 is no level of scale %5, min %6")
                                    .arg(sub * perSub + misfit.value_or(0)).arg(b).arg(s)
                                    .arg(double(values[misfit.value_or(0)]), 0, 'g', 9)
                                    .arg(double(scale), 0, 'g', 9).arg(double(min), 0, 'g', 9)));
            pinned += firstMisfit(values, up(scale), min, role, levels).has_value();
            minsPinned += subMins && firstMisfit(values, scale, up(min), role, levels).has_value();
            if (!scaleFactors.isEmpty())
                QVERIFY2(isProductOfSome(scale, scales.superScales[b * superScales], scaleFactors),
                         qPrintable(QString("block %1 sub-scale %2 is not derived from the super scale").arg(b).arg(s)));
            if (subMins)
                QVERIFY2(isProductOfSome(min, scales.superScales[b * superScales + 1], minFactors),
                         qPrintable(QString("block %1 sub-min %2 is not derived from the super min").arg(b).arg(s)));
        }
    }
    const std::uint64_t subBlocks = blocks * subScales;
    QVERIFY2(pinned * 10 >= subBlocks * 9,
             qPrintable(QString("only %1 of %2 sub-blocks pin their scale down").arg(pinned).arg(subBlocks)));
    if (subMins)
        QVERIFY2(minsPinned * 10 >= subBlocks * 9,
                 qPrintable(QString("only %1 of %2 sub-blocks pin their min down").arg(minsPinned).arg(subBlocks)));

    // Rows 1-2 alone are the same blocks, taken from the middle of the tensor.
    BlockScales rows;
    QVERIFY(extractRowScales(*info, 1, 3, rows));
    const std::uint64_t blocksPerRow = blocks / info->rowCount();
    QCOMPARE(rows.firstBlock, blocksPerRow);
    QCOMPARE(rows.blockCount, 2 * blocksPerRow);
    auto middle = [&](const std::vector<float>& all, std::size_t perBlock) {
        return std::vector<float>(all.begin() + blocksPerRow * perBlock, all.begin() + 3 * blocksPerRow * perBlock);
    };
    QVERIFY(sameBits(rows.superScales, middle(scales.superScales, superScales)));
    QVERIFY(sameBits(rows.subScales, middle(scales.subScales, subScales)));
    QVERIFY(sameBits(rows.subMins, middle(scales.subMins, subMins)));
}

// Ties the scales to the quant bits themselves (not just to some level): in Q4_K, 64-element
// chunk c takes sub-block 2c from the low nibbles of qs[32c..32c+31] and 2c+1 from the high ones.
void TestBlockScales::q4_KScalesApplyToTheirQuants()
{
    const auto gguf = openFixtureFile("all-types.gguf");
    QVERIFY(gguf);
    const TensorInfo* info = gguf->findTensor("q4_k");
    QVERIFY(info);
    const std::vector<float> expected = expectedValues(*info, "all-types.q4_k.f32");
    QCOMPARE(expected.size(), info->elementCount());
    BlockScales scales;
    QVERIFY(extractBlockScales(*info, 0, info->elementCount() / 256, scales));
    for (std::uint64_t b = 0; b < scales.blockCount; ++b) {
        const std::uint8_t* qs = info->data + b * info->traits->blockBytes + 16;
        for (int element = 0; element < 256; ++element) {
            const int chunk = element / 64;
            const int l = element % 32;
            const int sub = element / 32;
            const std::uint8_t byte = qs[32 * chunk + l];
            const int q = sub % 2 == 0 ? (byte & 0xF) : (byte >> 4);
            const float value = reconstruct(scales.subScales[8 * b + sub], float(q), scales.subMins[8 * b + sub],
                                            MinRole::Subtracted);
            QVERIFY2(sameBits(value, expected[256 * b + element]),
                     qPrintable(QString("block %1 element %2").arg(b).arg(element)));
        }
    }
}

void TestBlockScales::bigEndianMatchesLittleEndian_data()
{
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<bool>("hasSwappedFields");  // false: no multi-byte scale field (mxfp4)
    QTest::newRow("q8_0") << "be.q8_0" << true;
    QTest::newRow("q4_0") << "be.q4_0" << true;
    QTest::newRow("q4_K") << "be.q4_K" << true;
    QTest::newRow("q6_K") << "be.q6_K" << true;
    QTest::newRow("mxfp4") << "be.mxfp4" << false;
}

void TestBlockScales::bigEndianMatchesLittleEndian()
{
    QFETCH(QString, tensor);
    QFETCH(bool, hasSwappedFields);
    const auto big = openFixtureFile("be.gguf");
    const auto little = openFixtureFile("be-twin-le.gguf");
    QVERIFY(big && little);
    const TensorInfo* bigInfo = big->findTensor(tensor.toStdString());
    const TensorInfo* littleInfo = little->findTensor(tensor.toStdString());
    QVERIFY(bigInfo && littleInfo);
    QVERIFY(bigInfo->bigEndian);
    QVERIFY(!littleInfo->bigEndian);

    BlockScales fromBig;
    BlockScales fromLittle;
    QVERIFY(extractRowScales(*bigInfo, 0, bigInfo->rowCount(), fromBig));
    QVERIFY(extractRowScales(*littleInfo, 0, littleInfo->rowCount(), fromLittle));
    QVERIFY(fromLittle.blockCount > 0);
    QVERIFY(sameBits(fromBig.superScales, fromLittle.superScales));
    QVERIFY(sameBits(fromBig.subScales, fromLittle.subScales));
    QVERIFY(sameBits(fromBig.subMins, fromLittle.subMins));

    // The swap is what makes them equal: the same bytes read as little-endian differ.
    TensorInfo unswapped = *bigInfo;
    unswapped.bigEndian = false;
    BlockScales misread;
    QVERIFY(extractRowScales(unswapped, 0, unswapped.rowCount(), misread));
    QCOMPARE(!sameBits(misread.superScales, fromLittle.superScales), hasSwappedFields);
}

void TestBlockScales::everyQuantizedTypeHasALayout()
{
    for (const TypeTraits* t = typeTableBegin(); t != typeTableEnd(); ++t) {
        const auto layout = blockScaleLayout(t->id);
        QVERIFY2(layout.has_value() == (t->kind == TypeKind::Quantized), t->name);
        if (layout) {
            QVERIFY2(layout->subScales * layout->elementsPerSubBlock == t->blockSize, t->name);
            QVERIFY2(layout->subMins == 0 || layout->subMins == layout->subScales, t->name);
            QVERIFY2((layout->subMins == 0) == (layout->minRole == MinRole::None), t->name);
        }
    }
    for (const std::uint32_t id : {0u, 1u, 4u, 24u, 28u, 30u, 31u, 43u, 250u})
        QVERIFY2(!blockScaleLayout(id), qPrintable(QString::number(id)));
}

void TestBlockScales::typesWithoutScalesFail()
{
    const auto all = openFixtureFile("all-types.gguf");
    QVERIFY(all);
    for (const char* name : {"f32", "f16", "bf16", "i8", "f64"}) {
        const TensorInfo* info = all->findTensor(name);
        QVERIFY(info);
        BlockScales scales;
        const Status status = extractBlockScales(*info, 0, 1, scales);
        QVERIFY2(!status, name);
        QVERIFY2(status.error().message.find(name) != std::string::npos, status.error().message.c_str());
    }
    // Unknown (250) and retired (4) type ids: the file opens, asking for scales fails.
    for (const char* file : {"odd/unknown_tensor_type_250.gguf", "odd/tensor_type_removed_4.gguf"}) {
        const auto odd = openFixtureFile(file);
        QVERIFY2(odd, file);
        const TensorInfo* info = odd->findTensor("b.q4_K");
        QVERIFY(info);
        BlockScales scales;
        QVERIFY2(!extractBlockScales(*info, 0, 1, scales), file);
        QVERIFY2(!extractRowScales(*info, 0, 1, scales), file);
    }
}

void TestBlockScales::rangesOutsideTheTensorFail()
{
    const auto all = openFixtureFile("all-types.gguf");
    QVERIFY(all);
    const TensorInfo* info = all->findTensor("q4_k");
    QVERIFY(info);
    const std::uint64_t blocks = info->elementCount() / 256;  // 16
    BlockScales scales;
    QVERIFY(extractBlockScales(*info, blocks - 1, 1, scales));
    QVERIFY(extractBlockScales(*info, blocks, 0, scales));
    QCOMPARE(scales.subScales.size(), std::size_t(0));
    QVERIFY(!extractBlockScales(*info, blocks, 1, scales));
    QVERIFY(!extractBlockScales(*info, 0, blocks + 1, scales));
    QVERIFY(!extractBlockScales(*info, 2, std::numeric_limits<std::uint64_t>::max(), scales));
    QVERIFY(!extractBlockScales(*info, std::numeric_limits<std::uint64_t>::max(), 2, scales));
    QVERIFY(!extractRowScales(*info, 0, info->rowCount() + 1, scales));
    QVERIFY(!extractRowScales(*info, 2, 1, scales));

    // Caller spans must have exactly the size the layout asks for.
    std::vector<float> super(2 * 2), sub(2 * 8), mins(2 * 8);
    QVERIFY(extractBlockScales(*info, 0, 2, BlockScaleSpans{super, sub, mins}));
    QVERIFY(!extractBlockScales(*info, 0, 2, BlockScaleSpans{super, std::span(sub).first(15), mins}));
    QVERIFY(!extractBlockScales(*info, 0, 2, BlockScaleSpans{super, sub, {}}));

    // An empty tensor ([256, 0]) has no blocks at all.
    const auto odd = openFixtureFile("odd/dim_zero.gguf");
    QVERIFY(odd);
    const TensorInfo* empty = odd->findTensor("b.q4_K");
    QVERIFY(empty);
    QVERIFY(extractRowScales(*empty, 0, 0, scales));
    QCOMPARE(scales.blockCount, std::uint64_t(0));
    QVERIFY(!extractBlockScales(*empty, 0, 1, scales));
}

QTEST_GUILESS_MAIN(TestBlockScales)
#include "tst_blockscales.moc"
