// The Recipe page's Sensitivity tab offscreen: a scan file opens into a layers x roles heatmap
// whose cells hold the file's mean KLD for the type picked, with each cell's figures on hover;
// the most and least sensitive lists are the file's extremes; the figures export as CSV and the
// heatmap as an image. A scan runs from the page in the background, with progress and an ETA,
// cancels, and resumes from its file. With a complete scan the planner plans by the KLD the scan
// predicts, and the frontier plot shows the presets, the weight-error plan and the scan plan at
// the figures the scan's cells add up to, and the KLD measured for the plans on a text (equal to
// `kld` of the file the scan plan converts to). The planner's held-out check gives the figures
// plan --scan --text-file gives, and offers the preset where the plan does not win.

#include "Fixtures.h"

#include "app/threads/ParallelRows.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "core/forward/OutputComparisonRun.h"
#include "core/recipe/ModelShape.h"
#include "core/recipe/QuantPresets.h"
#include "core/recipe/ErrorTable.h"
#include "core/recipe/MixPlanner.h"
#include "core/sensitivity/PlanHeldOutCheck.h"
#include "core/sensitivity/ScanFile.h"
#include "core/sensitivity/ScanGrid.h"
#include "core/tokenize/Tokenizer.h"
#include "core/types/GgmlType.h"
#include "ui/recipe/FrontierPlot.h"
#include "ui/recipe/MixPlannerView.h"
#include "ui/recipe/RecipePage.h"
#include "ui/recipe/ScanHeatmapPlot.h"
#include "ui/recipe/ScanRunPanel.h"
#include "ui/recipe/SensitivityView.h"
#include "ui/session/ScanProbeListModel.h"
#include "ui/session/CalibrationTokens.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <map>
#include <qcustomplot.h>

using testsupport::fixturePath;

namespace {

std::uint32_t typeId(const char* name)
{
    return gguf::findTypeByName(name)->id;
}

// A made-up KLD per group and type: deeper roles and fewer bits hurt more, the first block most,
// so the extremes and every cell are known without running a probe.
double madeUpKld(const gguf::ScanGroup& group, std::uint32_t type)
{
    const double bits = gguf::findType(type)->bitsPerWeight();
    const double place = group.layer < 0 ? (group.role == "output" ? 3.0 : 0.5) : 1.0 / double(group.layer + 1);
    return place * (1.0 + double(group.role.size()) / 10.0) * std::exp2(-1.5 * bits);
}

// The tiny model's real groups and probes (the reference run over 32 tokens), with made-up
// figures; `leaveOut` probes stay unmeasured.
// figures; `leaveOut` probes stay unmeasured. `scanned`: the tokens the scan says it evaluated
// (32 made-up ones when empty).
std::shared_ptr<gguf::ScanRecord> madeUpScan(const gguf::Model& model, std::vector<std::uint32_t> types, std::size_t leaveOut = 0,
                                             std::vector<std::int32_t> scanned = {})
{
    std::vector<std::int32_t> tokens = std::move(scanned);
    for (std::size_t i = tokens.size(); i < 32; ++i)
        tokens.push_back(std::int32_t(1 + i * 7 % 50));
    gguf::ScanOptions options;
    options.executor = &gguf::ParallelRows::shared();
    options.types = std::move(types);
    options.chunkSize = 32;
    options.bosToken = std::int32_t(model.metadataUInt("tokenizer.ggml.bos_token_id").value_or(1));  // as scan --text-file
    auto scan = gguf::SensitivityScan::prepare(model, tokens, options);
    if (!scan)
        return nullptr;
    auto record = std::make_shared<gguf::ScanRecord>(gguf::emptyRecord(**scan));
    for (std::size_t i = leaveOut; i < record->probes.size(); ++i) {
        gguf::ProbeFigures figures;
        figures.meanKld = madeUpKld(record->groups[record->probes[i].group], record->probes[i].type);
        figures.kldStandardError = figures.meanKld / 20;
        figures.trimmedKld = figures.meanKld / 8;
        figures.sameTopFraction = 1.0 - figures.meanKld;
        figures.meanDeltaTopProbability = -figures.meanKld / 3;
        figures.positions = 15;
        record->figures[i] = figures;
    }
    return record;
}

// The page shown at its planner, with `record` as its complete scan.
MixPlannerView& showPlannerWithScan(RecipePage& page, std::shared_ptr<const gguf::ScanRecord> record)
{
    page.resize(1100, 800);
    page.show();
    page.sensitivityView()->showRecord(std::move(record), "made-up.json");
    MixPlannerView& planner = *page.plannerView();
    page.sections()->setCurrentWidget(&planner);
    return planner;
}

// The scan's predicted KLD of a mix given as tensor name -> type: the sum of its cells.
double sumOfCells(const gguf::ScanRecord& record, const std::map<std::string, std::uint32_t>& types)
{
    double sum = 0.0;
    for (const auto& [tensor, type] : types)
        if (const gguf::ProbeFigures* f = gguf::findFigures(record, tensor, type))
            sum += f->meanKld;
    return sum;
}

}  // namespace

