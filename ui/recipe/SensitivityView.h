#pragma once
// The Recipe page's Sensitivity tab: a sensitivity scan's figures, opened from a scan file
// (`gguf-explorer-cli scan -o`, complete or partial) or measured here (ScanRunPanel). A type
// picker chooses which candidate type the layers x roles heatmap shows; beside it the groups
// that hurt the output most and least at that type. The heatmap exports as PNG, SVG or PDF and
// every probe's figures as CSV. A complete scan goes to the planner (scanChanged), which then
// plans by the KLD it predicts.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/sensitivity/SensitivityScan.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class ScanProbeListModel;
class ScanHeatmapPlot;
class ScanRunPanel;

class SensitivityView : public QWidget {
    Q_OBJECT
public:
    explicit SensitivityView(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    // Reads a scan file in the background; scanLoaded reports the end.
    void openScanFile(const QString& path);
    void showRecord(std::shared_ptr<const gguf::ScanRecord> record, const QString& source);
    const std::shared_ptr<const gguf::ScanRecord>& record() const { return m_record; }
    void setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path);

    ScanRunPanel* runPanel() const { return m_run; }
    ScanHeatmapPlot* heatmap() const { return m_heatmap; }
    QComboBox* typeBox() const { return m_type; }
    ScanProbeListModel* mostSensitive() const;
    ScanProbeListModel* leastSensitive() const;
    QString summaryText() const;

    // The exports the buttons offer, synchronous (the buttons run them off the GUI thread where
    // they write files): an empty string on success, else what went wrong.
    QString exportHeatmap(const QString& path);
    QString exportFigures(const QString& path) const;

signals:
    void scanLoaded(bool succeeded, const QString& message);
    // A complete scan of this model (the planner's costs), or null when none is.
    void scanChanged(std::shared_ptr<const gguf::ScanRecord> record);

private:
    void showType();

    std::shared_ptr<const gguf::Model> m_model;
    std::shared_ptr<const gguf::ScanRecord> m_record;
    JobRunner m_readJobs{this};
    JobRunner m_writeJobs{this};
    ScanRunPanel* m_run;
    QPushButton* m_open;
    QPushButton* m_exportPlot;
    QPushButton* m_exportCsv;
    QComboBox* m_type;
    QLabel* m_summary;
    ScanHeatmapPlot* m_heatmap;
    QTableView* m_most;
    QTableView* m_least;
};
