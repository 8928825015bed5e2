#pragma once
// One importance matrix, per model: what it covers (tensors, experts, tokens, chunks, datasets),
// how it fits the model it was opened for (every validation finding with its byte offset), the
// MoE routing map, the most important columns of each tensor and llama-imatrix's statistics.
// Save As… writes it again in either of llama-imatrix's formats (as `imatrix FILE -o OUT`).

#include "ui/session/JobRunner.h"
#include "ui/session/LoadedImatrix.h"

#include <QWidget>

class ExpertRoutingMap;
class ImatrixStatisticsView;
class ImportanceStrip;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

class ImatrixPage : public QWidget {
    Q_OBJECT
public:
    ImatrixPage(std::shared_ptr<const LoadedImatrix> imatrix, QWidget* parent = nullptr);
    QString title() const;

    const LoadedImatrix& imatrix() const { return *m_imatrix; }
    QLabel* summary() const { return m_summary; }
    QListWidget* issues() const { return m_issues; }
    QTableWidget* coverage() const { return m_coverage; }
    ExpertRoutingMap* routing() const { return m_routing; }
    QComboBox* tensorCombo() const { return m_tensor; }
    ImportanceStrip* columns() const { return m_columns; }
    ImatrixStatisticsView* statistics() const { return m_statistics; }
    QLabel* saveStatus() const { return m_saveStatus; }

public slots:
    // Writes the matrix to `path` in the background, as llama-imatrix would (.dat by its name,
    // else GGUF; a .dat input's unknown chunk size taken as llama-imatrix's default, 512).
    void saveAs(const QString& path);

signals:
    // Once per saveAs(): `message` is the error, or what the file could not keep.
    void saved(bool succeeded, const QString& message);

private:
    void showEntry(int index);
    void chooseSaveAs();

    std::shared_ptr<const LoadedImatrix> m_imatrix;
    QLabel* m_summary;
    QListWidget* m_issues;
    QTableWidget* m_coverage;
    ExpertRoutingMap* m_routing;
    QComboBox* m_tensor;
    ImportanceStrip* m_columns;
    ImatrixStatisticsView* m_statistics;
    QPushButton* m_saveAs;
    QLabel* m_saveStatus;
    JobRunner m_saveJobs{this};
};
