// The Compare page's Output tab (ui/output) driven offscreen: a run over the tiny-moe fixtures
// shows exactly the core's figures (compareModelOutputs run here independently) in the drift
// chart, the KLD histogram, the token text (flips marked, tooltips with both top tokens) and the
// router disagreement map; every view exports; cancel ends the run; a dense model has no router
// map; a model the pass cannot run disables Run; the Compare page carries the tab; qwen3moe and
// gpt-oss files run with the core's figures; the run is on the project's job pool, so it finishes
// with Qt's global pool busy.

#include "ui/compare/ComparePage.h"
#include "Screenshot.h"
#include "CliRunner.h"
#include "app/threads/ParallelRows.h"
#include "core/compare/ModelComparison.h"
#include "core/forward/OutputComparisonRun.h"
#include "core/types/GgmlType.h"
#include "OpenFixture.h"
#include "ui/output/OutputErrorTab.h"
#include "Waits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSpinBox>
#include <QPushButton>
#include <QScopeGuard>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QThreadPool>
#include <qcustomplot.h>

using namespace testsupport;

namespace {

std::shared_ptr<const gguf::ModelComparison> comparisonOf(const QStringList& files, std::vector<std::uint32_t> simulated = {})
{
    std::vector<std::shared_ptr<const gguf::Model>> models;
    for (const QString& file : files) {
        auto model = openFixtureModel(file);
        if (!model)
            return nullptr;
        models.push_back(model);
    }
    gguf::ComparisonOptions options;
    options.simulatedTypes = std::move(simulated);
    auto comparison = gguf::ModelComparison::create(std::move(models), options);
    if (!comparison)
        return nullptr;
    return std::make_shared<const gguf::ModelComparison>(std::move(*comparison));
}

// 40 ids, (53 i + 3) mod 512: the Q2_K file flips the top token at one of the 39 positions.
const QString kTokens = QStringLiteral("3,56,109,162,215,268,321,374,427,480,21,74,127,180,233,286,339,392,445,498,39,92,145,198,251,304,357,410,463,4,57,110,163,216,269,322,375,428,481,22");

std::vector<std::int32_t> tokenIds()
{
    std::vector<std::int32_t> ids;
    for (const QString& part : kTokens.split(QLatin1Char(',')))
        ids.push_back(part.toInt());
    return ids;
}

bool runAndWait(OutputErrorTab& tab)
{
    QSignalSpy finished(&tab, &OutputErrorTab::runFinished);
    tab.run();
    return finished.wait(kHangGuardMs) && finished.first().at(0).toBool();
}

}  // namespace

