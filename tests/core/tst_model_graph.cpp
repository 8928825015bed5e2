// The model graph (core/graph): the steps of a block as the forward pass runs them, on llama.cpp's
// tiny models of a dense, an MoE and two hybrid architectures, the name-grouped graph of an
// architecture the pass does not run, collapsing per layer, and the layout, up to the
// Qwen3-235B layout (94 layers x 128 experts) expanded whole.

#include "BigLayouts.h"
#include "OpenFixture.h"
#include "core/graph/GraphLayout.h"
#include "core/forward/BlockDescription.h"
#include "core/graph/ModelGraph.h"

#include <QDir>
#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace testsupport;

namespace {

std::shared_ptr<const gguf::Model> openArch(const QString& arch)
{
    return openFixtureModel(QStringLiteral("llama.cpp/arch/%1/%1-Q4_K_M.gguf").arg(arch));
}

// The labels of layer `layer`'s nodes, in graph order, joined by spaces.
QString layerLabels(const gguf::ModelGraph& graph, int layer)
{
    QStringList labels;
    for (const auto& node : graph.nodes)
        if (node.layer == layer)
            labels << QString::fromStdString(node.label);
    return labels.join(QLatin1Char(' '));
}

const gguf::GraphNode* nodeLabelled(const gguf::ModelGraph& graph, int layer, const std::string& label)
{
    for (const auto& node : graph.nodes)
        if (node.layer == layer && node.label == label)
            return &node;
    return nullptr;
}

QStringList tensorNames(const gguf::Model& model, const gguf::GraphNode& node)
{
    QStringList names;
    for (int index : node.tensors)
        names << QString::fromUtf8(model.tensors()[static_cast<std::size_t>(index)].name.data(),
                                   static_cast<qsizetype>(model.tensors()[static_cast<std::size_t>(index)].name.size()));
    return names;
}

// Every edge forward, every tensor read, a layer's nodes read only its tensors, each blk.N tensor
// is read by one node.
void checkWellFormed(const gguf::Model& model, const gguf::ModelGraph& graph)
{
    for (const auto& edge : graph.edges) {
        QVERIFY2(edge.from >= 0 && edge.from < edge.to && edge.to < static_cast<int>(graph.nodes.size()),
                 qPrintable(QStringLiteral("edge %1 -> %2").arg(edge.from).arg(edge.to)));
    }
    std::vector<int> readers(model.tensors().size(), 0);
    for (const auto& node : graph.nodes)
        for (int index : node.tensors) {
            const std::string_view name = model.tensors()[static_cast<std::size_t>(index)].name;
            if (node.layer >= 0 && name.starts_with("blk.")) {
                const std::string prefix = "blk." + std::to_string(node.layer) + ".";
                QVERIFY2(name.starts_with(prefix), qPrintable(QString::fromStdString(node.label + " reads " + std::string(name))));
            }
            ++readers[static_cast<std::size_t>(index)];
        }
    for (std::size_t i = 0; i < readers.size(); ++i) {
        const std::string_view name = model.tensors()[i].name;
        QVERIFY2(readers[i] >= 1, qPrintable(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))));
        if (name.starts_with("blk."))
            QCOMPARE(readers[i], 1);
    }
}

}  // namespace

