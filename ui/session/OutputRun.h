#pragma once
// Runs the core's output comparison (forward passes of the reference and each candidate,
// OutputComparisonRun.h) on the job pool with progress and cancel. A newer start() makes an
// older run stale: its result is dropped, and it is cancelled.

#include "core/forward/OutputComparisonRun.h"
#include "core/gguf/Model.h"
#include "core/gguf/Vocabulary.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <atomic>
#include <memory>
#include <vector>

struct OutputRunCandidate {
    QString label;
    std::shared_ptr<const gguf::Model> model;  // null: the reference quantized to simulatedType
    std::uint32_t simulatedType = 0;
};

class OutputRun : public QObject {
    Q_OBJECT
public:
    explicit OutputRun(QObject* parent = nullptr);
    ~OutputRun() override;

    // `emulateLlamaCpp`: llama.cpp's activation rounding (ForwardOptions::emulateLlamaCppActivations).
    void start(std::shared_ptr<const gguf::Model> reference, std::vector<OutputRunCandidate> candidates, std::vector<std::int32_t> tokens,
               bool emulateLlamaCpp = false);
    void cancel();
    bool isRunning() const;

signals:
    void progress(int done, int total);
    // With the reference's vocabulary (null when it has none), read on the worker too.
    void finished(std::shared_ptr<const gguf::OutputRunResult> result, std::shared_ptr<const gguf::Vocabulary> vocabulary);
    // Exactly once per run that does not finish: cancelled, or failed with `message`.
    void failed(const QString& message, bool cancelled);

private:
    JobRunner m_jobs{this};
};