class TestGuiOutput : public QObject {
    Q_OBJECT
private slots:
    void viewsShowTheCoreFigures()
    {
        const auto comparison = comparisonOf({QStringLiteral("tiny-moe-F16.gguf"), QStringLiteral("tiny-moe-Q2_K.gguf")}, {gguf::findTypeByName("q4_K")->id});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        tab.resize(900, 600);
        tab.show();
        tab.setTokens(kTokens);
        QVERIFY(runAndWait(tab));
        const auto result = tab.result();
        QVERIFY(result);
        QCOMPARE(result->comparisons.size(), std::size_t{2});

        // The same run through the core directly.
        const auto reference = comparison->models()[comparison->referenceIndex()];
        std::vector<gguf::OutputCandidate> candidates;
        for (const auto& column : comparison->columns())
            candidates.push_back({column.label, column.model.get(), column.simulatedType});
        auto direct = gguf::compareModelOutputs(*reference, candidates, tokenIds(), {});
        QVERIFY(direct);

        // Drift: one line per candidate, one point per layer, the core's relative RMSE.
        QCOMPARE(tab.driftPlot()->graphCount(), 2);
        for (int g = 0; g < 2; ++g) {
            const auto& layers = direct->comparisons[static_cast<std::size_t>(g)].layers;
            QCOMPARE(tab.driftPlot()->graph(g)->dataCount(), static_cast<int>(layers.size()));
            for (int l = 0; l < static_cast<int>(layers.size()); ++l)
                QCOMPARE(tab.driftPlot()->graph(g)->data()->at(l)->value, layers[static_cast<std::size_t>(l)].relativeRmse);
        }

        for (int candidate = 0; candidate < 2; ++candidate) {
            tab.candidateChooser()->setCurrentIndex(candidate);
            const auto& c = direct->comparisons[static_cast<std::size_t>(candidate)];
            // Histogram: every scored position counted once.
            auto* bars = qobject_cast<QCPBars*>(tab.histogramPlot()->plottable(0));
            QVERIFY(bars);
            double total = 0;
            for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
                total += it->value;
            QCOMPARE(total, static_cast<double>(c.positions.size()));
            // Text: one link per position, the flips underlined; tooltips name both top tokens.
            const QString html = tab.tokenText()->toHtml();
            int flips = 0;
            for (std::size_t i = 0; i < c.positions.size(); ++i) {
                const auto& p = c.positions[i];
                const QString tip = tab.tokenTooltip(static_cast<int>(i));
                QVERIFY(tip.contains(QStringLiteral("KLD")));
                QCOMPARE(tip.contains(QStringLiteral("(flipped)")), !p.sameTop());
                flips += p.sameTop() ? 0 : 1;
            }
            QCOMPARE(html.count(QStringLiteral("position:")), static_cast<int>(c.positions.size()));
            QCOMPARE(html.count(QStringLiteral("underline")), flips);
            // Router map: the core's routing changes, cell by cell.
            QVERIFY(tab.views()->isTabEnabled(3));
            auto* map = qobject_cast<QCPColorMap*>(tab.routerPlot()->plottable(0));
            QVERIFY(map);
            for (std::size_t l = 0; l < c.routingChanged.size(); ++l)
                for (std::size_t t = 0; t < c.routingChanged[l].size(); ++t)
                    QCOMPARE(map->data()->cell(static_cast<int>(t), static_cast<int>(l)), double(c.routingChanged[l][t]));
            qInfo("%s: %d flips of %zu positions, mean KLD %.4g", c.positions.empty() ? "" : qPrintable(tab.candidateChooser()->currentText()),
                  flips, c.positions.size(), c.kld.mean);
        }
        // The Q2_K file flips some tokens (a test of the marking that can fail).
        tab.candidateChooser()->setCurrentIndex(0);
        QVERIFY(tab.tokenText()->toHtml().contains(QStringLiteral("underline")));

        // Every view exports.
        QTemporaryDir dir;
        for (int view = 0; view < tab.views()->count(); ++view) {
            tab.views()->setCurrentIndex(view);
            const bool text = tab.views()->currentWidget() == tab.tokenText();
            const QString path = dir.filePath(QStringLiteral("view%1.%2").arg(view).arg(text ? "html" : "png"));
            QCOMPARE(tab.exportCurrentView(path), QString());
            QVERIFY(QFileInfo(path).size() > 100);
        }
    }

