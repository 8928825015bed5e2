// The planner's whole chain in the GUI, offscreen, against the CLI at every link: the Recipe
// page's Sensitivity tab scans a calibration text; the Mix Planner plans by that scan; the page
// converts with the plan; the Output tab measures the converted file against its source on a
// held-out text. Each figure is the CLI's on the same inputs: the plan's rules are `plan --scan`'s,
// the file is `convert --recipe`'s byte for byte, its size is the plan's prediction, and the
// Output tab's KLD is `kld --text-file`'s with the same chunks, to every digit the CLI prints.

#include "CliRunner.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "core/compare/ModelComparison.h"
#include "core/forward/OutputComparisonRun.h"
#include "core/sensitivity/ScanFile.h"
#include "ui/output/OutputErrorTab.h"
#include "ui/recipe/MixPlannerView.h"
#include "ui/recipe/RecipePage.h"
#include "ui/recipe/ScanRunPanel.h"
#include "ui/recipe/SensitivityView.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using testsupport::fixturePath;

namespace {

// `lines` lines of `words`, numbered so that no two lines tokenize alike.
bool writeText(const QString& path, const char* words, int lines)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    for (int line = 0; line < lines; ++line) {
        QByteArray text = QByteArray::number(line);
        text.append(": ");
        text.append(words);
        text.append('\n');
        file.write(text);
    }
    return true;
}

}  // namespace

