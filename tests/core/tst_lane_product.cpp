// The lane product (kernels/LaneProduct.h): every kernel the CPU has (AVX-512, AVX2) gives the
// portable loop's bits, which are the lane order itself, for shapes that exercise each blocking
// edge (rows and tokens not multiples of the tiles, columns spanning several slices); the same
// over weights packed into the AVX-512 kernel's panel (kernels/LanePanel.h); and the order
// differs from a plain sum, so the check can fail.

#include "core/forward/GgmlDots.h"
#include "core/forward/MatrixProduct.h"
#include "core/forward/WeightLoader.h"
#include "core/gguf/TensorInfo.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/HalfRowProduct.h"
#include "core/kernels/LanePanel.h"
#include "core/types/GgmlType.h"
#include "core/kernels/LaneProduct.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

// One output in the order LaneProduct.h states, written out independently.
float laneDot(const float* x, const float* w, std::int64_t columns)
{
    float l[8] = {};
    for (std::int64_t k = 0; k < columns; k += 8)
        for (int q = 0; q < 8; ++q)
            l[q] = std::fma(w[k + q], x[k + q], l[q]);
    return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

std::vector<float> randomValues(std::size_t count, unsigned seed)
{
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(count);
    for (float& v : values)
        v = normal(random);
    return values;
}

// A stored matrix of 8 rows of `type` over `values` (the test's own memory, no file).
gguf::TensorInfo eightRows(gguf::GgmlTypeId type, const void* values, std::int64_t columns)
{
    gguf::TensorInfo tensor;
    tensor.name = "w";
    tensor.ne = {columns, 8, 1, 1};
    tensor.typeId = static_cast<std::uint32_t>(type);
    tensor.traits = gguf::findType(tensor.typeId);
    tensor.data = static_cast<const std::uint8_t*>(values);
    return tensor;
}

}  // namespace

