// ImatrixCollector keeps llama-imatrix's rules (collect_imatrix, llama.cpp 80fb11a): which
// products count, the 16-row floor per ubatch, each expert summed slot by slot within each
// ubatch (float sums whose order shows in the last bits), failures named; and computeImatrix
// stops when cancelled.

#include "OpenFixture.h"
#include "core/forward/ForwardPass.h"
#include "core/imatrix/ImatrixCollector.h"
#include "core/imatrix/ImatrixComputation.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

using gguf::ImatrixCollector;

class TestImatrixCollector : public QObject {
    Q_OBJECT

private slots:
    // Dense products: layers' weights always, output.weight only when asked, nothing else.
    void collectsWhatLlamaImatrixCollects_data()
    {
        QTest::addColumn<QString>("weight");
        QTest::addColumn<bool>("processOutput");
        QTest::addColumn<bool>("collected");
        QTest::newRow("a layer's weight") << "blk.3.attn_q.weight" << false << true;
        QTest::newRow("output without --process-output") << "output.weight" << false << false;
        QTest::newRow("output with --process-output") << "output.weight" << true << true;
        QTest::newRow("tied output (token_embd)") << "token_embd.weight" << true << false;
        QTest::newRow("per-layer projection outside the layers") << "per_layer_model_proj.weight" << true << false;
    }

    void collectsWhatLlamaImatrixCollects()
    {
        QFETCH(QString, weight);
        QFETCH(bool, processOutput);
        QFETCH(bool, collected);
        ImatrixCollector collector(processOutput);
        const std::vector<float> x(16 * 4, 1.0f);
        collector.denseProduct(weight.toStdString(), x.data(), 16, 4);
        QCOMPARE(collector.sums().entries.count(weight.toStdString()) == 1, collected);
    }

    // llama-imatrix skips a product of fewer than 16 rows; a chunk longer than llama.cpp's ubatch
    // is several products, each judged alone (40 rows in ubatches of 32: 32 counted, 8 not).
    void skipsSmallProductsPerUbatch()
    {
        ImatrixCollector collector(false, 32);
        const std::vector<float> x(40 * 2, 2.0f);
        collector.denseProduct("blk.0.ffn_down.weight", x.data(), 15, 2);
        collector.denseProduct("blk.0.ffn_down.weight", x.data(), 40, 2);
        const gguf::ImatrixSumsEntry& e = collector.sums().entries.at("blk.0.ffn_down.weight");
        QCOMPARE(e.counts, std::vector<std::int64_t>{32});
        QCOMPARE(e.values, (std::vector<float>{128.0f, 128.0f}));
        QVERIFY(collector.status().ok());
    }

    // A 3-D weight's per-head products (latent attention's attn_k_b): each head's sums its own row,
    // one count for the weight that takes the tokens once per product, not once per head (as
    // llama-imatrix adds nrows / n_mat), and the 16-row floor per ubatch as for a dense product.
    void stackedProductsSumPerMatrixCountOnce()
    {
        ImatrixCollector collector(false, 32);
        const std::vector<float> x(40 * 2, 3.0f);
        for (std::int64_t head = 0; head < 3; ++head) {
            std::vector<float> scaled(x);
            for (float& v : scaled)
                v *= static_cast<float>(head + 1);
            collector.stackedProduct("blk.0.attn_k_b.weight", head, 3, scaled.data(), 40, 2);
        }
        collector.stackedProduct("blk.0.attn_k_b.weight", 0, 3, x.data(), 15, 2);  // under 16 rows: skipped
        const gguf::ImatrixSumsEntry& e = collector.sums().entries.at("blk.0.attn_k_b.weight");
        QCOMPARE(e.counts, std::vector<std::int64_t>{32});
        QCOMPARE(e.values, (std::vector<float>{288.0f, 288.0f, 1152.0f, 1152.0f, 2592.0f, 2592.0f}));
        QVERIFY(collector.status().ok());

        collector.stackedProduct("blk.0.attn_k_b.weight", 0, 4, x.data(), 16, 2);
        QVERIFY2(collector.status().error().message.find("'blk.0.attn_k_b.weight' is multiplied with 2 columns, 4 matrices") != std::string::npos,
                 collector.status().error().message.c_str());
    }

