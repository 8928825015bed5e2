// The Graph page driven offscreen on the tiny-moe fixture (a Mixtral-style llama): the collapsed
// graph's nodes and labels, a block expanded by a click, node colours under the type and under a
// known per-tensor figure published to the TensorFigureStore (and the figures an importance
// matrix page publishes), a step clicked opening its tensor on the Tensors page, the dark theme.
// The screenshot goes to docs/screenshots/graph.png.

#include "BigLayouts.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "core/compare/ModelComparison.h"
#include "ui/common/QuantTypeColour.h"
#include "ui/graph/GraphPage.h"
#include "ui/imatrix/ImatrixPage.h"
#include "ui/session/LoadedImatrix.h"
#include "ui/session/TensorFigureStore.h"
#include "ui/shell/ModelPage.h"
#include "ui/tensor/TensorBrowser.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QStandardPaths>
#include <QTabWidget>
#include <QtTest>

using namespace testsupport;

namespace {

const QString kMoe = QStringLiteral("tiny-moe-Q4_K.gguf");

QStringList labelsOf(const GraphPage& page)
{
    QStringList labels;
    for (int i = 0; i < page.nodeCount(); ++i)
        labels << page.nodeLabel(i);
    return labels;
}

int nodeOf(const GraphPage& page, const QString& label)
{
    for (int i = 0; i < page.nodeCount(); ++i)
        if (page.nodeLabel(i) == label)
            return i;
    return -1;
}

void clickNode(GraphPage& page, int node)
{
    page.view()->centerOn(page.nodeCentre(node));
    const QPoint at = page.view()->mapFromScene(page.nodeCentre(node));
    QVERIFY(page.view()->viewport()->rect().contains(at));
    QTest::mouseClick(page.view()->viewport(), Qt::LeftButton, {}, at);
}

int tensorIndex(const gguf::Model& model, const char* name)
{
    return static_cast<int>(model.findTensor(name) - model.tensors().data());
}

}  // namespace