    // The tab runs the architectures people download (fixtures/llama.cpp/arch): the F32 model
    // against its Q4_K_M file, the drift and the router map equal to the core's figures.
    void runsTheNewArchitectures_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::newRow("qwen3moe") << QStringLiteral("qwen3moe");
        QTest::newRow("gpt-oss") << QStringLiteral("gpt-oss");
    }

    void runsTheNewArchitectures()
    {
        QFETCH(QString, folder);
        const QString base = QStringLiteral("llama.cpp/arch/") + folder + QLatin1Char('/') + folder;
        const auto comparison = comparisonOf({base + QStringLiteral("-F32.gguf"), base + QStringLiteral("-Q4_K_M.gguf")});
        QVERIFY(comparison);
        QStringList ids;
        std::vector<std::int32_t> tokens;
        for (int i = 0; i < 32; ++i) {
            tokens.push_back((37 * i + 5) % 300);
            ids << QString::number(tokens.back());
        }
        OutputErrorTab tab(*comparison);
        tab.resize(900, 600);
        tab.show();
        tab.setTokens(ids.join(QLatin1Char(',')));
        QVERIFY(runAndWait(tab));
        const auto result = tab.result();
        QVERIFY(result);
        QCOMPARE(result->comparisons.size(), std::size_t{1});

        const auto reference = comparison->models()[comparison->referenceIndex()];
        std::vector<gguf::OutputCandidate> candidates;
        for (const auto& column : comparison->columns())
            candidates.push_back({column.label, column.model.get(), column.simulatedType});
        auto direct = gguf::compareModelOutputs(*reference, candidates, tokens, {});
        QVERIFY2(direct, direct ? "" : direct.error().toString().c_str());
        const auto& c = direct->comparisons.front();
        QVERIFY(c.mixtureOfExperts);
        QCOMPARE(tab.driftPlot()->graphCount(), 1);
        QCOMPARE(tab.driftPlot()->graph(0)->dataCount(), static_cast<int>(c.layers.size()));
        for (int l = 0; l < static_cast<int>(c.layers.size()); ++l)
            QCOMPARE(tab.driftPlot()->graph(0)->data()->at(l)->value, c.layers[static_cast<std::size_t>(l)].relativeRmse);
        QVERIFY(tab.views()->isTabEnabled(3));
        auto* map = qobject_cast<QCPColorMap*>(tab.routerPlot()->plottable(0));
        QVERIFY(map);
        for (std::size_t l = 0; l < c.routingChanged.size(); ++l)
            for (std::size_t t = 0; t < c.routingChanged[l].size(); ++t)
                QCOMPARE(map->data()->cell(static_cast<int>(t), static_cast<int>(l)), double(c.routingChanged[l][t]));
        qInfo("%s: mean KLD %.4g over %zu positions", qPrintable(folder), c.kld.mean, c.positions.size());
    }

    // docs/screenshots/output-*.png: the tab on the tiny-moe model, Q2_K file and q4_K simulated.
    void screenshots()
    {
        const auto comparison = comparisonOf({QStringLiteral("tiny-moe-F16.gguf"), QStringLiteral("tiny-moe-Q2_K.gguf")}, {gguf::findTypeByName("q4_K")->id});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        tab.resize(1280, 760);
        tab.show();
        tab.setTokens(kTokens);
        QVERIFY(runAndWait(tab));
        for (const auto& [view, name] : {std::pair{0, "output-drift"}, {2, "output-tokens"}, {3, "output-router"}}) {
            tab.views()->setCurrentIndex(view);
            QVERIFY(testsupport::saveScreenshot(tab, QLatin1String(name)));
        }
    }

    void cancelEndsTheRun()
    {
        const auto comparison = comparisonOf({QStringLiteral("tiny-moe-F16.gguf"), QStringLiteral("tiny-moe-Q4_K.gguf")});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        QSignalSpy finished(&tab, &OutputErrorTab::runFinished);
        tab.setTokens(kTokens);
        tab.run();
        QVERIFY(tab.isRunning());
        tab.cancel();
        QVERIFY(finished.wait(kHangGuardMs));
        // Either the cancel came in time or the (tiny) run had already finished: both end once.
        QCOMPARE(finished.size(), 1);
        QVERIFY(!tab.isRunning());
    }

    // The run goes to the project's job pool, not Qt's global pool (whose threads Qt's own painting
    // waits on): with every global-pool thread held, it still runs to its end.
    void runsWithQtsGlobalPoolBusy()
    {
        const auto comparison = comparisonOf({QStringLiteral("tiny-moe-F16.gguf"), QStringLiteral("tiny-moe-Q4_K.gguf")});
        QVERIFY(comparison);
        QThreadPool* global = QThreadPool::globalInstance();
        const int threads = global->maxThreadCount();
        auto started = std::make_shared<QSemaphore>();
        auto open = std::make_shared<QSemaphore>();
        for (int i = 0; i < threads; ++i)
            global->start([started, open]() {
                started->release();
                open->acquire();
            });
        started->acquire(threads);
        const auto release = qScopeGuard([open, threads]() { open->release(threads); });  // however the test ends
        OutputErrorTab tab(*comparison);
        tab.setTokens(kTokens);
        QVERIFY(runAndWait(tab));
    }

    // The activations choice reaches the pass: each of the three gives the core's figures for
    // it, and changing it marks the shown figures as stale until the next run.
    void activationsChoiceReachesThePass()
    {
        const auto comparison = comparisonOf({QStringLiteral("tiny-llama-F32.gguf"), QStringLiteral("tiny-llama-Q8_0.gguf")});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        tab.setTokens(QStringLiteral("1,2,3,4,5,6,7,8"));
        QCOMPARE(tab.activations()->currentData().toInt(), static_cast<int>(gguf::ActivationArithmetic::LlamaCpp));
        std::vector<double> shown;
        for (const auto arithmetic : {gguf::ActivationArithmetic::LlamaCpp, gguf::ActivationArithmetic::QuantizedAsLlamaCpp,
                                      gguf::ActivationArithmetic::Float32}) {
            const bool hadFigures = tab.result() != nullptr;
            tab.activations()->setCurrentIndex(tab.activations()->findData(static_cast<int>(arithmetic)));
            QCOMPARE(tab.figuresAreStale(), hadFigures && arithmetic != gguf::ActivationArithmetic::LlamaCpp);
            QVERIFY(runAndWait(tab));
            QVERIFY(!tab.figuresAreStale());
            QVERIFY(tab.figuresInput().contains(tab.activations()->currentText()));
            gguf::OutputRunOptions options;
            options.executor = &gguf::ParallelRows::shared();
            options.activations = arithmetic;
            auto direct = gguf::compareModelOutputs(*comparison->models()[comparison->referenceIndex()],
                                                    {{"q8", comparison->columns()[0].model.get(), 0}},
                                                    std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8}, options);
            QVERIFY(direct);
            QCOMPARE(tab.result()->comparisons[0].kld.mean, direct->comparisons[0].kld.mean);
            shown.push_back(direct->comparisons[0].kld.mean);
        }
        QVERIFY(shown[0] != shown[1]);
        QVERIFY(shown[1] != shown[2]);
    }

    // The KV cache and flash attention reach the pass in llama.cpp's arithmetic, with
    // llama.cpp's defaults (f16, auto), and the figures name them; in the other arithmetics
    // the boxes are off and change nothing.
    void kvCacheChoiceReachesThePass()
    {
        const auto comparison = comparisonOf({QStringLiteral("tiny-moe-F16.gguf"), QStringLiteral("tiny-moe-Q4_K.gguf")});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        const std::vector<std::int32_t> tokens{1, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
        tab.setTokens(QStringLiteral("1,20,30,40,50,60,70,80,90,100,110,120"));
        QCOMPARE(tab.cacheType()->currentText(), QStringLiteral("f16"));
        QCOMPARE(tab.flashAttention()->currentData().toInt(), static_cast<int>(gguf::FlashAttention::Auto));
        struct Choice {
            const char* type;
            gguf::FlashAttention flash;
            const char* named;
        };
        std::vector<double> shown;
        for (const Choice& choice : {Choice{"f16", gguf::FlashAttention::Auto, "K f16, V f16, flash attention on"},
                                     Choice{"q8_0", gguf::FlashAttention::Auto, "K q8_0, V q8_0, flash attention on"},
                                     Choice{"f16", gguf::FlashAttention::Off, "K f16, V f16, flash attention off"}}) {
            const bool hadFigures = tab.result() != nullptr;
            tab.cacheType()->setCurrentText(QString::fromLatin1(choice.type));
            tab.flashAttention()->setCurrentIndex(tab.flashAttention()->findData(static_cast<int>(choice.flash)));
            QCOMPARE(tab.figuresAreStale(), hadFigures);
            QVERIFY(runAndWait(tab));
            QVERIFY2(tab.figuresInput().contains(QLatin1String(choice.named)), qPrintable(tab.figuresInput()));
            gguf::OutputRunOptions options;
            options.executor = &gguf::ParallelRows::shared();
            options.kvCache = {gguf::findTypeByName(choice.type)->id, gguf::findTypeByName(choice.type)->id, choice.flash};
            auto direct = gguf::compareModelOutputs(*comparison->models()[comparison->referenceIndex()],
                                                    {{"q4", comparison->columns()[0].model.get(), 0}}, tokens, options);
            QVERIFY(direct);
            QCOMPARE(tab.result()->comparisons[0].kld.mean, direct->comparisons[0].kld.mean);
            shown.push_back(direct->comparisons[0].kld.mean);
        }
        QVERIFY(shown[0] != shown[1] && shown[0] != shown[2] && shown[1] != shown[2]);
        tab.activations()->setCurrentIndex(tab.activations()->findData(static_cast<int>(gguf::ActivationArithmetic::Float32)));
        QVERIFY(!tab.cacheType()->isEnabled() && !tab.flashAttention()->isEnabled());
        QVERIFY(runAndWait(tab));
        QVERIFY(tab.figuresInput().contains(QLatin1String("K f32, V f32, plain f32 attention")));
        tab.cacheType()->setCurrentText(QStringLiteral("q4_0"));
        QVERIFY(!tab.figuresAreStale());
    }

    void denseModelHasNoRouterMap()
    {
        const auto comparison = comparisonOf({QStringLiteral("tiny-llama-F32.gguf"), QStringLiteral("tiny-llama-Q4_K.gguf")});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        tab.setTokens(QStringLiteral("1,2,3,4,5,6"));
        QVERIFY(runAndWait(tab));
        QVERIFY(!tab.views()->isTabEnabled(3));
        QCOMPARE(tab.result()->comparisons[0].positions.size(), std::size_t{5});
    }

    void unsupportedModelDisablesRun()
    {
        const auto comparison = comparisonOf({QStringLiteral("all-types.gguf")}, {gguf::findTypeByName("q8_0")->id});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        const auto buttons = tab.findChildren<QPushButton*>();
        const auto run = std::find_if(buttons.begin(), buttons.end(), [](QPushButton* b) { return b->text() == QStringLiteral("Run"); });
        QVERIFY(run != buttons.end());
        QVERIFY(!(*run)->isEnabled());
    }

    // A text file runs as `kld --text-file` runs it: llama-perplexity's windows of 512 tokens by
    // default (the window shown), the first token of each BOS, the second half scored; the tab's
    // figures are the CLI's on the same file, to the last digit the CLI prints.
    void textFileGivesTheCliFigures()
    {
        QTemporaryDir dir;
        const QString text = dir.filePath(QStringLiteral("text.txt"));
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (int line = 0; line < 16; ++line)
            file.write(QStringLiteral("Line %1: the keeper counted %2 ships and wrote their names in a book.\n").arg(line).arg(line * 7 % 13).toUtf8());
        file.close();
        const auto comparison = comparisonOf({QStringLiteral("tiny-llama-F32.gguf"), QStringLiteral("tiny-llama-Q4_K.gguf")});
        QVERIFY(comparison);
        OutputErrorTab tab(*comparison);
        QCOMPARE(tab.chunkSize()->value(), 512);
        tab.setTextFile(text);
        QVERIFY(tab.isTextFileInput());
        QVERIFY(runAndWait(tab));
        const auto result = tab.result();
        QVERIFY(result && result->comparisons.size() == 1);

        const auto cli = runProgram(cliPath(), {QStringLiteral("kld"), fixturePath(QStringLiteral("tiny-llama-F32.gguf")),
                                                fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")), QStringLiteral("--text-file"), text,
                                                QStringLiteral("--json")});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.describe()));
        const QJsonObject root = QJsonDocument::fromJson(cli.out).object();
        QCOMPARE(root.value(QStringLiteral("chunk_size")).toInteger(), qint64{512});
        const qint64 tokens = root.value(QStringLiteral("tokens")).toInteger();
        QVERIFY2(tokens > 1024, qPrintable(QString::number(tokens)));  // two windows or more
        QCOMPARE(qint64(result->scoredPositions), root.value(QStringLiteral("scored_positions")).toInteger());
        QCOMPARE(qint64(result->scoredPositions), tokens / 512 * (512 - 1 - 256));
        const QJsonObject kld = root.value(QStringLiteral("models")).toArray().at(0).toObject().value(QStringLiteral("kld")).toObject();
        const gguf::OutputComparison& ours = result->comparisons.front();
        QCOMPARE(ours.kld.mean, kld.value(QStringLiteral("mean")).toDouble());
        QCOMPARE(ours.kld.maximum, kld.value(QStringLiteral("maximum")).toDouble());
        QCOMPARE(ours.kld.median, kld.value(QStringLiteral("median")).toDouble());
        qInfo("text file, %lld tokens in windows of 512: %lld positions, mean KLD %.9g in the tab, %.9g from kld --text-file", tokens,
              qint64(result->scoredPositions), ours.kld.mean, kld.value(QStringLiteral("mean")).toDouble());
        QVERIFY2(tab.figuresInput().contains(QStringLiteral("chunks of 512")), qPrintable(tab.figuresInput()));

        // Another window is another input: the figures are stale until run again.
        tab.chunkSize()->setValue(128);
        QVERIFY(tab.figuresAreStale());
    }

    void comparePageCarriesTheTab()
    {
        auto f32 = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(f32);
        ComparePage page({f32}, {gguf::findTypeByName("q8_0")->id});
        auto* tabs = page.findChild<QTabWidget*>(QStringLiteral("compareTabs"));
        QVERIFY(tabs);
        QCOMPARE(tabs->tabText(tabs->count() - 1), QStringLiteral("Output"));
        QVERIFY(page.findChild<OutputErrorTab*>(QStringLiteral("outputErrorTab")));
        QSignalSpy finished(&page, &ComparePage::comparisonFinished);
        page.cancel();
        finished.wait(kHangGuardMs);
    }
};

QTEST_MAIN(TestGuiOutput)
#include "tst_gui_output.moc"
