// The per-tensor figure sets the Graph page colours by (ui/session/TensorFigures.h): a real
// comparison's columns, each given to the file it measured (a simulated one to the reference); a
// scan's probes, one set per type; the store replacing a set of the same label and keeping
// models apart; and the figure of a graph node over its tensors.

#include "OpenFixture.h"
#include "core/compare/ModelComparison.h"
#include "core/graph/ModelGraph.h"
#include "core/sensitivity/SensitivityScan.h"
#include "core/types/GgmlType.h"
#include "ui/session/GraphNodeFigures.h"
#include "ui/session/TensorFigureStore.h"

#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace testsupport;

class TestSessionTensorFigures : public QObject {
    Q_OBJECT

private slots:
    void comparisonColumns()
    {
        const auto reference = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        const auto quantized = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(reference && quantized);
        gguf::ComparisonOptions options;
        options.simulatedTypes = {gguf::typeIdValue(gguf::GgmlTypeId::Q8_0)};
        auto comparison = gguf::ModelComparison::create({reference, quantized}, options);
        QVERIFY(comparison);
        auto results = gguf::runComparison(*comparison);
        QVERIFY(results);
        const std::vector<TensorFigureSet> sets = weightErrorFigures(*comparison, *results);
        QCOMPARE(sets.size(), std::size_t(2));
        QCOMPARE(sets[0].modelPath, QString::fromStdString(quantized->primary().path()));
        QCOMPARE(sets[1].modelPath, QString::fromStdString(reference->primary().path()));
        QVERIFY2(sets[0].label.contains(QStringLiteral("tiny-moe-Q4_K.gguf vs tiny-moe-F16.gguf")), qPrintable(sets[0].label));
        QCOMPARE(sets[0].kind, TensorFigureKind::WeightError);
        std::size_t checked = 0;
        for (std::size_t r = 0; r < comparison->rows().size(); ++r) {
            const std::string name(comparison->rows()[r].reference->name);
            for (std::size_t c = 0; c < 2; ++c) {
                const auto& cell = results->cells[r][c];
                if (!cell || !std::isfinite(cell->relativeRmse)) {
                    QVERIFY(!sets[c].values.contains(name));
                    continue;
                }
                QCOMPARE(sets[c].values.at(name), cell->relativeRmse);
                ++checked;
            }
        }
        QVERIFY(checked > 20);
        QVERIFY(sets[0].values.at("blk.0.attn_q.weight") > sets[1].values.at("blk.0.attn_q.weight"));  // Q4_K worse than Q8_0
    }

    void scanProbesByType()
    {
        gguf::ScanRecord record;
        const std::uint32_t q2 = gguf::typeIdValue(gguf::GgmlTypeId::Q2_K), q4 = gguf::typeIdValue(gguf::GgmlTypeId::Q4_K);
        record.identity.types = {q2, q4};
        record.groups.resize(2);
        record.groups[0].tensor = "a";
        record.groups[1].tensor = "b";
        record.probes = {{0, q2}, {0, q4}, {1, q2}, {1, q4}};
        const auto kld = [](double value) {
            gguf::ProbeFigures figures;
            figures.meanKld = value;
            return std::optional<gguf::ProbeFigures>(figures);
        };
        record.figures = {kld(0.5), kld(0.1), std::nullopt, kld(0.2)};
        const std::vector<TensorFigureSet> sets = scanFigures(QStringLiteral("/m.gguf"), record);
        QCOMPARE(sets.size(), std::size_t(2));
        QCOMPARE(sets[0].label, QStringLiteral("Scan: mean KLD with the tensor at q2_K"));
        QCOMPARE(sets[0].values, (std::unordered_map<std::string, double>{{"a", 0.5}}));
        QCOMPARE(sets[1].values, (std::unordered_map<std::string, double>{{"a", 0.1}, {"b", 0.2}}));
        QCOMPARE(sets[1].modelPath, QStringLiteral("/m.gguf"));
    }

    void storeReplacesByLabel()
    {
        TensorFigureStore& store = TensorFigureStore::instance();
        store.clear();
        QSignalSpy changed(&store, &TensorFigureStore::setsChanged);
        store.publish(TensorFigureSet{QStringLiteral("/a.gguf"), TensorFigureKind::WeightError, QStringLiteral("one"), {{"x", 1.0}}});
        store.publish(TensorFigureSet{QStringLiteral("/b.gguf"), TensorFigureKind::WeightError, QStringLiteral("one"), {{"x", 2.0}}});
        store.publish(TensorFigureSet{QStringLiteral("/a.gguf"), TensorFigureKind::ScanSensitivity, QStringLiteral("two"), {{"x", 3.0}}});
        store.publish(TensorFigureSet{QStringLiteral("/a.gguf"), TensorFigureKind::WeightError, QStringLiteral("one"), {{"x", 4.0}}});
        QCOMPARE(changed.count(), 4);
        QCOMPARE(changed.last().at(0).toString(), QStringLiteral("/a.gguf"));
        const auto sets = store.setsFor(QStringLiteral("/a.gguf"));
        QCOMPARE(sets.size(), std::size_t(2));
        QCOMPARE(sets[0]->label, QStringLiteral("one"));
        QCOMPARE(sets[0]->values.at("x"), 4.0);
        QCOMPARE(sets[1]->label, QStringLiteral("two"));
        QCOMPARE(store.setsFor(QStringLiteral("/b.gguf")).size(), std::size_t(1));
        store.clear();
    }

    // A block's bits per weight is over all its elements; its measured figure its worst tensor's.
    void nodeFiguresOverTensors()
    {
        const auto model = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(model);
        const gguf::ModelGraph graph = gguf::collapseLayers(gguf::buildModelGraph(*model), {});
        QCOMPARE(QString::fromStdString(graph.nodes[1].label), QStringLiteral("blk.0"));
        double bits = 0, elements = 0;
        TensorFigureSet set;
        double worst = 0;
        for (const auto& tensor : model->tensors())
            if (tensor.name.starts_with("blk.0.")) {
                bits += 8.0 * static_cast<double>(tensor.nbytes);
                elements += static_cast<double>(tensor.elementCount());
                set.values[std::string(tensor.name)] = static_cast<double>(tensor.nbytes);
                worst = std::max(worst, static_cast<double>(tensor.nbytes));
            }
        const NodeFigures bpw = nodeBitsPerWeight(*model, graph);
        QCOMPARE(bpw.values[1], bits / elements);
        QCOMPARE(bpw.maximum, 32.0);  // output_norm, F32
        const NodeFigures measured = nodeFigures(*model, graph, set);
        QCOMPARE(measured.values[1], worst);
        QVERIFY(std::isnan(measured.values[0]));  // token_embd: none
        QCOMPARE(measured.minimum, worst);
        QCOMPARE(measured.maximum, worst);
        const std::vector<int> types = nodeTypes(*model, graph);
        QCOMPARE(types[1], static_cast<int>(model->findTensor("blk.0.ffn_up_exps.weight")->typeId));
    }
};

QTEST_GUILESS_MAIN(TestSessionTensorFigures)
#include "tst_session_tensor_figures.moc"
