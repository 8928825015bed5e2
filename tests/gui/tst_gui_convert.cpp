// File › Convert offscreen: the dialog offers llama-quantize's presets beside the pure types, and
// a preset writes llama-quantize's own file; it proposes an output name from the input's and the
// target's and keeps one the user typed; while it writes it shows the bytes written, the
// percentage to a tenth and the time left, worked out per tensor from the plan.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "core/base/HumanFormat.h"
#include "ui/shell/ConvertDialog.h"
#include "ui/shell/ConvertProgress.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using testsupport::fixturePath;

class TestGuiConvert : public QObject {
    Q_OBJECT

private slots:
    void offersPresetsAndProposesNames()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        ConvertDialog dialog(model);
        const QString folder = QFileInfo(fixturePath("tiny-llama-F32.gguf")).absolutePath();
        // The input's own type label is dropped from the proposal: not "tiny-llama-F32-q4_K".
        QCOMPARE(dialog.outputPath(), QDir(folder).filePath("tiny-llama-q4_K.gguf"));
        QVERIFY(!dialog.targetPreset());
        dialog.setTargetPreset("Q4_K_M");
        QVERIFY(dialog.targetPreset());
        QCOMPARE(QString::fromUtf8(dialog.targetPreset()->name.data(), int(dialog.targetPreset()->name.size())), QStringLiteral("Q4_K_M"));
        QCOMPARE(dialog.outputPath(), QDir(folder).filePath("tiny-llama-Q4_K_M.gguf"));
        // The preview is the preset's recipe: attn_v and ffn_down of the last block at q6_K.
        QTreeWidget* preview = dialog.previewTree();
        QCOMPARE(preview->topLevelItemCount(), 21);
        bool bumped = false;
        for (int i = 0; i < preview->topLevelItemCount(); ++i)
            bumped |= preview->topLevelItem(i)->text(0) == "blk.1.attn_v.weight" && preview->topLevelItem(i)->text(2) == "q6_K";
        QVERIFY(bumped);
        QVERIFY(dialog.warningsText().contains(QStringLiteral("bits per weight")));
        // A refused preset says why and cannot start.
        dialog.setTargetPreset("IQ2_XXS");
        QVERIFY(!dialog.canConvert());
        QVERIFY(dialog.typeRefusal().contains(QStringLiteral("refuses")));
        // A name the user typed stays whatever the target.
        dialog.setOutputPath("/tmp/mine.gguf");
        dialog.setTargetType("q8_0");
        QCOMPARE(dialog.outputPath(), QStringLiteral("/tmp/mine.gguf"));
        QVERIFY(!dialog.targetPreset());

        // An input named like its target never gets itself proposed.
        const auto q8 = testsupport::openFixtureModel("tiny-llama-Q8_0.gguf");
        QVERIFY(q8);
        ConvertDialog again(q8);
        again.setTargetType("Q8_0");
        QVERIFY(again.outputPath() != fixturePath("tiny-llama-Q8_0.gguf"));
    }

    // A preset converts to the very file llama-quantize writes, with the written bytes shown.
    void presetConvertsLikeLlamaQuantize()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        QTemporaryDir dir;
        ConvertDialog dialog(model);
        dialog.setTargetPreset("Q4_K_M");
        dialog.setOutputPath(dir.filePath("out.gguf"));
        QSignalSpy finished(&dialog, &ConvertDialog::conversionFinished);
        dialog.startConversion();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        const QByteArray written = testsupport::readWholeFile(dir.filePath("out.gguf"));
        QVERIFY(written == testsupport::readWholeFile(fixturePath("llama.cpp/tiny-llama-mix-Q4_K_M.gguf")));
        // The bytes written at the end are the tensors' bytes of the file.
        const auto out = testsupport::openModelAt(dir.filePath("out.gguf"));
        QVERIFY(out);
        std::uint64_t tensorBytes = 0;
        for (const auto& tensor : out->tensors())
            tensorBytes += tensor.nbytes;
        const QString expected = QString::fromStdString(gguf::formatBytes(tensorBytes));
        QVERIFY2(dialog.writtenText().startsWith(expected + " of " + expected + " written (100.0 %)"), qPrintable(dialog.writtenText()));
        QCOMPARE(dialog.findChild<QProgressBar*>()->text(), QStringLiteral("100.0 %"));
    }

    // Cancel is not a failure, and its line does not stay above the next run's progress.
    void cancelSaysCancelledAndTheNextRunStartsClean()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        QTemporaryDir dir;
        ConvertDialog dialog(model);
        dialog.setTargetType("Q8_0");
        dialog.setOutputPath(dir.filePath("out.gguf"));
        QSignalSpy finished(&dialog, &ConvertDialog::conversionFinished);
        dialog.startConversion();
        dialog.cancelConversion();  // before its end reaches the dialog: the run ends as cancelled
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY2(!dialog.warningsText().contains(QStringLiteral("failed")), qPrintable(dialog.warningsText()));
        QVERIFY2(dialog.warningsText().contains(QStringLiteral("cancelled")), qPrintable(dialog.warningsText()));
        finished.clear();
        dialog.startConversion();
        QVERIFY2(!dialog.warningsText().contains(QStringLiteral("cancelled")), qPrintable(dialog.warningsText()));
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    }

    void writtenBytesFollowThePlan()
    {
        WrittenBytes bytes;
        bytes.add(100, 400);   // an f32 tensor copied
        bytes.add(1000, 140);  // a quantized one
        QCOMPARE(bytes.totalElements(), std::uint64_t{1100});
        QCOMPARE(bytes.totalBytes(), std::uint64_t{540});
        QCOMPARE(bytes.bytesAt(0), std::uint64_t{0});
        QCOMPARE(bytes.bytesAt(50), std::uint64_t{200});
        QCOMPARE(bytes.bytesAt(100), std::uint64_t{400});
        QCOMPARE(bytes.bytesAt(600), std::uint64_t{470});
        QCOMPARE(bytes.bytesAt(1100), std::uint64_t{540});
        // 725 MB of a 40 GB file after 13 s: a tenth of a percent and a time left, not "0 %".
        const QString text = conversionProgressText(725'000'000, 40'000'000'000, 725.0 / 40000.0, 13.0);
        QVERIFY2(text.contains(QStringLiteral("(1.8 %)")) && text.contains(QStringLiteral("about 11 min 44 s left")), qPrintable(text));
        QCOMPARE(percentText(0.0181), QStringLiteral("1.8 %"));
    }
};

QTEST_MAIN(TestGuiConvert)
#include "tst_gui_convert.moc"
