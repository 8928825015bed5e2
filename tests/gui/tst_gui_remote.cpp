// The GUI side of remote models and of the memory estimate: a URL opens in a tab through the
// same background loader as a file (served by a local lighttpd; the window keeps running while
// the header arrives), URLs are remembered for File › Open URL, and the Overview's estimate box
// follows its context slider, cache type and llama.cpp's other options (flash attention, batch,
// ubatch, full-size SWA cache, GPU layers) with the figures core/estimate computes. A model opened
// from a URL is what Compare Quant Levels offers first, and it opens there through the same loader.

#include "Fixtures.h"
#include "LocalWebServer.h"
#include "OpenFixture.h"

#include "core/base/HumanFormat.h"
#include "ui/compare/CompareDialog.h"
#include "ui/diff/DiffPage.h"
#include "core/estimate/MemoryEstimate.h"
#include "core/gguf/Model.h"
#include "ui/overview/MemoryEstimateBox.h"
#include "ui/overview/OverviewPage.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ModelPage.h"
#include "ui/shell/OpenUrl.h"

#include <QAction>
#include <QCheckBox>
#include <QSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QInputDialog>
#include <QTimer>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

namespace {
constexpr int kJobTimeoutMs = 120000;

QString estimateText(const QWidget& box)
{
    const auto* label = box.findChild<QLabel*>(QStringLiteral("estimateLabel"));
    return label ? label->text() : QString();
}

// tiny-llama-Q4_K.gguf over HTTP from a local server, for as long as this lives.
struct ServedFixture {
    QTemporaryDir root;
    QTemporaryDir work;
    testsupport::LocalWebServer server;
    QString url;
    std::string error;

    bool start()
    {
        if (!QFile::link(testsupport::fixturePath("tiny-llama-Q4_K.gguf"), root.filePath("tiny-llama-Q4_K.gguf"))) {
            error = "cannot link the fixture";
            return false;
        }
        if (!server.start(root.path().toStdString(), work.path().toStdString(), error))
            return false;
        url = QString::fromStdString(server.url("/tiny-llama-Q4_K.gguf"));
        return true;
    }
};

QString bytes(std::uint64_t n)
{
    return QString::fromStdString(gguf::formatBytes(n));
}
}  // namespace

