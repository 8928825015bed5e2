#pragma once
// File › Compute Importance Matrix from Text…: the matrix `gguf-explorer-cli imatrix MODEL
// --text-file T -o OUT` computes (core/imatrix/ImatrixComputation.h: llama-imatrix's sums from
// the pass here), for the open model, as a background job with progress per chunk and Cancel.
// The file is written only when the run completes (.dat by its name, else GGUF); the shell then
// opens it as an Importance page.

#include "ui/session/JobRunner.h"

#include <QDialog>
#include <memory>

namespace gguf {
class Model;
}
class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

class ComputeImatrixDialog : public QDialog {
    Q_OBJECT
public:
    ComputeImatrixDialog(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    void setTextPath(const QString& path);
    void setOutputPath(const QString& path);
    void setChunkSize(int tokens);
    void setChunkLimit(int chunks);  // 0: every chunk of the text
    void setProcessOutput(bool on);
    bool isComputing() const { return m_jobs.isRunning(); }
    QString statusText() const;

public slots:
    void startComputation();
    void cancelComputation();

signals:
    // Once per startComputation(): `message` is the core's error, "cancelled", or (succeeded)
    // what the run found; `output` the file written.
    void computationFinished(bool succeeded, const QString& message, const QString& output);

private:
    void chooseText();
    void chooseOutput();
    void ended(bool succeeded, const QString& message, const QString& output);

    std::shared_ptr<const gguf::Model> m_model;
    QLineEdit* m_text;
    QLineEdit* m_output;
    QSpinBox* m_chunk;
    QSpinBox* m_chunks;
    QCheckBox* m_processOutput;
    QProgressBar* m_progress;
    QLabel* m_status;
    QPushButton* m_start;
    QPushButton* m_cancel;
    JobRunner m_jobs{this};
};
