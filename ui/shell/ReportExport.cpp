#include "ui/shell/ReportExport.h"

#include "ui/common/ExportLocation.h"
#include "ui/common/FileDialogs.h"
#include "ui/common/PlotExportMenu.h"
#include "ui/compare/ComparePage.h"
#include "ui/output/OutputErrorTab.h"
#include "ui/session/BackgroundJob.h"
#include "ui/session/ComparisonTableModel.h"
#include "ui/session/ComparisonTotalsModel.h"
#include "ui/session/ReportTables.h"
#include "ui/shell/ModelPage.h"

#include <QBuffer>
#include <QFileInfo>
#include <QTabWidget>
#include <QWidget>
#include <qcustomplot.h>

namespace {
constexpr int kChartWidth = 900;
constexpr int kChartHeight = 420;

bool hasData(QCustomPlot* plot)
{
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* plottable = plot->plottable(i);
        if (QCPPlottableInterface1D* data = plottable->interface1D(); data && data->dataCount() > 0)
            return true;
        if (auto* map = qobject_cast<QCPColorMap*>(plottable); map && map->data()->keySize() > 0)
            return true;
    }
    return false;
}
}  // namespace

void ReportExport::addChartsOf(QWidget* widget)
{
    for (QCustomPlot* plot : widget->findChildren<QCustomPlot*>()) {
        if (!hasData(plot))
            continue;
        const QString title = hasPlotExport(plot) ? plotExportTitle(plot) : plot->objectName();
        m_charts.push_back({title, plot->toPixmap(kChartWidth, kChartHeight).toImage()});
    }
}

void ReportExport::addComparisonsOf(QTabWidget* windowTabs)
{
    for (int i = 0; windowTabs && i < windowTabs->count(); ++i) {
        auto* compare = qobject_cast<ComparePage*>(windowTabs->widget(i));
        if (!compare)
            continue;
        addTable(reportTableOf(*compare->totalsModel(), tr("Comparison: %1").arg(windowTabs->tabText(i)), {}, compare->tableModel()));
        if (const auto* output = compare->findChild<OutputErrorTab*>(); output && output->result())
            addTable(output->reportTable(tr("Output KLD: %1").arg(windowTabs->tabText(i))));
        addChartsOf(compare);
    }
}

BackgroundJob* ReportExport::write(std::shared_ptr<const gguf::Model> model, const QString& path)
{
    gguf::ReportExtras extras;
    extras.measured = m_measured;
    BackgroundJob* job = m_jobs.run(
        [model, path, extras, charts = m_charts](const JobControl&) mutable -> gguf::Result<bool> {
            for (const Chart& chart : charts) {
                QByteArray png;
                QBuffer buffer(&png);
                buffer.open(QIODevice::WriteOnly);
                chart.image.save(&buffer, "PNG");
                extras.images.push_back({chart.title.toStdString(), png.toStdString()});
            }
            const std::string text = gguf::buildModelReport(*model, gguf::reportFormatForPath(path.toStdString()), extras);
            if (gguf::Status written = gguf::writeReportFile(path.toStdString(), text); !written)
                return written.error();
            return true;
        },
        [this, path](bool) { emit finished(path, QString()); },
        [this, path](const JobOutcome& outcome) { emit finished(path, outcome.isCancelled() ? tr("cancelled") : outcome.message()); });
    return job;
}

void chooseAndExportReport(ModelPage* page, QTabWidget* windowTabs, QWidget* dialogParent, std::function<void(const QString&)> done)
{
    if (!page) {
        done(QObject::tr("Open a model to export its report first"));
        return;
    }
    const QString modelPath = QString::fromStdString(page->model().primary().path());
    const QString proposal = proposedExportPath(modelPath, QFileInfo(modelPath).completeBaseName() + QStringLiteral("-report.html"));
    const QString path = askSaveFileName(dialogParent, QObject::tr("Export Report"), proposal,
                                         QObject::tr("HTML (*.html *.htm);;Markdown (*.md *.markdown)"));
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    auto* report = new ReportExport(page);
    report->addChartsOf(page);
    report->addComparisonsOf(windowTabs);
    QObject::connect(report, &ReportExport::finished, page, [report, done](const QString& written, const QString& error) {
        done(error.isEmpty() ? QObject::tr("Report written to %1").arg(written) : QObject::tr("Report not written: %1").arg(error));
        report->deleteLater();
    });
    report->write(page->sharedModel(), path);
}