class TestGuiSensitivity : public QObject {
    Q_OBJECT

private slots:
    void heatmapShowsTheScanFile()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        const auto record = madeUpScan(*model, {typeId("q2_K"), typeId("q4_K"), typeId("q8_0")});
        QVERIFY(record);
        QTemporaryDir dir;
        const QString file = dir.filePath("scan.json");
        QVERIFY(gguf::writeScanFile(file.toStdString(), *record));

        RecipePage page(model);
        page.resize(1200, 800);
        page.show();
        page.sections()->setCurrentWidget(page.sensitivityView());
        SensitivityView& view = *page.sensitivityView();
        QSignalSpy loaded(&view, &SensitivityView::scanLoaded);
        QSignalSpy changed(&view, &SensitivityView::scanChanged);
        view.openScanFile(file);
        QVERIFY(loaded.count() == 1 || loaded.wait(testsupport::kHangGuardMs));
        QVERIFY2(loaded.first().at(0).toBool(), qPrintable(loaded.first().at(1).toString()));
        QCOMPARE(changed.count(), 1);
        QVERIFY(changed.first().at(0).value<std::shared_ptr<const gguf::ScanRecord>>());  // complete: the planner gets it

        // The type picker lists the scan's types; each shows its own cells.
        QComboBox& types = *view.typeBox();
        QCOMPARE(types.count(), 3);
        QCOMPARE(types.itemText(0), QStringLiteral("q2_K"));
        ScanHeatmapPlot& heatmap = *view.heatmap();
        for (int t = 0; t < types.count(); ++t) {
            types.setCurrentIndex(t);
            const std::uint32_t type = types.currentData().toUInt();
            const gguf::ScanGrid& grid = heatmap.grid();
            QCOMPARE(grid.type, type);
            QCOMPARE(grid.layers, (std::vector<std::int64_t>{-1, 0, 1}));  // model, blk.0, blk.1
            QCOMPARE(grid.measured, record->groups.size());
            for (std::size_t g = 0; g < record->groups.size(); ++g) {
                const gguf::ScanGroup& group = record->groups[g];
                const std::size_t row = group.layer < 0 ? 0 : std::size_t(group.layer) + 1;
                const auto column = std::size_t(std::find(grid.roles.begin(), grid.roles.end(), group.role) - grid.roles.begin());
                QVERIFY(column < grid.roles.size());
                const double kld = madeUpKld(group, type);
                QCOMPARE(heatmap.colorMap()->data()->cell(int(column), int(row)), kld);
                const QString text = heatmap.cellText(row, column);
                QVERIFY2(text.contains(QString::fromStdString(group.tensor)) && text.contains(QString::number(kld, 'g', 4))
                             && text.contains(QStringLiteral("top-1 agreement %1 %").arg(100.0 * (1.0 - kld), 0, 'f', 2))
                             && text.contains(QStringLiteral("Δp %1").arg(-kld / 3, 0, 'g', 3))
                             && text.contains(QStringLiteral("trimmed mean %1").arg(kld / 8, 0, 'g', 4)),
                         qPrintable(text));
            }
            // Lists: the extremes of this type, most sensitive first / least first.
            const std::vector<std::size_t> ranked = gguf::rankedProbes(*record, type);
            const ScanProbeListModel& most = *view.mostSensitive();
            const ScanProbeListModel& least = *view.leastSensitive();
            QAbstractItemModelTester mostTester(view.mostSensitive(), QAbstractItemModelTester::FailureReportingMode::QtTest);
            QVERIFY(most.rowCount() > 0 && most.rowCount() == least.rowCount());
            QCOMPARE(most.index(0, 0).data().toString(), QString::fromStdString(record->groups[record->probes[ranked.front()].group].tensor));
            QCOMPARE(least.index(0, 0).data().toString(), QString::fromStdString(record->groups[record->probes[ranked.back()].group].tensor));
            QCOMPARE(most.index(0, 0).data().toString(), QStringLiteral("output.weight"));  // the made-up figures' worst
            for (int r = 1; r < most.rowCount(); ++r)
                QVERIFY(most.index(r - 1, 1).data().toString().toDouble() >= most.index(r, 1).data().toString().toDouble());
            // The trimmed mean beside the mean.
            QCOMPARE(most.headerData(2, Qt::Horizontal).toString(), QStringLiteral("trimmed"));
            const double worstKld = record->figures[ranked.front()]->meanKld;
            QCOMPARE(most.index(0, 2).data().toString(), QString::number(worstKld / 8, 'g', 4));
        }