class TestModelGraph : public QObject {
    Q_OBJECT

private slots:
    // Layer 0 of each architecture, step by step, as its forward pass runs it.
    void blockSteps_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<int>("layer");
        QTest::addColumn<QString>("labels");
        QTest::newRow("llama") << "llama" << 0
                               << "attn_norm attn_q attn_k attn_v RoPE attention attn_output + ffn_norm ffn_gate ffn_up SwiGLU ffn_down +";
        QTest::newRow("qwen3moe") << "qwen3moe" << 1
                                  << "attn_norm attn_q attn_k attn_v attn_q_norm attn_k_norm RoPE attention attn_output + ffn_norm router experts +";
        QTest::newRow("qwen35 recurrent") << "qwen35" << 0
                                          << "attn_norm attn_qkv attn_gate ssm_alpha / beta conv1d delta rule ssm_norm ssm_out + "
                                             "post_attention_norm ffn_gate ffn_up SwiGLU ffn_down +";
        QTest::newRow("qwen35 attention") << "qwen35" << 1
                                          << "attn_norm attn_q attn_k attn_v attn_q_norm attn_k_norm RoPE attention attn_output + "
                                             "post_attention_norm ffn_gate ffn_up SwiGLU ffn_down +";
        QTest::newRow("lfm2 short conv") << "lfm2" << 0 << "attn_norm in_proj short conv out_proj + ffn_norm ffn_gate ffn_up SwiGLU ffn_down +";
        QTest::newRow("gemma2 post-norms") << "gemma2" << 0
                                           << "attn_norm attn_q attn_k attn_v RoPE attention attn_output post_attention_norm + "
                                              "ffn_norm ffn_gate ffn_up GeGLU ffn_down post_ffw_norm +";
        QTest::newRow("phi3 fused") << "phi3" << 0 << "attn_norm attn_qkv RoPE attention attn_output + ffn_norm ffn_up SwiGLU ffn_down +";
        QTest::newRow("deepseek2 latent") << "deepseek2" << 1
                                          << "attn_norm attn_q_a attn_q_a_norm attn_q_b attn_kv_a_mqa attn_kv_a_norm attn_k_b attn_v_b "
                                             "RoPE attention attn_output + ffn_norm router experts shared expert sum +";
    }

    void blockSteps()
    {
        QFETCH(QString, arch);
        QFETCH(int, layer);
        QFETCH(QString, labels);
        const auto model = openArch(arch);
        QVERIFY(model);
        const gguf::ModelGraph graph = gguf::buildModelGraph(*model);
        QVERIFY(graph.fromBlockDescription);
        QCOMPARE(layerLabels(graph, layer), labels);
        checkWellFormed(*model, graph);
    }

    // Every architecture of the fixtures, run by the pass or not: edges forward, every tensor read.
    void everyArchitectureWellFormed_data()
    {
        QTest::addColumn<QString>("file");
        const QDir arch(fixturePath(QStringLiteral("llama.cpp/arch")));
        for (const QString& name : arch.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QStringList files = QDir(arch.filePath(name)).entryList({QStringLiteral("*.gguf")}, QDir::Files, QDir::Name);
            if (!files.isEmpty())
                QTest::newRow(qPrintable(name)) << arch.filePath(name + QLatin1Char('/') + files.front());
        }
    }

    void everyArchitectureWellFormed()
    {
        QFETCH(QString, file);
        const auto model = openModelAt(file);
        QVERIFY(model);
        const gguf::ModelGraph graph = gguf::buildModelGraph(*model);
        QCOMPARE(graph.fromBlockDescription, gguf::findBlockDescription(model->summary().architecture) != nullptr);
        QVERIFY(!graph.layers.empty());
        checkWellFormed(*model, graph);
        checkWellFormed(*model, gguf::collapseLayers(graph, {}));
    }

    // The tensors a node reads, and the edges that matter: the residual skip, the router feeding the experts.
    void nodeTensorsAndEdges()
    {
        const auto model = openArch(QStringLiteral("qwen3moe"));
        QVERIFY(model);
        const gguf::ModelGraph graph = gguf::buildModelGraph(*model);
        const gguf::GraphNode* experts = nodeLabelled(graph, 0, "experts");
        QVERIFY(experts);
        QCOMPARE(tensorNames(*model, *experts),
                 QStringList({"blk.0.ffn_down_exps.weight", "blk.0.ffn_gate_exps.weight", "blk.0.ffn_up_exps.weight"}));
        QCOMPARE(tensorNames(*model, *nodeLabelled(graph, 0, "router")), QStringList{"blk.0.ffn_gate_inp.weight"});
        const auto indexOf = [&](const gguf::GraphNode* node) { return static_cast<int>(node - graph.nodes.data()); };
        const auto hasEdge = [&](int from, int to) {
            return std::find(graph.edges.begin(), graph.edges.end(), gguf::GraphEdge{from, to}) != graph.edges.end();
        };
        QVERIFY(hasEdge(indexOf(nodeLabelled(graph, 0, "router")), indexOf(experts)));
        // The second residual add takes the first one (the skip) and the experts.
        std::vector<int> adds;
        for (const auto& node : graph.nodes)
            if (node.layer == 0 && node.kind == gguf::GraphNodeKind::Add)
                adds.push_back(indexOf(&node));
        QCOMPARE(adds.size(), std::size_t(2));
        QVERIFY(hasEdge(adds[0], adds[1]));
        QVERIFY(hasEdge(indexOf(experts), adds[1]));
        // Outside the blocks: the embedding first, the final norm and the head last.
        QCOMPARE(QString::fromStdString(graph.nodes.front().label), QStringLiteral("token_embd"));
        QCOMPARE(QString::fromStdString(graph.nodes.back().label), QStringLiteral("output"));
        QCOMPARE(tensorNames(*model, graph.nodes.back()), QStringList{"output.weight"});
        QCOMPARE(graph.layers, std::vector<int>({0, 1}));
    }

    void ropeFreqsAndTiedOutput()
    {
        const auto llama = openArch(QStringLiteral("llama"));
        QVERIFY(llama);
        const gguf::ModelGraph graph = gguf::buildModelGraph(*llama);
        QCOMPARE(tensorNames(*llama, *nodeLabelled(graph, 2, "RoPE")), QStringList{"rope_freqs.weight"});
        // lfm2: no output.weight (the head is the embedding), and the final norm is token_embd_norm.
        const auto lfm2 = openArch(QStringLiteral("lfm2"));
        QVERIFY(lfm2);
        const gguf::ModelGraph tied = gguf::buildModelGraph(*lfm2);
        QCOMPARE(QString::fromStdString(tied.nodes.back().label), QStringLiteral("output (tied to token_embd)"));
        QCOMPARE(tensorNames(*lfm2, tied.nodes.back()), QStringList{"token_embd.weight"});
        QCOMPARE(QString::fromStdString(tied.nodes[tied.nodes.size() - 2].label), QStringLiteral("token_embd_norm"));
        checkWellFormed(*lfm2, tied);
    }

    // An architecture the pass does not run: one node per name group of each block, chained.
    void nameGroupedFallback()
    {
        const auto model = openArch(QStringLiteral("granitehybrid"));
        QVERIFY(model);
        const gguf::ModelGraph graph = gguf::buildModelGraph(*model);
        QVERIFY(!graph.fromBlockDescription);
        QCOMPARE(graph.layers.size(), std::size_t(6));
        const QString labels = layerLabels(graph, 0);
        QVERIFY2(labels.contains(QStringLiteral("attn_*")) || labels.contains(QStringLiteral("ssm_*")), qPrintable(labels));
        QVERIFY2(labels.contains(QStringLiteral("ffn_*")), qPrintable(labels));
        checkWellFormed(*model, graph);
    }

    void collapsedPerLayer()
    {
        const auto model = openArch(QStringLiteral("qwen3moe"));
        QVERIFY(model);
        const gguf::ModelGraph graph = gguf::buildModelGraph(*model);
        const gguf::ModelGraph collapsed = gguf::collapseLayers(graph, {});
        // token_embd, blk.0, blk.1, output_norm, output.
        QStringList labels;
        for (const auto& node : collapsed.nodes)
            labels << QString::fromStdString(node.label);
        QCOMPARE(labels, QStringList({"token_embd", "blk.0", "blk.1", "output_norm", "output"}));
        QCOMPARE(QString::fromStdString(collapsed.nodes[1].detail), QStringLiteral("attention, MoE"));
        QCOMPARE(collapsed.nodes[1].tensors.size(), std::size_t(12));
        QCOMPARE(collapsed.edges, std::vector<gguf::GraphEdge>({{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
        checkWellFormed(*model, collapsed);
        // Layer 1 expanded: its steps are back, blk.0 stays one node feeding the first of them.
        const gguf::ModelGraph one = gguf::collapseLayers(graph, {1});
        QCOMPARE(one.nodes.size(), std::size_t(4 + 14));
        QCOMPARE(QString::fromStdString(one.nodes[2].label), QStringLiteral("attn_norm"));
        QVERIFY(std::find(one.edges.begin(), one.edges.end(), gguf::GraphEdge{1, 2}) != one.edges.end());
        checkWellFormed(*model, one);
    }

    // Every edge goes down at least one row, no two nodes overlap, on the 94-layer layout, whole.
    void layoutOfBigModel()
    {
        const auto model = openLayout(bigLayout("Qwen3-235B-A22B"));
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        QElapsedTimer timer;
        timer.start();
        const gguf::ModelGraph graph = gguf::buildModelGraph(**model);
        const qint64 built = timer.nsecsElapsed();
        QCOMPARE(graph.layers.size(), std::size_t(94));
        checkWellFormed(**model, graph);
        std::set<int> all(graph.layers.begin(), graph.layers.end());
        timer.restart();
        const gguf::ModelGraph expanded = gguf::collapseLayers(graph, all);
        const gguf::GraphLayout layout = gguf::layoutGraph(expanded);
        qInfo("%zu tensors, 94 layers expanded: %zu nodes, %zu edges, %d rows; built in %.2f ms, expanded and laid out in %.2f ms",
              (*model)->tensors().size(), expanded.nodes.size(), expanded.edges.size(), layout.rowCount, built / 1e6,
              timer.nsecsElapsed() / 1e6);
        QCOMPARE(expanded.nodes.size(), graph.nodes.size());
        for (const auto& edge : expanded.edges)
            QVERIFY(layout.places[static_cast<std::size_t>(edge.from)].row < layout.places[static_cast<std::size_t>(edge.to)].row);
        std::set<std::pair<double, double>> corners;
        for (const auto& place : layout.places)
            QVERIFY(corners.insert({place.x, place.y}).second);
        const gguf::ModelGraph collapsed = gguf::collapseLayers(graph, {});
        QCOMPARE(collapsed.nodes.size(), std::size_t(94 + 3));
        QCOMPARE(gguf::layoutGraph(collapsed).rowCount, 97);
    }

    // A layer number past int is a tensor outside the blocks, not a layer (nor an allocation).
    void hostileLayerNumber()
    {
        ModelLayout layout;
        layout.name = "hostile";
        layout.metadata.emplace_back("general.architecture", gguf::EncodedValue::string("llama"));
        layout.tensors = {{"blk.99999999999.attn_q.weight", 0, {32, 32}}, {"blk.7.attn_q.weight", 0, {32, 32}}};
        const auto model = openLayout(layout);
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        const gguf::ModelGraph graph = gguf::buildModelGraph(**model);
        QCOMPARE(graph.layers, std::vector<int>({7}));
        QCOMPARE(QString::fromStdString(graph.nodes.back().label), QStringLiteral("other tensors"));
        QCOMPARE(tensorNames(**model, graph.nodes.back()), QStringList{"blk.99999999999.attn_q.weight"});
        checkWellFormed(**model, graph);
    }
};

QTEST_GUILESS_MAIN(TestModelGraph)
#include "tst_model_graph.moc"
