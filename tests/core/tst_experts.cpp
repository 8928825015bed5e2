// The Mixture-of-Experts core (ExpertIndex, expertSlice, ExpertAnalysis) against the tiny-moe
// fixtures: every expert of every expert tensor hashes to its manifest entry, a slice taken along
// the wrong axis does not, partial dot products over disjoint row ranges add up to the whole, and
// the similarity and router norms agree with computations written out here independently.

#include "core/gguf/Dequantize.h"
#include "core/experts/ExpertAnalysis.h"
#include "core/experts/ExpertIndex.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "Manifest.h"
#include "core/gguf/Model.h"
#include "SliceDigest.h"

#include <QCryptographicHash>
#include <QtTest>

#include <cmath>
#include <cstring>

using namespace testsupport;

namespace {

const char* const kMoeFiles[] = {"tiny-moe-F16.gguf", "tiny-moe-Q2_K.gguf", "tiny-moe-Q4_K.gguf"};

QString nameOf(const gguf::TensorInfo& tensor)
{
    return QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
}

// Every float of expert `expert`, read whole (the independent path the streaming code is checked against).
std::vector<float> dequantizeExpert(const gguf::TensorInfo& tensor, std::uint64_t expert)
{
    const auto rows = static_cast<std::uint64_t>(tensor.ne[1]);
    std::vector<float> values(static_cast<std::size_t>(rows * static_cast<std::uint64_t>(tensor.ne[0])));
    if (gguf::Status s = gguf::dequantizeRows(tensor, expert * rows, (expert + 1) * rows, values); !s)
        qFatal("%s", s.error().toString().c_str());
    return values;
}

bool near(double actual, double expected, double tolerance)
{
    return std::abs(actual - expected) <= tolerance * std::max(1.0, std::abs(expected));
}

}  // namespace

