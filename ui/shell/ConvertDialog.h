#pragma once
// File › Convert…: writes the open model in another type, or as a llama-quantize preset (Q4_K_M:
// its per-tensor recipe, as convert --type PRESET). Shows planConversion's per-tensor plan (or the
// preset's recipe)
// (target type, kept tensors and why) and warnings (e.g. requantizing an already quantized file)
// before anything is written, then runs convertModel as a background job with progress and
// cancel, the bytes written so far and the time left. The output file name is proposed from the
// input's and the target's (until the user types another). The core refuses to write over an
// input; its error is shown as is. An importance
// matrix (optional, llama-imatrix output in either format) is read on the job pool when chosen
// and checked against the model as every user of one checks it (core/imatrix/ImatrixForModel.h):
// refused with the reason, or taken with its warnings shown under it; with it the tensors it
// covers are quantized as llama-quantize --imatrix does, and the types ggml makes only with one
// (requiresImportance) are refused without it, with the reason.

#include "core/quantize/Conversion.h"
#include "core/quantize/ImportanceWeights.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "ui/shell/ConvertProgress.h"
#include "ui/session/JobRunner.h"

#include <QDialog>
#include <QElapsedTimer>
#include <QPointer>
#include <atomic>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTimer;
class QTreeWidget;

class ConvertDialog : public QDialog {
    Q_OBJECT
public:
    ConvertDialog(std::shared_ptr<const gguf::Model> input, QWidget* parent = nullptr);

    void setOutputPath(const QString& path);
    // A ggml type ("q4_K") or, with `preset`, a llama-quantize preset ("Q4_K_M").
    void setTargetType(const QString& typeName);
    void setTargetPreset(const QString& presetName);
    // The chosen preset, or null for a pure type.
    const gguf::QuantPreset* targetPreset() const;
    void setTensorPattern(const QString& pattern);
    // Reads the matrix in the background (importanceMatrixLoaded() when done); empty: none.
    void setImportanceMatrixPath(const QString& path);
    QString importanceMatrixPath() const;
    bool hasImportanceMatrix() const { return m_importance != nullptr; }
    bool canConvert() const;
    // Why the chosen type cannot be converted to now (it needs an importance matrix), or empty.
    QString typeRefusal() const;
    QString outputPath() const;
    bool isConverting() const;
    QTreeWidget* previewTree() const { return m_preview; }
    QString warningsText() const;
    // "725 MB of 40.1 GB written (1.8 %), 13 s, about 12 min left" while converting.
    QString writtenText() const;

public slots:
    void startConversion();
    void cancelConversion();

signals:
    // Once per startConversion(); `message` is the core's error, "cancelled", or empty.
    void conversionFinished(bool succeeded, const QString& message);
    // After setImportanceMatrixPath(): `message` is why the matrix is refused, or empty.
    void importanceMatrixLoaded(bool succeeded, const QString& message);

private:
    void conversionEnded(const JobOutcome& outcome, const QString& output);
    void chooseOutput();
    void updatePreview();
    void chooseImportanceMatrix();
    gguf::ConversionOptions options() const;
    gguf::Result<gguf::Recipe> presetRecipe() const;
    void proposeOutput();
    void showWritten(quint64 done, quint64 total);
    QString proposedOutputPath() const;

    std::shared_ptr<const gguf::Model> m_input;
    QLineEdit* m_output;
    QComboBox* m_type;
    QLineEdit* m_pattern;
    QLineEdit* m_imatrix;
    QLabel* m_imatrixNote;
    std::shared_ptr<const gguf::ImportanceWeights> m_importance;
    JobRunner m_imatrixJobs{this};
    QTreeWidget* m_preview;
    QLabel* m_warnings;
    QLabel* m_written;
    QProgressBar* m_progress;
    WrittenBytes m_writtenBytes;
    QElapsedTimer m_clock;
    QString m_proposedOutput;  // the last name proposed; replaced while the user has not typed another
    QPushButton* m_convert;
    QPushButton* m_cancel;
    QTimer* m_previewDebounce;
    JobRunner m_convertJobs{this};
};