        // Hovering a cell shows its figures: the middle of blk.0's attn_q.
        types.setCurrentIndex(1);
        QCustomPlot* plot = heatmap.plot();
        plot->replot();
        const auto& roles = heatmap.grid().roles;
        const auto attnQ = double(std::find(roles.begin(), roles.end(), "attn_q") - roles.begin());
        const QPoint at(int(plot->xAxis->coordToPixel(attnQ)), int(plot->yAxis->coordToPixel(1)));
        QMouseEvent move(QEvent::MouseMove, QPointF(at), plot->mapToGlobal(QPointF(at)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(plot, &move);
        QCOMPARE(heatmap.hoverText(), heatmap.cellText(1, std::size_t(attnQ)));
        QVERIFY2(heatmap.hoverText().startsWith(QStringLiteral("blk.0.attn_q.weight as q4_K: mean KLD")), qPrintable(heatmap.hoverText()));

        // Everything exports: every probe's figures as CSV, the heatmap as an image.
        const QString csv = dir.filePath("figures.csv");
        QCOMPARE(view.exportFigures(csv), QString());
        const QByteArray written = testsupport::readWholeFile(csv);
        QCOMPARE(written, QByteArray::fromStdString(gguf::scanFiguresCsv(*record)));
        QCOMPARE(written.count('\n'), qsizetype(record->probes.size() + 1));
        QVERIFY(written.startsWith("tensor,layer,role,type,mean_kld,kld_error,kld_trimmed,same_top,"));
        const QList<QByteArray> firstProbe = written.split('\n').at(1).split(',');
        QCOMPARE(firstProbe.size(), 10);
        QVERIFY2(std::abs(firstProbe.at(6).toDouble() - firstProbe.at(4).toDouble() / 8) <= 1e-8 * firstProbe.at(4).toDouble(), written.constData());
        const QString png = dir.filePath("heatmap.png");
        QCOMPARE(view.exportHeatmap(png), QString());
        QImage image(png);
        QVERIFY(!image.isNull() && image.width() > 100);
    }

    // Before a scan is opened, and after it is closed, the plot is empty; it used to be one
    // solid square, the colour map's default cells stretched over the whole plot.
    void emptyHeatmapIsNotASolidSquare()
    {
        // The share of the plot's pixels that are not the background (the hatch of undefined
        // cells covers a small part; drawn cells cover it all).
        const auto paintedCells = [](ScanHeatmapPlot& heatmap) {
            const QImage image = heatmap.plot()->toPixmap(500, 400).toImage();
            const QRect area = heatmap.plot()->axisRect()->rect().adjusted(4, 4, -4, -4);
            const QColor background = heatmap.plot()->palette().color(QPalette::Base);
            int painted = 0;
            int all = 0;
            for (int y = area.top(); y < area.bottom(); y += 3)
                for (int x = area.left(); x < area.right(); x += 3, ++all)
                    painted += image.pixelColor(x, y) != background ? 1 : 0;
            return double(painted) / all;
        };
        ScanHeatmapPlot heatmap;
        heatmap.resize(500, 400);
        heatmap.QWidget::show();
        QVERIFY2(paintedCells(heatmap) < 0.3, qPrintable(QString::number(paintedCells(heatmap))));

        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        const auto record = madeUpScan(*model, {typeId("q2_K")});
        QVERIFY(record);
        heatmap.show(record, typeId("q2_K"));
        QVERIFY(heatmap.colorMap()->visible());
        QVERIFY2(paintedCells(heatmap) > 0.6, qPrintable(QString::number(paintedCells(heatmap))));  // cells drawn: the check can fail
        heatmap.show(nullptr, typeId("q2_K"));
        QVERIFY2(paintedCells(heatmap) < 0.3, qPrintable(QString::number(paintedCells(heatmap))));
    }

    void partialScanIsShownButNotPlanned()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        const auto record = madeUpScan(*model, {typeId("q4_K")}, 1);
        QVERIFY(record);
        SensitivityView view(model);
        QSignalSpy changed(&view, &SensitivityView::scanChanged);
        view.showRecord(record, "partial.json");
        QCOMPARE(changed.count(), 1);
        QVERIFY(!changed.first().at(0).value<std::shared_ptr<const gguf::ScanRecord>>());
        QVERIFY(view.summaryText().contains(QStringLiteral("Partial")));
        const gguf::ScanGrid& grid = view.heatmap()->grid();
        QCOMPARE(grid.measured, record->groups.size() - 1);
        // The unmeasured probe's cell is empty (NaN: hatched), not a colour of the scale.
        const gguf::ScanGroup& missing = record->groups[record->probes[0].group];
        const std::size_t row = missing.layer < 0 ? 0 : std::size_t(missing.layer) + 1;
        const auto column = int(std::find(grid.roles.begin(), grid.roles.end(), missing.role) - grid.roles.begin());
        QVERIFY(std::isnan(view.heatmap()->colorMap()->data()->cell(column, int(row))));
        QVERIFY(view.heatmap()->cellText(row, std::size_t(column)).isEmpty());
    }

