#pragma once
// Runs the core's output comparison (forward passes of the reference and each candidate,
// OutputComparisonRun.h) on the job pool with progress and cancel. A newer start() makes an
// older run stale: its result is dropped, and it is cancelled. The input is token ids or text,
// which the work turns into ids with the reference's own tokenizer (as llama.cpp would, BOS
// included), so building the tokenizer never runs on the GUI thread.

#include "core/forward/ActivationRounding.h"
#include "core/forward/OutputComparisonRun.h"
#include "core/gguf/Model.h"
#include "core/gguf/Vocabulary.h"
#include "core/types/KvCacheSettings.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

struct OutputRunCandidate {
    QString label;
    std::shared_ptr<const gguf::Model> model;  // null: the reference quantized to simulatedType
    std::uint32_t simulatedType = 0;
};

// What the passes run on: text through the reference's tokenizer, token ids as given, or a text
// file as `kld --text-file` runs it: read whole and tokenized as llama-perplexity -f does
// (calibrationTokens), then cut into windows of `chunk` tokens by the one rule of
// core/forward/KldTextChunks.h (the first token of each BOS, the second half scored).
struct OutputRunInput {
    bool isText = false;
    QString text;
    std::vector<std::int32_t> ids;
    std::string textFile;  // when set, the input (isText, text and ids are not used)
    std::int64_t chunk = 0;
};

class OutputRun : public QObject {
    Q_OBJECT
public:
    explicit OutputRun(QObject* parent = nullptr);
    ~OutputRun() override;

    // `activations`: what the passes do to the activations, `kvCache` their KV cache and attention
    // in llama.cpp's arithmetic (ForwardOptions::activations, ::kvCache); llama.cpp's by default.
    void start(std::shared_ptr<const gguf::Model> reference, std::vector<OutputRunCandidate> candidates, OutputRunInput input,
               gguf::ActivationArithmetic activations = gguf::ActivationArithmetic::LlamaCpp, gguf::KvCacheSettings kvCache = {});
    void cancel();
    bool isRunning() const;

signals:
    void progress(int done, int total);
    // With the token ids run (the text's, once tokenized) and the reference's vocabulary (null
    // when it has none), read on the worker too.
    void finished(std::shared_ptr<const gguf::OutputRunResult> result, std::shared_ptr<const gguf::Vocabulary> vocabulary,
                  const std::vector<std::int32_t>& tokens);
    // Exactly once per run that does not finish: cancelled, or failed with `message`.
    void failed(const QString& message, bool cancelled);

private:
    JobRunner m_jobs{this};
};