class LaneProductTest : public QObject {
    Q_OBJECT

private slots:
    void kernelsMatchTheOrder_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("rowBegin");
        QTest::newRow("one output") << 1 << 1 << 8 << 0;
        QTest::newRow("tile edges") << 7 << 9 << 40 << 0;
        QTest::newRow("odd row range") << 13 << 11 << 72 << 3;
        QTest::newRow("several slices") << 130 << 6 << 4104 << 1;  // 256 KB / 130 tokens: 504-column slices
        QTest::newRow("many tokens") << 600 << 5 << 256 << 0;
        QTest::newRow("panel groups and a part") << 20 << 21 << 96 << 0;     // 2 groups of 8 rows, then 5
        QTest::newRow("few tokens, row-major tile") << 5 << 17 << 64 << 2;   // below the panel's minimum
        QTest::newRow("slices, partial token tile") << 161 << 18 << 2056 << 0;  // token blocks of 84 and 77, 3 column slices
    }

    void kernelsMatchTheOrder()
    {
        QFETCH(int, tokens);
        QFETCH(int, rows);
        QFETCH(int, columns);
        QFETCH(int, rowBegin);
        const auto x = randomValues(static_cast<std::size_t>(tokens) * columns, 1);
        const auto w = randomValues(static_cast<std::size_t>(rows) * columns, 2);
        const std::int64_t stride = rows + 2;
        std::vector<float> expected(static_cast<std::size_t>(tokens * stride), -1.0f);
        for (int t = 0; t < tokens; ++t)
            for (int r = rowBegin; r < rows; ++r)
                expected[static_cast<std::size_t>(t * stride + r)] = laneDot(x.data() + t * columns, w.data() + r * columns, columns);
        qInfo("this CPU's kernel: %d", gguf::laneProductKernel());
        std::vector<float> scratch;
        for (int kernel = 0; kernel <= gguf::laneProductKernel(); ++kernel) {
            std::vector<float> y(expected.size(), -1.0f);
            gguf::laneProductRowsWith(kernel, x.data(), tokens, w.data(), columns, rowBegin, rows, y.data(), stride, scratch);
            QVERIFY2(std::memcmp(y.data(), expected.data(), y.size() * sizeof(float)) == 0, qPrintable(QString::number(kernel)));
        }
        std::vector<float> y(expected.size(), -1.0f);
        gguf::laneProductRows(x.data(), tokens, w.data(), columns, rowBegin, rows, y.data(), stride, scratch);
        QVERIFY(std::memcmp(y.data(), expected.data(), y.size() * sizeof(float)) == 0);
    }

    // The panel (LanePanel.h) read by each kernel the CPU has gives the order's bits for the rows
    // [rowBegin, rows) packed from the row-major matrix.
    void panelKernelsMatchTheOrder_data() { kernelsMatchTheOrder_data(); }

    void panelKernelsMatchTheOrder()
    {
        QFETCH(int, tokens);
        QFETCH(int, rows);
        QFETCH(int, columns);
        QFETCH(int, rowBegin);
        const auto x = randomValues(static_cast<std::size_t>(tokens) * columns, 5);
        const auto w = randomValues(static_cast<std::size_t>(rows) * columns, 6);
        const int panelRows = rows - rowBegin;
        const std::int64_t stride = panelRows + 3;
        std::vector<float> expected(static_cast<std::size_t>(tokens * stride), -1.0f);
        for (int t = 0; t < tokens; ++t)
            for (int r = 0; r < panelRows; ++r)
                expected[static_cast<std::size_t>(t * stride + r)] =
                    laneDot(x.data() + t * columns, w.data() + (rowBegin + r) * static_cast<std::int64_t>(columns), columns);
        std::vector<float> storage;
        float* panel = gguf::alignedLanePanel(storage, gguf::lanePanelFloats(panelRows, columns));
        QCOMPARE(reinterpret_cast<std::uintptr_t>(panel) % 64, std::uintptr_t{0});
        gguf::packLanePanel(w.data() + rowBegin * static_cast<std::int64_t>(columns), panelRows, columns, panel);
        std::vector<float> scratch;
        for (int kernel : {0, 2}) {
            std::vector<float> y(expected.size(), -1.0f);
            gguf::laneProductPanelWith(kernel, x.data(), tokens, panel, columns, panelRows, y.data(), stride, scratch);
            QVERIFY2(std::memcmp(y.data(), expected.data(), y.size() * sizeof(float)) == 0, qPrintable(QString::number(kernel)));
        }
    }

    // F16 rows packed as they are converted are the panel of their f32 values, bit for bit, for
    // every half pattern (subnormals, infinities, NaNs) and a short last group; through a stored
    // tensor (packLanePanelGroupFrom) too, next to a type that takes the dequantizing path.
    void f16RowsPackAsTheirValues()
    {
        const std::int64_t columns = 136;  // 17 steps of 8
        std::vector<std::uint16_t> halves(static_cast<std::size_t>(8 * columns));
        std::mt19937 random(9);
        for (std::size_t i = 0; i < halves.size(); ++i)
            halves[i] = i < 65536 / 97 ? static_cast<std::uint16_t>(i * 97) : static_cast<std::uint16_t>(random());
        for (const std::int64_t count : {std::int64_t{8}, std::int64_t{3}}) {
            std::vector<float> values(static_cast<std::size_t>(count * columns));
            for (std::size_t i = 0; i < values.size(); ++i)
                values[i] = gguf::f16ToF32(halves[i]);
            std::vector<float> expected(static_cast<std::size_t>(8 * columns), 7.0f), packed(expected.size(), 7.0f);
            gguf::packLanePanelGroup(values.data(), count, columns, expected.data());
            gguf::packLanePanelGroupF16(halves.data(), count, columns, packed.data());
            QVERIFY(std::memcmp(packed.data(), expected.data(), packed.size() * sizeof(float)) == 0);

            const gguf::TensorInfo tensor = eightRows(gguf::GgmlTypeId::F16, halves.data(), columns);
            std::vector<float> staging, fromTensor(expected.size(), 7.0f);
            QVERIFY(gguf::packLanePanelGroupFrom(tensor, 0, count, fromTensor.data(), staging));
            QVERIFY(staging.empty());  // converted in place, never staged
            QVERIFY(std::memcmp(fromTensor.data(), expected.data(), expected.size() * sizeof(float)) == 0);
            QVERIFY(!gguf::packLanePanelGroupFrom(tensor, 6, 3, fromTensor.data(), staging));  // rows 6..8 of 8
        }
        // An F32 tensor goes through dequantizeRows and the staging rows.
        std::vector<float> floats(static_cast<std::size_t>(8 * columns));
        for (std::size_t i = 0; i < floats.size(); ++i)
            floats[i] = static_cast<float>(i) * 0.5f;
        const gguf::TensorInfo tensor = eightRows(gguf::GgmlTypeId::F32, floats.data(), columns);
        std::vector<float> expected(floats.size()), packed(floats.size()), staging;
        gguf::packLanePanelGroup(floats.data() + 2 * columns, 5, columns, expected.data());
        QVERIFY(gguf::packLanePanelGroupFrom(tensor, 2, 5, packed.data(), staging));
        QCOMPARE(staging.size(), static_cast<std::size_t>(5 * columns));
        QVERIFY(std::memcmp(packed.data(), expected.data(), packed.size() * sizeof(float)) == 0);
    }

    // A few tokens straight from stored f16 rows (HalfRowProduct.h) give the order's bits over
    // the rows' values, for every token count it takes, a row range that starts inside the
    // tensor and ends in a part tile, and finite halves of every kind (subnormals included); it
    // refuses rows past the tensor's end. Where the CPU lacks AVX-512 it does not apply.
    void f16RowProductMatchesTheOrder()
    {
        const std::int64_t columns = 136;
        const std::int64_t rows = 22;
        std::vector<std::uint16_t> halves(static_cast<std::size_t>(rows * columns));
        std::mt19937 random(11);
        for (auto& h : halves) {
            do
                h = static_cast<std::uint16_t>(random());
            while ((h & 0x7C00u) == 0x7C00u);  // no infinities or NaNs: their sums are not bits to compare
        }
        std::vector<float> values(halves.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = gguf::f16ToF32(halves[i]);
        gguf::TensorInfo tensor = eightRows(gguf::GgmlTypeId::F16, halves.data(), columns);
        tensor.ne[1] = rows;
        if (!gguf::halfRowProductApplies(tensor, 0, rows))
            QSKIP("no AVX-512 here: the product dequantizes instead");
        QVERIFY(!gguf::halfRowProductApplies(tensor, 13, rows - 12));
        QVERIFY(!gguf::laneProductHalfRows(tensor, 13, rows - 12, values.data(), 1, values.data(), 1));
        const auto x = randomValues(static_cast<std::size_t>(5 * columns), 12);
        for (std::int64_t tokens = 1; tokens < gguf::kLanePanelMinTokens; ++tokens) {
            const std::int64_t first = 3, count = rows - first;  // two tiles of 8 and one of 3
            const std::int64_t stride = count + 1;
            std::vector<float> expected(static_cast<std::size_t>(tokens * stride), -1.0f), y(expected.size(), -1.0f);
            for (std::int64_t t = 0; t < tokens; ++t)
                for (std::int64_t r = 0; r < count; ++r)
                    expected[static_cast<std::size_t>(t * stride + r)] = laneDot(x.data() + t * columns, values.data() + (first + r) * columns, columns);
            QVERIFY(gguf::laneProductHalfRows(tensor, first, count, x.data(), tokens, y.data(), stride));
            QVERIFY2(std::memcmp(y.data(), expected.data(), y.size() * sizeof(float)) == 0, qPrintable(QString::number(tokens)));
        }
    }

    // The lanes are not a plain sequential float sum: the check above sees the order.
    // An f32 weight in llama.cpp's arithmetic: tinyBLAS (the lane order) when its row count is a
    // multiple of 4, else ggml_vec_dot_f32 for each output, as mul_mat falls back when
    // llamafile_sgemm declines the matrix (step35's 6-head attn_gate, qwen35moe's one-row gate).
    void floatWeightsBelowTinyBlasTilesTakeVecDot_data()
    {
        QTest::addColumn<int>("rows");
        for (const int rows : {1, 3, 4, 6, 8})
            QTest::newRow(qPrintable(QString::number(rows) + QStringLiteral(" rows"))) << rows;
    }

    void floatWeightsBelowTinyBlasTilesTakeVecDot()
    {
        QFETCH(int, rows);
        constexpr std::int64_t columns = 72, tokens = 3;  // 72: two 32-value steps and a tail of 8
        gguf::WeightMatrix weight;
        weight.values = randomValues(static_cast<std::size_t>(rows * columns), 7);
        weight.rows = rows;
        weight.columns = columns;
        weight.storedType = gguf::typeIdValue(gguf::GgmlTypeId::F32);
        weight.tensorName = "blk.0.attn_gate.weight";
        weight.ggmlFloatLanes = true;
        const std::vector<float> x = randomValues(static_cast<std::size_t>(tokens * columns), 8);
        std::vector<float> y(static_cast<std::size_t>(tokens * rows));
        gguf::multiplyWeights(x.data(), tokens, weight, gguf::Accumulation::Lanes, y.data(), rows);
        int differsFromLanes = 0;
        for (std::int64_t t = 0; t < tokens; ++t)
            for (std::int64_t r = 0; r < rows; ++r) {
                const float* w = weight.values.data() + r * columns;
                const float* in = x.data() + t * columns;
                const float expected = rows % 4 == 0 ? laneDot(in, w, columns) : gguf::vecDotF32(w, in, columns);
                QCOMPARE(y[static_cast<std::size_t>(t * rows + r)], expected);
                differsFromLanes += gguf::vecDotF32(w, in, columns) != laneDot(in, w, columns) ? 1 : 0;
            }
        QVERIFY2(differsFromLanes > 0, "the two orders give the same bits here: the check could not fail");
    }

    void orderIsNotSequential()
    {
        const int columns = 4096;
        const auto x = randomValues(columns, 3);
        const auto w = randomValues(columns, 4);
        int differ = 0;
        for (int shift = 0; shift < 16; ++shift) {
            float plain = 0.0f;
            for (int k = 0; k < columns - shift * 8; ++k)
                plain += x[k] * w[k];
            differ += plain != laneDot(x.data(), w.data(), columns - shift * 8);
        }
        QVERIFY(differ > 0);
    }
};

QTEST_APPLESS_MAIN(LaneProductTest)
#include "tst_lane_product.moc"
