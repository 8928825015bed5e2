// File › Export Report…'s writer (ReportExport): the open model's page drawn into the report as
// PNG images, a measured table the window holds read from its item model cell for cell, the
// report written in a background job, and the same figures as the CLI's `report` (one builder).

#include "OpenFixture.h"
#include "Screenshot.h"
#include "Waits.h"
#include "core/report/ModelReport.h"
#include "ui/compare/ComparePage.h"
#include "ui/output/OutputErrorTab.h"
#include "ui/session/ComparisonTableModel.h"
#include "ui/session/ReportTables.h"
#include "ui/shell/ModelPage.h"
#include "ui/shell/ReportExport.h"

#include <QFile>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QScrollBar>
#include <QTextBrowser>

using namespace testsupport;

class TestGuiReport : public QObject {
    Q_OBJECT
private slots:
    void reportHoldsChartsAndMeasuredTables()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        ModelPage page(model);
        page.resize(1000, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());

        QStandardItemModel measured(1, 2);
        measured.setHorizontalHeaderLabels({QStringLiteral("tensor"), QStringLiteral("relative RMSE")});
        measured.setItem(0, 0, new QStandardItem(QStringLiteral("blk.0.attn_q.weight <q4_K>")));
        measured.setItem(0, 1, new QStandardItem(QStringLiteral("0.0625")));

        ReportExport report;
        report.addChartsOf(&page);
        report.addTable(reportTableOf(measured, QStringLiteral("Comparison: Q4_K against F32")));
        QSignalSpy finished(&report, &ReportExport::finished);
        const QString path = dir.filePath(QStringLiteral("report.html"));
        QVERIFY(report.write(model, path));
        QVERIFY(finished.wait(kHangGuardMs));
        QCOMPARE(finished.front().at(1).toString(), QString());

        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray html = file.readAll();
        // The Overview's two charts, as images with their names.
        QCOMPARE(html.count("<img "), 2);
        QVERIFY(html.contains("src=\"data:image/png;base64,iVBORw0KGgo"));  // the PNG signature, base64
        QVERIFY(html.contains("<figcaption>typeBytesPlot</figcaption>"));
        QVERIFY(html.contains("<figcaption>layerBytesPlot</figcaption>"));
        // The measured table as the model shows it, escaped.
        QVERIFY(html.contains("<h2>Comparison: Q4_K against F32</h2>"));
        QVERIFY(html.contains("<tr><th>tensor</th><th>relative RMSE</th></tr>"));
        QVERIFY(html.contains("<tr><td>blk.0.attn_q.weight &lt;q4_K&gt;</td><td>0.0625</td></tr>"));
        // Everything else is the builder's, as the CLI writes it: the report without the window's
        // additions is a prefix up to the first measured section.
        const std::string plain = gguf::buildModelReport(*model, gguf::ReportFormat::Html);
        const std::string common = plain.substr(0, plain.find("<h2>Metadata</h2>"));
        QVERIFY(html.toStdString().rfind(common, 0) == 0);
    }

    // A Compare tab whose Output tab has run: the report holds its KLD figures, a row per compared
    // model with the cells the tab's summary shows, and the input they belong to.
    void reportHoldsTheOutputTabsKld()
    {
        std::vector<std::shared_ptr<const gguf::Model>> models;
        for (const char* name : {"tiny-llama-F32.gguf", "tiny-llama-Q2_K.gguf"}) {
            models.push_back(openFixtureModel(QString::fromLatin1(name)));
            QVERIFY(models.back());
        }
        QTabWidget window;
        auto* compare = new ComparePage(models, {});
        QSignalSpy compared(compare, &ComparePage::comparisonFinished);
        window.addTab(compare, QStringLiteral("Q2_K against F32"));
        QVERIFY(compared.wait(kHangGuardMs));
        auto* output = compare->findChild<OutputErrorTab*>();
        QVERIFY(output);

        ReportExport before;  // no run yet: no KLD table
        before.addComparisonsOf(&window);
        output->setTokens(QStringLiteral("3,56,109,162,215,268,321,374"));
        QSignalSpy ran(output, &OutputErrorTab::runFinished);
        output->run();
        QVERIFY(ran.wait(kHangGuardMs));
        QVERIFY(ran.first().at(0).toBool());
        const gguf::OutputComparison& figures = output->result()->comparisons.at(0);

        ReportExport report;
        report.addComparisonsOf(&window);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("report.html"));
        QSignalSpy finished(&report, &ReportExport::finished);
        QVERIFY(report.write(models[0], path));
        QVERIFY(finished.wait(kHangGuardMs));
        QCOMPARE(finished.front().at(1).toString(), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray html = file.readAll();
        // The totals under the comparison table's own column titles (the totals model has none).
        QByteArray titles = "<tr>";
        for (int column = 0; column < compare->tableModel()->columnCount(); ++column)
            titles.append("<th>").append(compare->tableModel()->headerData(column, Qt::Horizontal).toString().toHtmlEscaped().toUtf8()).append("</th>");
        QVERIFY2(html.contains(titles.append("</tr>")), titles.constData());
        QVERIFY(!html.contains("<th>1</th>"));
        QVERIFY(html.contains("<h2>Output KLD: Q2_K against F32</h2>"));
        QVERIFY(html.contains("<th>mean KLD</th>"));
        QByteArray cells = "</td><td>";
        cells.append(QByteArray::number(figures.kld.mean, 'g', 4)).append("</td><td>").append(QByteArray::number(figures.kld.meanError, 'g', 2));
        QVERIFY2(html.contains(cells), cells.constData());
        QByteArray sameTop = "<td>";
        sameTop.append(QByteArray::number(100.0 * figures.sameTopFraction, 'f', 1)).append("</td>");
        QVERIFY2(html.contains(sameTop), sameTop.constData());
        QVERIFY(html.contains("7 positions scored on"));

        // The report as a reader's browser shows it, from the memory estimate on (docs/screenshots).
        QTextBrowser shown;
        shown.resize(1000, 1000);
        shown.setHtml(QString::fromUtf8(html));
        shown.show();
        QVERIFY(QTest::qWaitForWindowExposed(&shown));
        QVERIFY(shown.find(QStringLiteral("Memory estimate")));
        shown.verticalScrollBar()->setValue(shown.cursorRect().top() + shown.verticalScrollBar()->value() - 8);
        QTextCursor unselected = shown.textCursor();
        unselected.clearSelection();
        shown.setTextCursor(unselected);
        QVERIFY(saveScreenshot(shown, QStringLiteral("report")));

        QSignalSpy finishedBefore(&before, &ReportExport::finished);
        const QString beforePath = dir.filePath(QStringLiteral("before.html"));
        QVERIFY(before.write(models[0], beforePath));
        QVERIFY(finishedBefore.wait(kHangGuardMs));
        QFile beforeFile(beforePath);
        QVERIFY(beforeFile.open(QIODevice::ReadOnly));
        const QByteArray beforeHtml = beforeFile.readAll();
        QVERIFY(beforeHtml.contains("<h2>Comparison: Q2_K against F32</h2>"));
        QVERIFY(!beforeHtml.contains("Output KLD"));
    }
};

QTEST_MAIN(TestGuiReport)
#include "tst_gui_report.moc"
