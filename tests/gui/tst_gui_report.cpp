// File › Export Report…'s writer (ReportExport): the open model's page drawn into the report as
// PNG images, a measured table the window holds read from its item model cell for cell, the
// report written in a background job, and the same figures as the CLI's `report` (one builder).

#include "OpenFixture.h"
#include "Waits.h"
#include "core/report/ModelReport.h"
#include "ui/session/ReportTables.h"
#include "ui/shell/ModelPage.h"
#include "ui/shell/ReportExport.h"

#include <QFile>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

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
};

QTEST_MAIN(TestGuiReport)
#include "tst_gui_report.moc"