class TestExperts : public QObject {
    Q_OBJECT

private slots:
    void indexOfMoeModel_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* file : kMoeFiles)
            QTest::newRow(file) << QString::fromLatin1(file);
    }

    void indexOfMoeModel()
    {
        QFETCH(QString, file);
        const auto model = openFixtureModel(file);
        QVERIFY(model);
        const gguf::ExpertIndex index = gguf::ExpertIndex::build(*model);
        QVERIFY(index.hasExperts());
        QCOMPARE(index.expertCount(), 8u);
        QCOMPARE(index.expertsUsedPerToken(), std::optional<std::uint64_t>(2));
        QVERIFY2(index.inconsistencies().empty(), index.inconsistencies().empty() ? "" : index.inconsistencies().front().c_str());
        QCOMPARE(index.layers().size(), 2u);
        const gguf::ExpertProjection order[] = {gguf::ExpertProjection::Gate, gguf::ExpertProjection::Up, gguf::ExpertProjection::Down};
        for (std::uint32_t layer = 0; layer < 2; ++layer) {
            const gguf::ExpertLayer* entry = index.findLayer(layer);
            QVERIFY(entry);
            QCOMPARE(entry->layer, layer);
            QCOMPARE(entry->experts.size(), 3u);
            for (std::size_t p = 0; p < 3; ++p) {
                QCOMPARE(entry->experts[p].projection, order[p]);
                QCOMPARE(nameOf(*entry->experts[p].tensor),
                         QStringLiteral("blk.%1.ffn_%2_exps.weight").arg(layer).arg(QString::fromLatin1(gguf::projectionName(order[p]))));
                QCOMPARE(entry->find(order[p]), entry->experts[p].tensor);
                QCOMPARE(entry->experts[p].tensor->ne[2], 8);
            }
            QVERIFY(!entry->find(gguf::ExpertProjection::GateUp));
            QVERIFY(entry->router);
            QCOMPARE(nameOf(*entry->router), QStringLiteral("blk.%1.ffn_gate_inp.weight").arg(layer));
            QVERIFY(entry->shared.empty());
        }
        QVERIFY(!index.findLayer(2));
    }

    void indexOfDenseModel()
    {
        const auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        const gguf::ExpertIndex index = gguf::ExpertIndex::build(*model);
        QVERIFY(!index.hasExperts());
        QVERIFY(index.layers().empty());
        QCOMPARE(index.expertCount(), 0u);
        QVERIFY(index.inconsistencies().empty());
        QVERIFY(!index.findLayer(0));
        // A dense weight is not an expert tensor: slicing it as one is refused.
        const gguf::TensorInfo* dense = model->findTensor("blk.0.ffn_up.weight");
        QVERIFY(dense);
        QVERIFY(!gguf::expertSlice(*dense, 0));
    }

    // Shared experts and the biases and scales beside the experts, on llama.cpp's own layouts
    // (fixtures/llama.cpp/arch): gpt-oss (router bias, per-expert biases), glm4moe (selection
    // bias, a shared expert), gemma4 (per-expert output scale, router input scale).
    void indexSharedExpertsAndBiases_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QStringList>("shared");
        QTest::addColumn<QStringList>("biases");
        QTest::addColumn<QStringList>("perExpert");
        QTest::newRow("gpt-oss") << "gpt-oss" << QStringList{}
                                 << QStringList{"ffn_gate_inp.bias", "ffn_gate_exps.bias", "ffn_up_exps.bias", "ffn_down_exps.bias"}
                                 << QStringList{"ffn_gate_inp.bias", "ffn_gate_exps.bias", "ffn_up_exps.bias", "ffn_down_exps.bias"};
        QTest::newRow("glm4moe") << "glm4moe" << QStringList{"ffn_gate_shexp.weight", "ffn_up_shexp.weight", "ffn_down_shexp.weight"}
                                 << QStringList{"exp_probs_b.bias"} << QStringList{"exp_probs_b.bias"};
        QTest::newRow("gemma4") << "gemma4" << QStringList{} << QStringList{"ffn_gate_inp.scale", "ffn_down_exps.scale"}
                                << QStringList{"ffn_down_exps.scale"};
    }

    void indexSharedExpertsAndBiases()
    {
        QFETCH(QString, folder);
        QFETCH(QStringList, shared);
        QFETCH(QStringList, biases);
        QFETCH(QStringList, perExpert);
        const auto model = openModelAt(fixturePath(QStringLiteral("llama.cpp/arch/%1/%1-F32.gguf").arg(folder)));
        QVERIFY(model);
        const gguf::ExpertIndex index = gguf::ExpertIndex::build(*model);
        const gguf::ExpertLayer* layer = index.findLayer(1);
        QVERIFY(layer);
        const auto suffixes = [](const std::vector<const gguf::TensorInfo*>& tensors) {
            QStringList names;
            for (const gguf::TensorInfo* tensor : tensors)
                names << nameOf(*tensor).section(QLatin1Char('.'), 2);
            names.sort();
            return names;
        };
        shared.sort();
        biases.sort();
        QCOMPARE(suffixes(layer->shared), shared);
        QCOMPARE(suffixes(layer->biases), biases);
        QStringList withAxis;
        for (const gguf::TensorInfo* bias : layer->biases) {
            QVERIFY2(!gguf::expertExtraRole(bias->name).empty(), bias->name.data());
            if (gguf::expertAxisOf(*bias, index.expertCount()))
                withAxis << nameOf(*bias).section(QLatin1Char('.'), 2);
        }
        withAxis.sort();
        perExpert.sort();
        QCOMPARE(withAxis, perExpert);
        for (const gguf::TensorInfo* tensor : layer->shared)
            QVERIFY(gguf::expertExtraRole(tensor->name).find("shared expert") == 0);
    }

    void layerOfTensorName()
    {
        QCOMPARE(gguf::layerOfTensorName("blk.12.ffn_up_exps.weight"), std::optional<std::uint32_t>(12));
        QCOMPARE(gguf::layerOfTensorName("blk.0.attn_q.weight"), std::optional<std::uint32_t>(0));
        QVERIFY(!gguf::layerOfTensorName("token_embd.weight"));
        QVERIFY(!gguf::layerOfTensorName("blk.x.ffn_up_exps.weight"));
        QVERIFY(!gguf::layerOfTensorName("blk.3"));
    }

    // Every expert of every 3-D expert tensor, one data row per (file, tensor).
    void expertSlicesMatchManifest_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("tensor");
        for (const char* file : kMoeFiles) {
            const std::optional<Manifest> loaded = loadFixtureManifest(QString::fromLatin1(file));
            QVERIFY(loaded);
            const Manifest& manifest = *loaded;
            int withExperts = 0;
            for (const ManifestTensor& tensor : manifest.tensors) {
                if (tensor.experts.isEmpty())
                    continue;
                ++withExperts;
                QTest::addRow("%s %s", file, qPrintable(tensor.name)) << QString::fromLatin1(file) << tensor.name;
            }
            QVERIFY2(withExperts == 6, qPrintable(QStringLiteral("%1: expected 6 expert tensors in the manifest, found %2").arg(QString::fromLatin1(file)).arg(withExperts)));
        }
    }

    void expertSlicesMatchManifest()
    {
        QFETCH(QString, file);
        QFETCH(QString, tensor);
        const auto model = openFixtureModel(file);
        QVERIFY(model);
        const std::optional<Manifest> loaded = loadFixtureManifest(file);
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        const ManifestTensor* expected = manifest.findTensor(tensor);
        const gguf::TensorInfo* info = model->findTensor(tensor.toStdString());
        QVERIFY(expected && info);
        QCOMPARE(expected->experts.size(), 8);
        const auto rows = static_cast<std::uint64_t>(info->ne[1]);
        const auto experts = static_cast<std::uint64_t>(info->ne[2]);
        for (const ManifestExpert& entry : expected->experts) {
            auto slice = gguf::expertSlice(*info, entry.index);
            QVERIFY(slice);
            QCOMPARE(slice->shape, (std::vector<std::uint64_t>{rows, static_cast<std::uint64_t>(info->ne[0])}));
            auto digest = digestSlice(*slice);
            QVERIFY(digest);
            QCOMPARE(digest->count, rows * static_cast<std::uint64_t>(info->ne[0]));
            QCOMPARE(digest->sha256, entry.sha256);

            // The same number of rows taken as if ne[1] were the expert axis (expert e = every
            // ne[2]-th row from e): the hash must tell it apart, or the check above proves nothing.
            QCryptographicHash wrongAxis(QCryptographicHash::Sha256);
            std::vector<float> row(static_cast<std::size_t>(info->ne[0]));
            for (std::uint64_t r = 0; r < rows; ++r) {
                const std::uint64_t source = entry.index + r * experts;
                QVERIFY(gguf::dequantizeRows(*info, source, source + 1, row));
                wrongAxis.addData(QByteArrayView(reinterpret_cast<const char*>(row.data()), static_cast<qsizetype>(row.size() * sizeof(float))));
            }
            QVERIFY(wrongAxis.result().toHex() != entry.sha256);
        }
        QVERIFY(!gguf::expertSlice(*info, experts));  // one past the last expert
    }

    void expertStatisticsMatchManifest_data() { expertSlicesMatchManifest_data(); }

    void expertStatisticsMatchManifest()
    {
        QFETCH(QString, file);
        QFETCH(QString, tensor);
        const auto model = openFixtureModel(file);
        QVERIFY(model);
        const std::optional<Manifest> loaded = loadFixtureManifest(file);
        QVERIFY(loaded);
        const Manifest& manifest = *loaded;
        const gguf::TensorInfo* info = model->findTensor(tensor.toStdString());
        for (const ManifestExpert& entry : manifest.findTensor(tensor)->experts) {
            auto computed = gguf::computeExpertStatistics(*info, entry.index);
            QVERIFY(computed);
            QCOMPARE(computed->expert, entry.index);
            QVERIFY2(near(computed->statistics.mean, entry.mean, 1e-12), qPrintable(QString::number(computed->statistics.mean, 'g', 17)));
            QVERIFY2(near(computed->statistics.rms, entry.rms, 1e-12), qPrintable(QString::number(computed->statistics.rms, 'g', 17)));
            QCOMPARE(computed->statistics.nanCount, 0u);
            QCOMPARE(computed->statistics.infCount, 0u);
        }
    }

    // Dots over [0, split) plus dots over [split, rows) equal the dots over all rows, and the
    // cosine matrix equals one computed here from fully dequantized experts in double.
    void dotsOverDisjointRowRangesSumToWhole_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("split");
        QTest::newRow("Q4_K up, split 200") << QStringLiteral("tiny-moe-Q4_K.gguf") << QStringLiteral("blk.0.ffn_up_exps.weight") << 200;
        QTest::newRow("Q4_K down, split 1") << QStringLiteral("tiny-moe-Q4_K.gguf") << QStringLiteral("blk.1.ffn_down_exps.weight") << 1;
        QTest::newRow("Q2_K gate, split 511") << QStringLiteral("tiny-moe-Q2_K.gguf") << QStringLiteral("blk.1.ffn_gate_exps.weight") << 511;
        QTest::newRow("F16 up, split 256") << QStringLiteral("tiny-moe-F16.gguf") << QStringLiteral("blk.0.ffn_up_exps.weight") << 256;
    }

    void dotsOverDisjointRowRangesSumToWhole()
    {
        QFETCH(QString, file);
        QFETCH(QString, tensor);
        QFETCH(int, split);
        const auto model = openFixtureModel(file);
        QVERIFY(model);
        const gguf::TensorInfo* info = model->findTensor(tensor.toStdString());
        QVERIFY(info);
        const auto n = static_cast<std::uint64_t>(info->ne[2]);
        const auto rows = static_cast<std::uint64_t>(info->ne[1]);
        std::vector<double> whole(n * n, 0.0);
        std::vector<double> first(n * n, 0.0);
        std::vector<double> second(n * n, 0.0);
        QVERIFY(gguf::accumulateExpertDots(*info, 0, rows, whole));
        QVERIFY(gguf::accumulateExpertDots(*info, 0, static_cast<std::uint64_t>(split), first));
        QVERIFY(gguf::accumulateExpertDots(*info, static_cast<std::uint64_t>(split), rows, second));
        for (std::size_t i = 0; i < whole.size(); ++i) {
            QVERIFY(first[i] != 0.0 && second[i] != 0.0);  // both ranges really contribute
            QVERIFY2(near(first[i] + second[i], whole[i], 1e-12), qPrintable(QStringLiteral("entry %1").arg(i)));
        }
        // Added to, not overwritten: accumulating the whole again doubles it.
        std::vector<double> twice = whole;
        QVERIFY(gguf::accumulateExpertDots(*info, 0, rows, twice));
        QVERIFY(near(twice[1], 2 * whole[1], 1e-12));

        // Independent: each expert in full, dot products and cosine in double.
        std::vector<std::vector<float>> experts;
        for (std::uint64_t e = 0; e < n; ++e)
            experts.push_back(dequantizeExpert(*info, e));
        const std::vector<double> cosine = gguf::cosineFromDots(whole, n);
        auto similarity = gguf::expertCosineSimilarity(*info);
        QVERIFY(similarity);
        for (std::uint64_t i = 0; i < n; ++i) {
            for (std::uint64_t j = 0; j < n; ++j) {
                double ab = 0, aa = 0, bb = 0;
                for (std::size_t k = 0; k < experts[i].size(); ++k) {
                    ab += double(experts[i][k]) * double(experts[j][k]);
                    aa += double(experts[i][k]) * double(experts[i][k]);
                    bb += double(experts[j][k]) * double(experts[j][k]);
                }
                const double expected = ab / std::sqrt(aa * bb);
                QVERIFY2(std::abs(cosine[i * n + j] - expected) <= 1e-9, qPrintable(QStringLiteral("(%1, %2)").arg(i).arg(j)));
                QVERIFY(std::abs((*similarity)[i * n + j] - expected) <= 1e-9);
            }
            QVERIFY(std::abs(cosine[i * n + i] - 1.0) <= 1e-12);
        }
    }

    void dotsRejectMisfitRequests()
    {
        const auto model = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(model);
        const gguf::TensorInfo* info = model->findTensor("blk.0.ffn_up_exps.weight");
        std::vector<double> dots(64, 0.0);
        QVERIFY(!gguf::accumulateExpertDots(*info, 0, 513, dots));  // past the expert's 512 rows
        QVERIFY(!gguf::accumulateExpertDots(*info, 10, 5, dots));
        std::vector<double> wrongSize(63, 0.0);
        QVERIFY(!gguf::accumulateExpertDots(*info, 0, 1, wrongSize));
        const std::atomic<bool> cancelled{true};
        QVERIFY(!gguf::accumulateExpertDots(*info, 0, 512, dots, &cancelled));
        QVERIFY(!gguf::computeExpertStatistics(*info, 8));
    }

    void routerRowNorms_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* file : kMoeFiles)
            QTest::newRow(file) << QString::fromLatin1(file);
    }

    // The routers are F32 in every file: read their floats straight from the mapping.
    void routerRowNorms()
    {
        QFETCH(QString, file);
        const auto model = openFixtureModel(file);
        QVERIFY(model);
        const gguf::ExpertIndex index = gguf::ExpertIndex::build(*model);
        for (const gguf::ExpertLayer& layer : index.layers()) {
            const gguf::TensorInfo& router = *layer.router;
            QCOMPARE(router.typeId, gguf::typeIdValue(gguf::GgmlTypeId::F32));
            QCOMPARE(router.ne[0], 256);
            QCOMPARE(router.ne[1], 8);
            auto norms = gguf::routerRowNorms(router);
            QVERIFY(norms);
            QCOMPARE(norms->size(), 8u);
            for (std::int64_t e = 0; e < router.ne[1]; ++e) {
                double sum = 0;
                for (std::int64_t k = 0; k < router.ne[0]; ++k) {
                    float value;
                    std::memcpy(&value, router.data + (e * router.ne[0] + k) * sizeof(float), sizeof value);
                    sum += double(value) * double(value);
                }
                QVERIFY(sum > 0);
                QVERIFY(near((*norms)[static_cast<std::size_t>(e)], std::sqrt(sum), 1e-12));
            }
        }
        // Not a router: a 3-D tensor is refused.
        QVERIFY(!gguf::routerRowNorms(*index.layers().front().experts.front().tensor));
    }
};

QTEST_GUILESS_MAIN(TestExperts)
#include "tst_experts.moc"
