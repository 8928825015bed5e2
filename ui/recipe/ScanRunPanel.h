#pragma once
// Runs a sensitivity scan from the Recipe page, as `gguf-explorer-cli scan MODEL --text-file F
// -o SCAN.json` does: the text tokenized as llama-perplexity does, the reference run once, then
// one probe at a time, all as one background job with progress, elapsed time, an ETA and
// Cancel. The scan file is written before the first probe and after every one (atomically), so
// a cancelled or killed run leaves a file that shows what was measured and that a later run
// with the same settings (here or `scan --resume`) completes.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "ui/session/JobRunner.h"

#include <QElapsedTimer>
#include <QGroupBox>
#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

struct ScanRunSettings {
    QString textFile;         // calibration text
    QString scanFile;         // written after every probe; resumed when it holds this scan
    qint64 maxTokens = 1024;  // 0: every token of the text (whole chunks)
    qint64 chunk = 128;
    qint64 layerStride = 1;
    QString types;            // "q4_K,q6_K"; empty: the scan's default types
};

class ScanRunPanel : public QGroupBox {
    Q_OBJECT
public:
    explicit ScanRunPanel(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    // Scans with these importance weights (llama-quantize --imatrix quantizers, IQ types among the
    // defaults); nullptr: without.
    void setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path);
    ScanRunSettings settings() const;  // from the fields
    void start(const ScanRunSettings& settings);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }
    QString progressText() const;

signals:
    // Once per start(); the scan file (complete, or partial after a cancel) when one was written.
    void finished(bool succeeded, const QString& message, const QString& scanFile);

private:
    void ended(const JobOutcome& outcome, const QString& scanFile);
    void showProgress(quint64 done, quint64 total);

    std::shared_ptr<const gguf::Model> m_model;
    std::shared_ptr<const gguf::ImportanceMatrix> m_importance;
    QString m_importancePath;
    JobRunner m_jobs{this};
    QElapsedTimer m_clock;
    qint64 m_firstMs = -1;         // when the first probe report arrived
    quint64 m_firstDone = 0;       // and how many probes were done then
    QLineEdit* m_text;
    QLineEdit* m_output;
    QSpinBox* m_tokens;
    QSpinBox* m_chunk;
    QSpinBox* m_stride;
    QLineEdit* m_types;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
};