class TestGuiGraph : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { TensorFigureStore::instance().clear(); }

    void collapsedGraphAndTypeColours()
    {
        const auto model = openFixtureModel(kMoe);
        QVERIFY(model);
        ModelPage modelPage(model);
        auto* page = modelPage.findChild<GraphPage*>();
        QVERIFY(page);
        modelPage.pages()->setCurrentWidget(page);
        modelPage.resize(1100, 800);
        modelPage.show();
        QVERIFY(QTest::qWaitForWindowExposed(&modelPage));
        QCOMPARE(labelsOf(*page), QStringList({"token_embd", "blk.0", "blk.1", "output_norm", "output"}));
        QCOMPARE(QString::fromStdString(page->shownGraph().nodes[1].detail), QStringLiteral("attention, MoE"));
        // By type (the default): a node has its largest tensor's colour.
        QCOMPARE(page->colourChoice()->currentIndex(), 0);
        QCOMPARE(page->nodeColour(nodeOf(*page, "output")), quantTypeColour(model->findTensor("output.weight")->typeId));
        QCOMPARE(page->nodeColour(nodeOf(*page, "blk.0")), quantTypeColour(model->findTensor("blk.0.ffn_up_exps.weight")->typeId));
        QCOMPARE(page->nodeColour(nodeOf(*page, "output_norm")), quantTypeColour(model->findTensor("output_norm.weight")->typeId));
    }

    // A figure set published for this model appears in the combo at once; blk.1's tensors at 4,
    // blk.0's at 1 (the output's at 2): the ends of the scale, and no figure for token_embd.
    void colourByPublishedFigure()
    {
        const auto model = openFixtureModel(kMoe);
        QVERIFY(model);
        GraphPage page(model);
        page.resize(900, 700);
        page.show();
        QCOMPARE(page.colourChoice()->count(), 2);
        TensorFigureSet set;
        set.modelPath = QString::fromStdString(model->primary().path());
        set.kind = TensorFigureKind::WeightError;
        set.label = QStringLiteral("Weight error: a known figure");
        for (const auto& tensor : model->tensors()) {
            const std::string name(tensor.name);
            if (name.starts_with("blk.0."))
                set.values[name] = 1.0;
            else if (name.starts_with("blk.1."))
                set.values[name] = 4.0;
        }
        set.values["blk.1.attn_q.weight"] = 3.0;  // a block shows its worst tensor's figure
        set.values["output.weight"] = 2.0;
        TensorFigureSet other = set;
        other.modelPath = QStringLiteral("/elsewhere/another.gguf");
        other.label = QStringLiteral("Weight error: of another model");
        TensorFigureStore::instance().publish(std::move(other));
        QCOMPARE(page.colourChoice()->count(), 2);
        TensorFigureStore::instance().publish(std::move(set));
        QCOMPARE(page.colourChoice()->count(), 3);
        page.colourChoice()->setCurrentIndex(2);
        QCOMPARE(page.nodeColour(nodeOf(page, "blk.1")), GraphPage::scaleColour(4.0, 1.0, 4.0, false));
        QCOMPARE(page.nodeColour(nodeOf(page, "blk.0")), GraphPage::scaleColour(1.0, 1.0, 4.0, false));
        QCOMPARE(page.nodeColour(nodeOf(page, "output")), GraphPage::scaleColour(2.0, 1.0, 4.0, false));
        QVERIFY(page.nodeColour(nodeOf(page, "blk.1")) != page.nodeColour(nodeOf(page, "blk.0")));
        QCOMPARE(page.nodeColour(nodeOf(page, "token_embd")), page.palette().color(QPalette::Button));
        // Expanded, each step has its own tensor's figure.
        page.setLayerExpanded(1, true);
        QCOMPARE(page.nodeColour(nodeOf(page, "attn_q")), GraphPage::scaleColour(3.0, 1.0, 4.0, false));
        // Bits per weight: output is Q4_K (4.5 bits), output_norm F32 (32).
        page.colourChoice()->setCurrentIndex(1);
        QCOMPARE(page.nodeColour(nodeOf(page, "output_norm")), GraphPage::scaleColour(32.0, 4.5, 32.0, false));
    }

    // The importance matrix page publishes its totals for the model it was checked against.
    void importanceFromTheImatrixPage()
    {
        const auto model = openFixtureModel(kMoe);
        QVERIFY(model);
        GraphPage page(model);
        auto loaded = LoadedImatrix::load(fixturePath(QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf")), model.get());
        QVERIFY2(loaded, loaded ? "" : loaded.error().toString().c_str());
        ImatrixPage imatrixPage(*loaded);
        QCOMPARE(page.colourChoice()->count(), 3);
        QVERIFY2(page.colourChoice()->itemText(2).startsWith(QStringLiteral("Importance: Σ act² of tiny-moe.imatrix.gguf")),
                 qPrintable(page.colourChoice()->itemText(2)));
        page.colourChoice()->setCurrentIndex(2);
        page.setLayerExpanded(0, true);
        // attn_q's colour is its own total on the scale of every node's.
        double total = -1, low = 1e300, high = -1;
        for (const auto& tensor : (*loaded)->statistics.tensors) {
            if (tensor.name == "blk.0.attn_q.weight")
                total = tensor.total;
        }
        QVERIFY(total >= 0);
        const auto& shown = page.shownGraph();
        for (const auto& node : shown.nodes) {
            double worst = -1;
            for (int index : node.tensors)
                for (const auto& tensor : (*loaded)->statistics.tensors)
                    if (tensor.name == model->tensors()[static_cast<std::size_t>(index)].name)
                        worst = std::max(worst, double(tensor.total));
            if (worst >= 0) {
                low = std::min(low, worst);
                high = std::max(high, worst);
            }
        }
        QCOMPARE(page.nodeColour(nodeOf(page, "attn_q")), GraphPage::scaleColour(total, low, high, low > 0 && high / low > 100));
    }

    // A click on a block shows its steps; a click on a step opens its tensor on the Tensors page.
    void clickExpandsAndOpensTensor()
    {
        const auto model = openFixtureModel(kMoe);
        QVERIFY(model);
        ModelPage modelPage(model);
        auto* page = modelPage.findChild<GraphPage*>();
        QVERIFY(page);
        modelPage.resize(1100, 900);
        modelPage.show();
        modelPage.pages()->setCurrentWidget(page);
        QVERIFY(QTest::qWaitForWindowExposed(&modelPage));
        clickNode(*page, nodeOf(*page, "blk.0"));
        QCOMPARE(page->nodeCount(), 4 + 12);
        QCOMPARE(labelsOf(*page).mid(1, 13),
                 QStringList({"attn_norm", "attn_q", "attn_k", "attn_v", "RoPE", "attention", "attn_output", "+", "ffn_norm", "router",
                              "experts", "+", "blk.1"}));

        clickNode(*page, nodeOf(*page, "attn_k"));
        QCOMPARE(modelPage.pages()->currentIndex(), 3);  // the Tensors page
        QCOMPARE(modelPage.tensorBrowser()->currentTensor(), tensorIndex(*model, "blk.0.attn_k.weight"));
        // The experts node opens its largest matrix; RoPE (no tensor of its own here) opens nothing.
        modelPage.pages()->setCurrentWidget(page);
        clickNode(*page, nodeOf(*page, "experts"));
        const int current = modelPage.tensorBrowser()->currentTensor();
        QVERIFY(current == tensorIndex(*model, "blk.0.ffn_gate_exps.weight") || current == tensorIndex(*model, "blk.0.ffn_up_exps.weight")
                || current == tensorIndex(*model, "blk.0.ffn_down_exps.weight"));
        modelPage.pages()->setCurrentWidget(page);
        clickNode(*page, nodeOf(*page, "RoPE"));
        QCOMPARE(modelPage.pages()->currentWidget(), page);
    }

    // A real comparison published as Compare publishes it: the Q2_K file's graph coloured by its
    // weight error against F16, blk.1 open; the screenshot for the guide.
    void weightErrorOfAComparison()
    {
        const auto reference = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        const auto quantized = openFixtureModel(QStringLiteral("tiny-moe-Q2_K.gguf"));
        QVERIFY(reference && quantized);
        auto comparison = gguf::ModelComparison::create({reference, quantized});
        QVERIFY(comparison);
        auto results = gguf::runComparison(*comparison);
        QVERIFY(results);
        ModelPage modelPage(quantized);
        auto* page = modelPage.findChild<GraphPage*>();
        QVERIFY(page);
        modelPage.pages()->setCurrentWidget(page);
        TensorFigureStore::instance().publish(weightErrorFigures(*comparison, *results));
        QCOMPARE(page->colourChoice()->count(), 3);
        page->colourChoice()->setCurrentIndex(2);
        page->setLayerExpanded(1, true);
        // attn_q's colour is its relative RMSE on the scale of the nodes shown.
        const int attnQ = nodeOf(*page, "attn_q");
        QVERIFY(attnQ >= 0);
        QVERIFY(page->nodeColour(attnQ) != page->palette().color(QPalette::Button));
        QVERIFY(page->nodeColour(nodeOf(*page, "RoPE")) == page->palette().color(QPalette::Button));
        modelPage.resize(1000, 860);
        modelPage.show();
        QVERIFY(QTest::qWaitForWindowExposed(&modelPage));
        page->view()->centerOn(page->nodeCentre(nodeOf(*page, "attn_norm")));
        const QString folder = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
        QDir().mkpath(folder);
        QVERIFY(modelPage.grab().save(folder + QStringLiteral("/graph.png")));
    }

    // The Qwen3-235B layout (94 layers x 128 experts): 97 nodes collapsed, every step expanded.
    void bigLayoutExpandsWhole()
    {
        auto model = openLayout(bigLayout("Qwen3-235B-A22B"));
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        QElapsedTimer timer;
        timer.start();
        GraphPage page(*model);
        const qint64 opened = timer.elapsed();
        QCOMPARE(page.nodeCount(), 94 + 3);
        QCOMPARE(page.nodeLabel(94), QStringLiteral("blk.93"));
        timer.restart();
        page.expandAll();
        qInfo("Qwen3-235B layout: page with 97 nodes in %lld ms, %d nodes expanded in %lld ms", static_cast<long long>(opened),
              page.nodeCount(), static_cast<long long>(timer.elapsed()));
        QCOMPARE(page.nodeCount(), static_cast<int>(gguf::buildModelGraph(**model).nodes.size()));
        page.collapseAll();
        QCOMPARE(page.nodeCount(), 94 + 3);
    }

    // Under a dark palette the view's background and the nodes without a figure turn dark.
    void darkPalette()
    {
        const auto model = openFixtureModel(kMoe);
        QVERIFY(model);
        GraphPage page(model);
        QPalette dark = page.palette();
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
        dark.setColor(QPalette::WindowText, Qt::white);
        page.setPalette(dark);
        QCOMPARE(page.view()->backgroundBrush().color(), QColor(0x1e, 0x1e, 0x1e));
        page.colourChoice()->setCurrentIndex(1);
        page.setLayerExpanded(0, true);
        QCOMPARE(page.nodeColour(nodeOf(page, "RoPE")), QColor(0x35, 0x35, 0x35));
    }
};

QTEST_MAIN(TestGuiGraph)
#include "tst_gui_graph.moc"