class TestGuiScanToOutput : public QObject {
    Q_OBJECT

private slots:
    void scanPlanConvertOutputGiveTheCliFigures()
    {
        QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath()));
        QElapsedTimer clock;
        clock.start();
        QTemporaryDir dir;
        const QString source = fixturePath("tiny-llama-F32.gguf");
        const QString calibration = dir.filePath("calibration.txt");
        const QString heldOut = dir.filePath("held-out.txt");
        QVERIFY(writeText(calibration, "The keeper counted the ships at dawn and wrote their names in a book.", 2));
        QVERIFY(writeText(heldOut, "A small model read a short story and guessed the next word of it.", 3));
        const auto model = testsupport::openModelAt(source);
        QVERIFY(model);

        // Scan: 32 tokens in one chunk, two types, from the Sensitivity tab's panel.
        RecipePage page(model);
        page.resize(1100, 800);
        page.show();
        SensitivityView& sensitivity = *page.sensitivityView();
        page.sections()->setCurrentWidget(&sensitivity);
        ScanRunSettings settings;
        settings.textFile = calibration;
        settings.scanFile = dir.filePath("scan.json");
        settings.maxTokens = 32;
        settings.chunk = 32;
        settings.types = QStringLiteral("q4_K, q8_0");
        QSignalSpy scanned(sensitivity.runPanel(), &ScanRunPanel::finished);
        QSignalSpy loaded(&sensitivity, &SensitivityView::scanLoaded);
        sensitivity.runPanel()->start(settings);
        QVERIFY(scanned.count() == 1 || scanned.wait(testsupport::kHangGuardMs));
        QVERIFY2(scanned.first().at(0).toBool(), qPrintable(scanned.first().at(1).toString()));
        QVERIFY(loaded.count() == 1 || loaded.wait(testsupport::kHangGuardMs));
        QVERIFY(sensitivity.record() && sensitivity.record()->measured() == sensitivity.record()->probes.size());
        const gguf::ScanRecord& record = *sensitivity.record();
        QCOMPARE(record.identity.tokens, std::int64_t{32});
        const qint64 scanMs = clock.restart();

        // The same scan from the CLI: every probe's figures equal.
        const QString cliScan = dir.filePath("cli-scan.json");
        const auto scan = testsupport::runCli({"scan", source, "--text-file", calibration, "--max-tokens", "32", "--chunk", "32", "--types", "q4_K,q8_0",
                                               "-o", cliScan, "--quiet"});
        QVERIFY2(scan.exitCode == 0, qPrintable(scan.describe()));
        const auto cliRecord = gguf::readScanFile(cliScan.toStdString());
        QVERIFY2(cliRecord, cliRecord ? "" : cliRecord.error().toString().c_str());
        QCOMPARE(cliRecord->probes.size(), record.probes.size());
        QCOMPARE(record.probes.size(), record.groups.size() * 2);
        for (std::size_t p = 0; p < record.probes.size(); ++p) {
            const std::string& tensor = record.groups[record.probes[p].group].tensor;
            const gguf::ProbeFigures* cli = gguf::findFigures(*cliRecord, tensor, record.probes[p].type);
            QVERIFY2(cli && record.figures[p], tensor.c_str());
            QCOMPARE(record.figures[p]->meanKld, cli->meanKld);
            QCOMPARE(record.figures[p]->trimmedKld, cli->trimmedKld);
        }

        const qint64 cliScanMs = clock.restart();

        // Plan: by the scan, within a budget between all-q4_K and all-q8_0.
        MixPlannerView& planner = *page.plannerView();
        page.sections()->setCurrentWidget(&planner);
        QSignalSpy planned(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText(QStringLiteral("1.5MB"));
        planner.plan();
        QVERIFY(planned.count() == 1 || planned.wait(testsupport::kHangGuardMs));
        QVERIFY2(planned.first().at(0).toBool(), qPrintable(planned.first().at(1).toString()));
        QVERIFY(planner.plannedByScan());
        QVERIFY(planner.rules() && !planner.rules()->rules.empty());  // a mix, not a preset alone
        const QString guiRules = dir.filePath("gui-rules.txt");
        QVERIFY(planner.saveRules(guiRules));

        // The same plan from the CLI: the same rules, base preset and predicted size.
        const QString cliRules = dir.filePath("cli-rules.txt");
        const auto plan = testsupport::runCli({"plan", source, "--size", "1.5MB", "--scan", settings.scanFile, "-o", cliRules, "--json"});
        QVERIFY2(plan.exitCode == 0, qPrintable(plan.describe()));
        const QJsonObject cliPlan = QJsonDocument::fromJson(plan.out).object().value("plan").toObject();
        QCOMPARE(testsupport::readWholeFile(guiRules), testsupport::readWholeFile(cliRules));
        QCOMPARE(planner.basePresetName(), cliPlan.value("base_preset").toString());
        QCOMPARE(qint64(planner.result()->mix.fileBytes), cliPlan.value("file_bytes").toInteger());
        const qint64 planMs = clock.restart();

        // Convert with the plan, from the page; then the CLI with the plan's rules.
        const QString guiFile = dir.filePath("gui-plan.gguf");
        QSignalSpy converted(&page, &RecipePage::conversionFinished);
        QVERIFY(page.convertPlan(guiFile));
        QVERIFY(converted.count() == 1 || converted.wait(testsupport::kHangGuardMs));
        QVERIFY2(converted.first().at(0).toBool(), qPrintable(converted.first().at(1).toString()));
        const QString cliFile = dir.filePath("cli-plan.gguf");
        const auto convert = testsupport::runCli({"convert", source, cliFile, "--type", planner.basePresetName(), "--recipe", guiRules, "--quiet"});
        QVERIFY2(convert.exitCode == 0, qPrintable(convert.describe()));
        const QByteArray written = testsupport::readWholeFile(guiFile);
        QVERIFY(!written.isEmpty());
        QVERIFY(written == testsupport::readWholeFile(cliFile));  // not QCOMPARE: a megabyte in the log
        QCOMPARE(qint64(written.size()), qint64(planner.result()->mix.fileBytes));
        const qint64 convertMs = clock.restart();

        // The Output tab: the converted file against its source on the held-out text, chunks of 64.
        const auto reference = testsupport::openModelAt(source);
        const auto candidate = testsupport::openModelAt(guiFile);
        QVERIFY(reference && candidate);
        auto comparison = gguf::ModelComparison::create({reference, candidate}, {});
        QVERIFY2(comparison, comparison ? "" : comparison.error().toString().c_str());
        OutputErrorTab tab(*comparison);
        tab.resize(900, 600);
        tab.show();
        tab.setTextFile(heldOut);
        tab.chunkSize()->setValue(64);
        QSignalSpy ran(&tab, &OutputErrorTab::runFinished);
        tab.run();
        QVERIFY(ran.count() == 1 || ran.wait(testsupport::kHangGuardMs));
        QVERIFY2(ran.first().at(0).toBool(), qPrintable(ran.first().at(1).toString()));
        const auto result = tab.result();
        QVERIFY(result && result->comparisons.size() == 1);

        const auto kld = testsupport::runCli({"kld", source, cliFile, "--text-file", heldOut, "--chunk", "64", "--json"});
        QVERIFY2(kld.exitCode == 0, qPrintable(kld.describe()));
        const QJsonObject root = QJsonDocument::fromJson(kld.out).object();
        QCOMPARE(root.value("chunk_size").toInteger(), qint64{64});
        const qint64 tokens = root.value("tokens").toInteger();
        QVERIFY2(tokens >= 128, qPrintable(QString::number(tokens)));  // two chunks or more
        QCOMPARE(qint64(result->scoredPositions), tokens / 64 * (64 - 1 - 32));
        QCOMPARE(qint64(result->scoredPositions), root.value("scored_positions").toInteger());
        const QJsonObject cliKld = root.value("models").toArray().at(0).toObject().value("kld").toObject();
        const gguf::OutputComparison& shown = result->comparisons.front();
        QVERIFY(shown.kld.mean > 0);  // the plan changed the model
        QCOMPARE(shown.kld.mean, cliKld.value("mean").toDouble());
        QCOMPARE(shown.kld.median, cliKld.value("median").toDouble());
        QCOMPARE(shown.kld.maximum, cliKld.value("maximum").toDouble());
        QVERIFY2(tab.figuresInput().contains(QStringLiteral("chunks of 64")), qPrintable(tab.figuresInput()));
        qInfo("scan %lld ms (CLI %lld), plan %lld ms, convert %lld ms, output %lld ms; plan %s + %d rules, %lld bytes; held-out %lld tokens, "
              "%lld positions, mean KLD %.9g (tab) %.9g (kld --text-file)",
              scanMs, cliScanMs, planMs, convertMs, clock.elapsed(), qPrintable(planner.basePresetName()), int(planner.rules()->rules.size()),
              qint64(written.size()), tokens, qint64(result->scoredPositions), shown.kld.mean, cliKld.value("mean").toDouble());
    }
};

QTEST_MAIN(TestGuiScanToOutput)
#include "tst_gui_scan_to_output.moc"