    // One expert's rows arrive in token order: t0 and t1 chose it second (x^2 = 4), t2 first
    // (x^2 = 1e8). ggml sums slot 0's rows before slot 1's: 1e8 + 4 rounds back to 1e8 (a tie,
    // to even), twice; in token order 4 + 4 + 1e8 is 100000008. With ubatches of 2 rows, t2 is in
    // the second ubatch and comes last again.
    void sumsExpertsSlotBySlotPerUbatch_data()
    {
        QTest::addColumn<int>("ubatch");
        QTest::addColumn<float>("sum");
        QTest::newRow("one ubatch") << 512 << 1e8f;
        QTest::newRow("ubatches of 2 rows") << 2 << 100000008.0f;
    }

    void sumsExpertsSlotBySlotPerUbatch()
    {
        QFETCH(int, ubatch);
        QFETCH(float, sum);
        ImatrixCollector collector(false, ubatch);
        const std::int64_t used = 2;
        const std::vector<std::int64_t> choices{0 * used + 1, 1 * used + 1, 2 * used + 0};
        const std::vector<float> x{2.0f, 2.0f, 1e4f};
        collector.expertProduct("blk.0.ffn_up_exps.weight", 3, 4, x.data(), choices, used, 1);
        const gguf::ImatrixSumsEntry& e = collector.sums().entries.at("blk.0.ffn_up_exps.weight");
        QCOMPARE(e.counts, (std::vector<std::int64_t>{0, 0, 0, 3}));
        QCOMPARE(e.values[3], sum);
        QCOMPARE(e.values[0], 0.0f);
    }

    // llama-imatrix exits on a non-finite sum or a matrix seen with two shapes: an error naming it.
    void failuresNameTheTensor()
    {
        ImatrixCollector collector;
        std::vector<float> x(16, 1.0f);
        x[5] = std::numeric_limits<float>::infinity();
        collector.denseProduct("blk.1.attn_v.weight", x.data(), 16, 1);
        QVERIFY(!collector.status().ok());
        QVERIFY2(collector.status().error().message.find("non-finite values in the importance of blk.1.attn_v.weight") != std::string::npos,
                 collector.status().error().message.c_str());

        ImatrixCollector shapes;
        const std::vector<float> y(32, 1.0f);
        shapes.denseProduct("blk.0.attn_q.weight", y.data(), 16, 2);
        shapes.denseProduct("blk.0.attn_q.weight", y.data(), 16, 1);
        QVERIFY(!shapes.status().ok());
        QVERIFY2(shapes.status().error().message.find("'blk.0.attn_q.weight' is multiplied with 1 columns") != std::string::npos,
                 shapes.status().error().message.c_str());
    }

    void unvisitedExpertsAreListed()
    {
        gguf::ImatrixSums sums;
        sums.entries["blk.0.ffn_down_exps.weight"] = {std::vector<float>(6, 1.0f), {5, 0, 2}};
        sums.entries["blk.0.attn_q.weight"] = {std::vector<float>(2, 1.0f), {0}};  // dense: not an expert
        const auto none = gguf::underRoutedExperts(sums, 1);
        QCOMPARE(none.size(), std::size_t{1});
        QCOMPARE(none[0].expert, std::int64_t{1});
        QCOMPARE(gguf::underRoutedExperts(sums, 3).size(), std::size_t{2});
    }

    // A run cancelled before it starts stops at once with the pass's "cancelled".
    void cancels()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        std::atomic<bool> cancel{true};
        gguf::ImatrixRunOptions options;
        options.chunkSize = 16;
        options.cancel = &cancel;
        const std::vector<std::int32_t> tokens(64, 1);
        const auto run = gguf::computeImatrix(*model, tokens, options);
        QVERIFY(!run.ok());
        QCOMPARE(QString::fromStdString(run.error().message), QString(gguf::kForwardCancelled));
    }
};

QTEST_GUILESS_MAIN(TestImatrixCollector)
#include "tst_imatrix_collector.moc"
