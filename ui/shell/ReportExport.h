#pragma once
// File › Export Report…: the open model's report (core/report/ModelReport.h) with what the
// window holds beside it, the measured tables it is given and its charts as PNG images, written
// in a background job (PNG encoding, building, a temporary file renamed into place). The charts
// are drawn on the GUI thread (a widget can only be painted there) into images; nothing else
// runs there.

#include "core/report/ModelReport.h"
#include "ui/session/JobRunner.h"

#include <QImage>
#include <QObject>
#include <functional>
#include <memory>
#include <vector>

class BackgroundJob;
class QCustomPlot;
class QTabWidget;
class QWidget;

class ReportExport : public QObject {
    Q_OBJECT
public:
    explicit ReportExport(QObject* parent = nullptr) : QObject(parent) {}
    // Every chart under `widget` that has data drawn: its image and title (the chart's export
    // title, else its name), in the order the widgets were made.
    void addChartsOf(QWidget* widget);
    void addTable(gguf::ReportTable table) { m_measured.push_back(std::move(table)); }
    // Every Compare tab among `windowTabs`: its totals, its Output tab's last KLD figures (when it
    // has run) and its charts.
    void addComparisonsOf(QTabWidget* windowTabs);
    // Builds and writes the report to `path` (Markdown for .md, else HTML); finished() says how.
    BackgroundJob* write(std::shared_ptr<const gguf::Model> model, const QString& path);

signals:
    // Empty `error` when the report was written.
    void finished(const QString& path, const QString& error);

private:
    struct Chart {
        QString title;
        QImage image;
    };
    std::vector<Chart> m_charts;
    std::vector<gguf::ReportTable> m_measured;
    JobRunner m_jobs{this};
};

class ModelPage;

// File › Export Report… for `page`: asks where (Markdown or HTML), then writes the report with
// the page's charts and, from the window's other tabs, every open comparison's totals, its
// Output tab's last KLD figures and its charts; `done` gets the line for the status bar.
void chooseAndExportReport(ModelPage* page, QTabWidget* windowTabs, QWidget* dialogParent, std::function<void(const QString&)> done);