class TestGuiRemote : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        qputenv("HF_TOKEN_PATH", "/nonexistent/token");
    }

    void urlOpensInATabWithoutBlockingTheWindow()
    {
        ServedFixture served;
        QVERIFY2(served.start(), served.error.c_str());
        const QString url = served.url;
        QVERIFY(isModelUrl(url) && isModelUrl("hf://a/b/c.gguf") && !isModelUrl("/tmp/x.gguf"));

        MainWindow window;
        window.openFile(url);
        QCOMPARE(window.tabs()->count(), 0);  // the open runs on the pool; the window goes on
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
        auto* page = qobject_cast<ModelPage*>(window.tabs()->widget(0));
        QVERIFY2(page, qPrintable(window.tabs()->tabText(0)));
        QCOMPARE(window.tabs()->tabText(0), QStringLiteral("tiny-llama-Q4_K.gguf"));
        QCOMPARE(window.tabs()->tabToolTip(0), url);
        QVERIFY(!window.tabs()->tabIcon(0).isNull());  // marked as remote
        QVERIFY(page->findChild<MemoryEstimateBox*>());
        // Remembered as the URL, not as a path under the working folder.
        QCOMPARE(QSettings().value("recentFiles").toStringList().value(0), url);

        window.openFile(QString::fromStdString(served.server.url("/missing.gguf")));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 2, kJobTimeoutMs);
        const auto* error404 = window.tabs()->widget(1)->findChild<QLabel*>(QStringLiteral("errorLabel"));
        QVERIFY(qobject_cast<QLabel*>(window.tabs()->widget(1)) || error404);
        const auto* label = qobject_cast<QLabel*>(window.tabs()->widget(1));
        QVERIFY2(label && label->text().contains("HTTP 404"), qPrintable(label ? label->text() : QString()));
    }

    // The open model's URL is listed first in Compare Quant Levels; with a simulated type, OK opens
    // it through the window's loader (it used to be opened as a local path and fail).
    void urlModelOpensInCompareQuantLevels()
    {
        ServedFixture served;
        QVERIFY2(served.start(), served.error.c_str());
        const QString url = served.url;
        CompareDialog dialog(url);
        QCOMPARE(dialog.checkedFiles(), QStringList{url});
        dialog.setSimulatedTypeChecked(QStringLiteral("q8_0"), true);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.openAndAccept();
        QVERIFY(accepted.wait(kJobTimeoutMs));
        QCOMPARE(dialog.models().size(), std::size_t{1});
        QVERIFY(dialog.models()[0]);
        QCOMPARE(dialog.models()[0]->tensors().size(), testsupport::openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"))->tensors().size());
    }

    // A model open from a URL is offered in Compare Quant Levels and Diff With from another tab
    // (the file dialogs take no URL: "File not found"), and the diff reads it remotely.
    void remoteTabIsOfferedToCompareAndDiff()
    {
        ServedFixture served;
        QVERIFY2(served.start(), served.error.c_str());
        const QString url = served.url;
        MainWindow window;
        window.openFile(url);
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
        window.openFile(testsupport::fixturePath("tiny-llama-Q8_0.gguf"));
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 2, kJobTimeoutMs);
        QCOMPARE(window.tabs()->currentIndex(), 1);
        auto* local = qobject_cast<ModelPage*>(window.tabs()->widget(1));
        QVERIFY(local);
        QCOMPARE(window.openModelPaths(local), QStringList{url});

        QStringList offered;
        QTimer poll;
        poll.setInterval(10);
        connect(&poll, &QTimer::timeout, [&offered, &poll]() {
            if (auto* dialog = qobject_cast<CompareDialog*>(QApplication::activeModalWidget())) {
                poll.stop();
                auto* files = dialog->findChild<QListWidget*>(QStringLiteral("filesList"));
                for (int i = 0; files && i < files->count(); ++i)
                    offered << files->item(i)->text();
                QVERIFY(dialog->findChild<QPushButton*>(QStringLiteral("addUrlButton")));
                dialog->reject();
            }
        });
        poll.start();
        QAction* compare = nullptr;
        for (QAction* action : window.findChildren<QAction*>())
            if (action->text() == QStringLiteral("Compare &Quant Levels…"))
                compare = action;
        QVERIFY(compare);
        compare->trigger();
        QVERIFY2(offered.contains(url), qPrintable(offered.join(QLatin1Char('\n'))));

        auto* menu = window.findChild<QMenu*>(QStringLiteral("diffWithOpenTabMenu"));
        QVERIFY(menu);
        emit menu->aboutToShow();
        QAction* remote = nullptr;
        for (QAction* action : menu->actions())
            if (action->text() == url)
                remote = action;
        QVERIFY(remote);
        remote->trigger();
        QCOMPARE(window.tabs()->count(), 3);
        auto* diff = qobject_cast<DiffPage*>(window.tabs()->widget(2));
        QVERIFY(diff);
        QSignalSpy finished(diff, &DiffPage::finished);
        QVERIFY(finished.count() > 0 || finished.wait(kJobTimeoutMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    }

    void openUrlActionAsksAndOpens()
    {
        QSettings().clear();
        QTemporaryDir root, work;
        QVERIFY(QFile::link(testsupport::fixturePath("tiny-moe-Q2_K.gguf"), root.filePath("tiny-moe-Q2_K.gguf")));
        testsupport::LocalWebServer server;
        std::string error;
        QVERIFY2(server.start(root.path().toStdString(), work.path().toStdString(), error), error.c_str());
        const QString url = QString::fromStdString(server.url("/tiny-moe-Q2_K.gguf"));
        MainWindow window;
        QAction* openUrl = nullptr;
        for (QAction* action : window.findChildren<QAction*>())
            if (action->text() == QStringLiteral("Open &URL…"))
                openUrl = action;
        QVERIFY(openUrl);
        bool answered = false;
        QTimer::singleShot(0, [&]() {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            dialog->setTextValue(url);
            dialog->accept();
            answered = true;
        });
        openUrl->trigger();
        QVERIFY(answered);
        QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), 1, kJobTimeoutMs);
        QVERIFY(qobject_cast<ModelPage*>(window.tabs()->widget(0)));
        QCOMPARE(recentModelUrls().value(0), url);
    }

    void recentUrlsNewestFirst()
    {
        QSettings().clear();
        rememberModelUrl("https://a/one.gguf");
        rememberModelUrl("hf://o/r/two.gguf");
        rememberModelUrl("https://a/one.gguf");
        QCOMPARE(recentModelUrls(), (QStringList{"https://a/one.gguf", "hf://o/r/two.gguf"}));
    }

    void estimateFollowsSliderAndCacheType()
    {
        const auto model = gguf::Model::open(testsupport::fixturePath("tiny-llama-F32.gguf").toStdString());
        QVERIFY(model);
        MemoryEstimateBox box(model.value());
        QSlider* slider = box.contextSlider();
        // From 512 to the training context, 2048.
        QCOMPARE(slider->minimum(), 9);
        QCOMPARE(slider->maximum(), 11);
        QCOMPARE(box.contextLength(), std::uint64_t{2048});
        // 2 layers x (K + V) x 2048 cells x 256 values x 2 bytes (f16) = 4 MiB.
        QVERIFY2(estimateText(box).contains("KV cache " + bytes(2ull * 2 * 2048 * 256 * 2)), qPrintable(estimateText(box)));
        slider->setValue(9);
        QCOMPARE(box.contextLength(), std::uint64_t{512});
        QVERIFY2(estimateText(box).contains("KV cache " + bytes(2ull * 2 * 512 * 256 * 2)), qPrintable(estimateText(box)));
        box.cacheTypeBox()->setCurrentText("q8_0");  // 256 values: 8 blocks of 34 bytes
        QVERIFY2(estimateText(box).contains("KV cache " + bytes(2ull * 2 * 512 * 8 * 34)), qPrintable(estimateText(box)));
        gguf::EstimateOptions options;
        options.contextLength = 512;
        options.keyType = options.valueType = 8;
        QVERIFY(estimateText(box).contains(bytes(gguf::estimateMemory(*model.value(), options)->total()) + " in all"));
    }

    void estimateFollowsLlamaCppOptions()
    {
        // gemma3: sliding-window layers, so the SWA option matters; llama.cpp's defaults first.
        const auto model = gguf::Model::open(testsupport::fixturePath("llama.cpp/arch/gemma3/gemma3-F32.gguf").toStdString());
        QVERIFY(model);
        MemoryEstimateBox box(model.value());
        box.contextSlider()->setValue(12);  // 4096
        gguf::EstimateOptions options;
        options.contextLength = 4096;
        const auto expect = [&](const char* what) {
            const auto estimate = gguf::estimateMemory(*model.value(), options);
            QVERIFY(estimate);
            const QString text = estimateText(box);
            QVERIFY2(text.contains("KV cache " + bytes(estimate->kvTotal())), qPrintable(QString(what) + ": " + text));
            QVERIFY2(text.contains("compute buffer ≈ " + bytes(estimate->computeBuffer)), qPrintable(QString(what) + ": " + text));
            QVERIFY2(text.contains(bytes(estimate->total()) + " in all"), qPrintable(QString(what) + ": " + text));
        };
        QCOMPARE(box.flashAttentionBox()->currentText(), QStringLiteral("auto"));
        QCOMPARE(box.batchBox()->value(), 2048);
        QCOMPARE(box.ubatchBox()->value(), 512);
        QVERIFY(!box.fullSlidingWindowBox()->isChecked());
        expect("defaults");
        const QString small = estimateText(box);
        box.fullSlidingWindowBox()->setChecked(true);
        options.fullSlidingWindow = true;
        expect("full SWA cache");
        QVERIFY(estimateText(box) != small);
        box.flashAttentionBox()->setCurrentText("off");
        options.flashAttention = gguf::FlashAttention::Off;
        expect("flash attention off");
        box.ubatchBox()->setValue(256);
        options.ubatch = 256;
        expect("ubatch 256");
        box.batchBox()->setValue(128);
        options.batch = 128;
        expect("batch 128");
        box.gpuLayersBox()->setValue(2);
        options.gpuLayers = 2;
        expect("two GPU layers");
        QVERIFY(estimateText(box).contains(", GPU "));
        // A quantized V cache without flash attention: llama.cpp refuses it, and so does the box.
        box.cacheTypeBox()->setCurrentText("q8_0");
        QVERIFY2(estimateText(box).startsWith("No estimate: ") && estimateText(box).contains("flash attention"), qPrintable(estimateText(box)));
    }

    void overviewShowsTheEstimate()
    {
        const auto model = gguf::Model::open(testsupport::fixturePath("tiny-moe-Q4_K.gguf").toStdString());
        QVERIFY(model);
        OverviewPage page(model.value());
        const auto* box = page.findChild<MemoryEstimateBox*>();
        QVERIFY(box);
        QVERIFY(estimateText(*box).startsWith("Weights "));
    }
};

QTEST_MAIN(TestGuiRemote)
#include "tst_gui_remote.moc"