    // The scan runs on the job pool with progress and Cancel; a cancelled run leaves a file that
    // the next run with the same settings resumes; the finished file opens in the tab.
    void scanRunsCancelsAndResumes()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        QTemporaryDir dir;
        QFile text(dir.filePath("calibration.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        for (int i = 0; i < 40; ++i)
            text.write("The quick brown fox jumps over the lazy dog while the cat sleeps. ");
        text.close();
        SensitivityView view(model);
        ScanRunPanel& panel = *view.runPanel();
        ScanRunSettings settings;
        settings.textFile = text.fileName();
        settings.scanFile = dir.filePath("run.scan.json");
        settings.maxTokens = 64;
        settings.chunk = 32;
        settings.types = QStringLiteral("q4_K, q8_0");
        QSignalSpy finished(&panel, &ScanRunPanel::finished);
        QSignalSpy loaded(&view, &SensitivityView::scanLoaded);

        panel.start(settings);
        QVERIFY(panel.isRunning());
        panel.cancel();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY2(finished.first().at(1).toString().contains(QStringLiteral("cancelled")), qPrintable(finished.first().at(1).toString()));
        QVERIFY(!panel.isRunning());

        finished.clear();
        loaded.clear();
        QStringList reports;
        QTimer watch;
        connect(&watch, &QTimer::timeout, this, [&]() {
            if (reports.isEmpty() || reports.back() != panel.progressText())
                reports << panel.progressText();
        });
        watch.start(0);
        panel.start(settings);
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        watch.stop();
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QCOMPARE(finished.first().at(2).toString(), settings.scanFile);
        // Progress was shown probe by probe, with a time left once a probe had been timed.
        QVERIFY2(std::any_of(reports.begin(), reports.end(), [](const QString& r) { return r.contains(QStringLiteral("probe ")); }),
                 qPrintable(reports.join('|')));
        QVERIFY2(std::any_of(reports.begin(), reports.end(), [](const QString& r) { return r.contains(QStringLiteral("ETA")); }),
                 qPrintable(reports.join('|')));
        QVERIFY(loaded.count() == 1 || loaded.wait(testsupport::kHangGuardMs));
        const auto record = view.record();
        QVERIFY(record);
        QCOMPARE(record->measured(), record->probes.size());
        QCOMPARE(record->identity.tokens, std::int64_t{64});
        QCOMPARE(record->identity.types, (std::vector<std::uint32_t>{typeId("q4_K"), typeId("q8_0")}));
        QCOMPARE(view.typeBox()->count(), 2);
        // Fewer bits hurt more, for every group.
        for (const gguf::ScanGroup& group : record->groups) {
            const gguf::ProbeFigures* q4 = gguf::findFigures(*record, group.tensor, typeId("q4_K"));
            const gguf::ProbeFigures* q8 = gguf::findFigures(*record, group.tensor, typeId("q8_0"));
            QVERIFY(q4 && q8);
            QVERIFY2(q4->meanKld > q8->meanKld, group.tensor.c_str());
        }
        // Another text is another scan: the file is not resumed into it.
        QFile other(dir.filePath("other.txt"));
        QVERIFY(other.open(QIODevice::WriteOnly));
        for (int i = 0; i < 40; ++i)
            other.write("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ");
        other.close();
        settings.textFile = other.fileName();
        finished.clear();
        panel.start(settings);
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY(finished.first().at(1).toString().contains(QStringLiteral("another model, text or settings")));
    }

    // With a complete scan the plan is by predicted KLD: the plot's presets and both plans sit
    // at the sums of the scan's cells for their types.
    void frontierShowsPresetsWeightPlanAndScanPlan()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        const auto record = madeUpScan(*model, gguf::defaultScanTypes(false));
        QVERIFY(record);
        RecipePage page(model);
        MixPlannerView& planner = showPlannerWithScan(page, record);
        QSignalSpy finished(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText("1.2MB");
        planner.plan();
        QVERIFY(finished.count() == 1 || finished.wait(testsupport::kHangGuardMs));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(planner.plannedByScan());
        QVERIFY(planner.result()->mix.fileBytes <= 1200000);

        QCustomPlot* plot = planner.plot();
        QCOMPARE(plot->graphCount(), 4);  // frontier, presets, scan plan, weight-error plan
        QVERIFY(plot->yAxis->label().contains(QStringLiteral("predicted KLD")));
        QCOMPARE(plot->graph(2)->name(), QStringLiteral("scan plan"));
        QCOMPARE(plot->graph(3)->name(), QStringLiteral("weight-error plan"));

        // Q4_K_M on the plot at the sum of the scan's cells for llama-quantize's Q4_K_M types.
        gguf::RecipeOptions options;
        options.preset = gguf::findQuantPreset("Q4_K_M");
        auto recipe = gguf::computeRecipe(gguf::readModelShape(*model), model->tensors(), options);
        QVERIFY(recipe);
        std::map<std::string, std::uint32_t> q4km;
        for (const gguf::RecipeTensor& t : recipe->tensors)
            q4km[std::string(t.source->name)] = t.typeId;
        bool found = false;
        for (const gguf::PresetOnFrontier& point : planner.presets())
            if (point.preset == options.preset) {
                QVERIFY(point.evaluated);
                QVERIFY(std::abs(point.mix.error - sumOfCells(*record, q4km)) <= 1e-12 * sumOfCells(*record, q4km));
                found = true;
                bool plotted = false;
                for (auto it = plot->graph(1)->data()->begin(); it != plot->graph(1)->data()->end(); ++it)
                    plotted |= it->value == point.mix.error && std::abs(it->key * 1048576.0 - double(point.mix.fileBytes)) < 1.0;
                QVERIFY(plotted);
            }
        QVERIFY(found);
        // The scan plan and the weight-error plan: both at their predicted KLD.
        QVERIFY(planner.weightPlan() && planner.weightPlanPredictedKld());
        QCOMPARE(plot->graph(2)->data()->at(0)->value, planner.result()->mix.error);
        QCOMPARE(plot->graph(3)->data()->at(0)->value, *planner.weightPlanPredictedKld());
        // The tooltip of the scan plan's point names it and its figure.
        plot->replot();
        const QPoint star(int(plot->xAxis->coordToPixel(plot->graph(2)->data()->at(0)->key)), int(plot->yAxis->coordToPixel(plot->graph(2)->data()->at(0)->value)));
        const QString tip = planner.frontierPlot()->toolTipAt(star);
        QVERIFY2(tip.startsWith(QStringLiteral("scan plan")) && tip.contains(QStringLiteral("predicted KLD")), qPrintable(tip));
        QVERIFY(planner.commandText().endsWith(QLatin1Char(' ') + planner.basePresetName()));

        // Measured: the plans and the best preset run over a text; each ring is at the KLD
        // that `kld` gives for the file the plan converts to.
        QTemporaryDir dir;
        QFile text(dir.filePath("held-out.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        for (int i = 0; i < 30; ++i)
            text.write("Once upon a time a small model read a short story and guessed the next word. ");
        text.close();
        QVERIFY(planner.measureButton()->isEnabled());
        QSignalSpy measured(&planner, &MixPlannerView::kldMeasured);
        planner.measureKld(text.fileName());
        QVERIFY(measured.count() == 1 || measured.wait(testsupport::kHangGuardMs));
        QVERIFY2(measured.first().at(0).toBool(), qPrintable(measured.first().at(1).toString()));
        const auto& figures = planner.measuredKld();
        QCOMPARE(int(figures.size()), 3);
        QCOMPARE(figures[0].first, QStringLiteral("scan plan"));
        QCOMPARE(figures[1].first, QStringLiteral("weight-error plan"));
        QCOMPARE(figures[2].first, QString::fromUtf8(planner.result()->bestPresetWithin->name.data(), int(planner.result()->bestPresetWithin->name.size())));
        QCOMPARE(plot->graphCount(), 5);
        QCOMPARE(plot->graph(4)->name(), QStringLiteral("measured KLD"));
        QCOMPARE(plot->graph(4)->dataCount(), 3);
        QVERIFY(plot->yAxis->label().contains(QStringLiteral("measured")));
        QSignalSpy converted(&page, &RecipePage::conversionFinished);
        QVERIFY(page.convertPlan(dir.filePath("scan-plan.gguf")));
        QVERIFY(converted.count() == 1 || converted.wait(testsupport::kHangGuardMs));
        QVERIFY2(converted.first().at(0).toBool(), qPrintable(converted.first().at(1).toString()));
        const auto written = testsupport::openModelAt(dir.filePath("scan-plan.gguf"));
        QVERIFY(written);
        auto tokenizer = gguf::Tokenizer::fromModel(*model);
        QVERIFY(tokenizer);
        std::vector<std::int32_t> tokens = tokenizer.value().encode(testsupport::readWholeFile(text.fileName()).toStdString(), true, true);
        tokens.resize(std::size_t(record->identity.tokens));
        gguf::OutputCandidate file;
        file.label = "file";
        file.model = written.get();
        gguf::OutputRunOptions run;
        run.executor = &gguf::ParallelRows::shared();
        run.chunkSize = record->identity.chunkSize;
        run.bosToken = std::int32_t(*model->metadataUInt("tokenizer.ggml.bos_token_id"));
        auto kld = gguf::compareModelOutputs(*model, {file}, tokens, run);
        QVERIFY2(kld, kld ? "" : kld.error().toString().c_str());
        QCOMPARE(figures[0].second, kld->comparisons[0].kld.mean);

        // Without the scan the next plan is by weight error again.
        page.sensitivityView()->showRecord(nullptr, {});
        finished.clear();
        planner.plan();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!planner.plannedByScan());
        QCOMPARE(plot->graphCount(), 3);
        QVERIFY(!plot->yAxis->label().contains(QStringLiteral("KLD")));
    }

    // The held-out check of plan --scan --text-file in the planner: the same core function, so
    // the same figures; the scan's own text is measured past its tokens, another text whole; the
    // preset is offered (its rules, alone) where the plan does not win beyond the noise; Cancel
    // stops it.
    void heldOutCheckIsThePlanCommands()
    {
        const auto model = testsupport::openFixtureModel("tiny-llama-F32.gguf");
        QVERIFY(model);
        QTemporaryDir dir;
        const QString scanText = dir.filePath("calibration.txt");
        QFile gpl(QStringLiteral("/usr/share/common-licenses/GPL-3"));
        QVERIFY(gpl.open(QIODevice::ReadOnly));
        QFile calibration(scanText);
        QVERIFY(calibration.open(QIODevice::WriteOnly));
        calibration.write(gpl.read(2500));
        calibration.close();
        auto tokens = calibrationTokens(*model, scanText.toStdString());
        QVERIFY2(tokens && tokens->size() > 32 + 64, tokens ? "short" : tokens.error().toString().c_str());
        const auto record = madeUpScan(*model, gguf::defaultScanTypes(false), 0, std::vector<std::int32_t>(tokens->begin(), tokens->begin() + 32));
        QVERIFY(record);
        RecipePage page(model);
        MixPlannerView& planner = showPlannerWithScan(page, record);
        QSignalSpy planned(&planner, &MixPlannerView::planFinished);
        planner.setBudgetText("1.2MB");
        planner.plan();
        QVERIFY(planned.count() == 1 || planned.wait(testsupport::kHangGuardMs));
        QVERIFY(planner.plannedByScan());
        QVERIFY(planner.heldOutButton()->isEnabled());
        planner.heldOutTokens()->setValue(128);

        // What plan --scan --text-file runs: the weight table's presets, the plan, the budget.
        gguf::ErrorTableOptions tableOptions;
        tableOptions.executor = &gguf::ParallelRows::shared();
        auto table = gguf::measureErrorTable(*model, tableOptions);
        QVERIFY(table);
        auto context = gguf::makePlanContext(*model, *table, false, std::nullopt);
        QVERIFY(context);
        const auto budget = gguf::parseBudget("1.2MB");
        QVERIFY(budget);
        const auto expected = [&](gguf::HeldOutSource source, const std::vector<std::int32_t>& text) {
            gguf::PlanHeldOutRequest request;
            request.source = source;
            request.most = 128;
            request.executor = &gguf::ParallelRows::shared();
            return gguf::measurePlanOnHeldOutText(*model, *record, text, *table, planner.result()->mix, gguf::evaluatePresets(*context), *budget, request);
        };

        QSignalSpy checked(&planner, &MixPlannerView::heldOutChecked);
        const auto check = [&](const QString& file) {
            checked.clear();
            planner.checkHeldOut(file);
            QVERIFY(checked.count() == 1 || checked.wait(testsupport::kHangGuardMs));
        };
        const auto sameFigures = [&](const gguf::HeldOutResult& shown, const gguf::HeldOutResult& cli) {
            QCOMPARE(shown.firstToken, cli.firstToken);
            QCOMPARE(shown.tokens, cli.tokens);
            QCOMPARE(shown.positions, cli.positions);
            QCOMPARE(shown.mixes.size(), cli.mixes.size());
            for (std::size_t m = 0; m < cli.mixes.size(); ++m) {
                QCOMPARE(shown.mixes[m].label, cli.mixes[m].label);
                QCOMPARE(shown.mixes[m].meanKld, cli.mixes[m].meanKld);
                QCOMPARE(shown.mixes[m].differenceMean, cli.mixes[m].differenceMean);
                QCOMPARE(shown.mixes[m].differenceError, cli.mixes[m].differenceError);
            }
            QCOMPARE(shown.bestPreset, cli.bestPreset);
            QCOMPARE(shown.planWins, cli.planWins);
        };

        // The scan's own text: the tokens past the scan's 32.
        check(scanText);
        QVERIFY2(checked.first().at(0).toBool(), qPrintable(checked.first().at(1).toString()));
        const auto pastTheScan = expected(gguf::HeldOutSource::PastTheScan, *tokens);
        QVERIFY2(pastTheScan, pastTheScan ? "" : pastTheScan.error().toString().c_str());
        QVERIFY(planner.heldOutResult());
        sameFigures(*planner.heldOutResult(), *pastTheScan);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(pastTheScan->firstToken, 32);
        QCOMPARE(pastTheScan->mixes.size(), std::size_t(3));  // the plan and the two largest presets within the budget
        const QString summary = planner.heldOutText();
        QVERIFY2(summary.contains(QStringLiteral("past the scan's 32")) && summary.contains(QStringLiteral("minus the plan, per position")),
                 qPrintable(summary));
        const gguf::MeasuredMix& best = pastTheScan->mixes[pastTheScan->bestPreset];
        QVERIFY(summary.contains(QStringLiteral("%1 ± %2").arg(best.differenceMean, 0, 'f', 6).arg(best.differenceError, 0, 'f', 6)));
        if (pastTheScan->planWins) {
            QVERIFY(summary.contains(QStringLiteral("the plan is offered")));
        } else {  // the preset alone, as plan -o writes it
            QVERIFY2(summary.contains(QStringLiteral("is the better choice")), qPrintable(summary));
            QCOMPARE(planner.basePresetName(), QString::fromStdString(best.label));
            QVERIFY(planner.rules()->rules.empty() && planner.rulesFileText().isEmpty());
        }
        qInfo("held out past the scan: plan %.6f, %s %.6f, difference %.6f +- %.6f: %s offered", pastTheScan->mixes[0].meanKld, best.label.c_str(),
              best.meanKld, best.differenceMean, best.differenceError, pastTheScan->planWins ? "the plan" : "the preset");

        // A text of its own: all of it held out.
        planned.clear();
        planner.plan();  // the plan again, its rules restored
        QCOMPARE(planned.count(), 1);
        QVERIFY(planner.heldOutText().isEmpty());
        const QString other = dir.filePath("other.txt");
        QFile otherText(other);
        QVERIFY(otherText.open(QIODevice::WriteOnly));
        for (int i = 0; i < 20; ++i)
            otherText.write("Once upon a time a small model read a short story and guessed the next word. ");
        otherText.close();
        check(other);
        QVERIFY2(checked.first().at(0).toBool(), qPrintable(checked.first().at(1).toString()));
        auto otherTokens = calibrationTokens(*model, other.toStdString());
        QVERIFY(otherTokens);
        const auto ownText = expected(gguf::HeldOutSource::OwnText, *otherTokens);
        QVERIFY(ownText);
        sameFigures(*planner.heldOutResult(), *ownText);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(ownText->firstToken, 0);
        QVERIFY(planner.heldOutText().contains(QStringLiteral("a text of its own")));

        // Cancel: the check stops and says so; the button is back.
        planned.clear();
        planner.plan();
        planner.heldOutTokens()->setValue(1 << 20);
        checked.clear();
        planner.checkHeldOut(scanText);
        planner.cancel();
        QVERIFY(checked.count() == 1 || checked.wait(testsupport::kHangGuardMs));
        QVERIFY(!checked.first().at(0).toBool());
        QVERIFY(!planner.heldOutResult());
        QVERIFY(planner.heldOutButton()->isEnabled());
    }
};

QTEST_MAIN(TestGuiSensitivity)
#include "tst_gui_sensitivity.moc"
