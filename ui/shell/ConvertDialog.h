#pragma once
// File › Convert…: writes the open model in another type. Shows planConversion's per-tensor plan
// (target type, kept tensors and why) and warnings (e.g. requantizing an already quantized file)
// before anything is written, then runs convertModel as a background job with progress and
// cancel. The core refuses to write over an input; its error is shown as is.

#include "quantize/Conversion.h"

#include <QDialog>
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
class BackgroundJob;

class ConvertDialog : public QDialog {
    Q_OBJECT
public:
    ConvertDialog(std::shared_ptr<const gguf::Model> input, QWidget* parent = nullptr);

    void setOutputPath(const QString& path);
    void setTargetType(const QString& typeName);
    void setTensorPattern(const QString& pattern);
    QString outputPath() const;
    bool isConverting() const;
    QTreeWidget* previewTree() const { return m_preview; }
    QString warningsText() const;

public slots:
    void startConversion();
    void cancelConversion();

signals:
    // Once per startConversion(); `message` is the core's error, "cancelled", or empty.
    void conversionFinished(bool succeeded, const QString& message);

private:
    void chooseOutput();
    void updatePreview();
    gguf::ConversionOptions options() const;

    std::shared_ptr<const gguf::Model> m_input;
    QLineEdit* m_output;
    QComboBox* m_type;
    QLineEdit* m_pattern;
    QTreeWidget* m_preview;
    QLabel* m_warnings;
    QProgressBar* m_progress;
    QPushButton* m_convert;
    QPushButton* m_cancel;
    QTimer* m_previewDebounce;
    QTimer* m_progressPoll;
    QPointer<BackgroundJob> m_job;
    // Written by the converting thread, read by m_progressPoll on the GUI thread.
    std::shared_ptr<std::atomic<std::uint64_t>> m_done = std::make_shared<std::atomic<std::uint64_t>>(0);
    std::shared_ptr<std::atomic<std::uint64_t>> m_total = std::make_shared<std::atomic<std::uint64_t>>(0);
};
