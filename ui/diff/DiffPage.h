#pragma once
// File › Diff With…: what differs between the open model (A) and another file (B), computed by
// core/diff on the job pool (B is opened there too; the window never waits): a summary, the
// metadata differences (a changed long string shows its line diff below the table), the tensors
// (added, removed, other shape, and for those in both: identical bytes, identical values, or
// different with the compare page's figures) and the per-layer chart.

#include "core/diff/ModelDiff.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>
#include <memory>

class LayerDiffChart;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTreeWidget;

class DiffPage : public QWidget {
    Q_OBJECT
public:
    DiffPage(std::shared_ptr<const gguf::Model> a, const QString& pathB, QWidget* parent = nullptr);
    ~DiffPage() override;

    QString title() const;
    bool isRunning() const;
    const gguf::ModelDiff* diff() const { return m_diff.get(); }
    QLabel* summary() const { return m_summary; }
    QTreeWidget* metadataTable() const { return m_metadata; }
    QTreeWidget* tensorTable() const { return m_tensors; }
    QPlainTextEdit* detail() const { return m_detail; }
    LayerDiffChart* layerChart() const { return m_chart; }
    void cancel();

signals:
    void finished(bool succeeded, const QString& message);

private:
    void start();
    void showResult(std::shared_ptr<const gguf::Model> b, std::shared_ptr<const gguf::ModelDiff> diff);
    void diffEnded();  // progress and Cancel hidden, whatever the end
    void showDetail();

    std::shared_ptr<const gguf::Model> m_a;
    std::shared_ptr<const gguf::Model> m_b;
    QString m_pathB;
    std::shared_ptr<const gguf::ModelDiff> m_diff;
    QLabel* m_summary;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QTreeWidget* m_metadata;
    QPlainTextEdit* m_detail;
    QTreeWidget* m_tensors;
    LayerDiffChart* m_chart;
    JobRunner m_jobs{this};
};
