#include "ui/session/OutputRun.h"

#include "core/forward/KldTextChunks.h"
#include "core/tokenize/Tokenizer.h"
#include "ui/session/CalibrationTokens.h"
#include "ui/session/JobPoolExecutor.h"

OutputRun::OutputRun(QObject* parent) : QObject(parent) {}

OutputRun::~OutputRun()
{
    cancel();
}

void OutputRun::cancel()
{
    m_jobs.cancel();
}

bool OutputRun::isRunning() const
{
    return m_jobs.isRunning();
}

namespace {
struct OutputRunValue {
    std::shared_ptr<const gguf::OutputRunResult> result;
    std::shared_ptr<const gguf::Vocabulary> vocabulary;
    std::vector<std::int32_t> tokens;
};

gguf::Result<std::vector<std::int32_t>> tokensOf(const gguf::Model& reference, const OutputRunInput& input)
{
    if (!input.textFile.empty()) {
        auto ids = calibrationTokens(reference, input.textFile);
        if (ids && ids->size() < 2)
            return gguf::Error{"the text file gives " + std::to_string(ids->size()) + " token(s); at least two are needed", gguf::Error::kNoOffset, input.textFile};
        return ids;
    }
    if (!input.isText)
        return input.ids;
    auto tokenizer = gguf::Tokenizer::fromModel(reference);
    if (!tokenizer)
        return gguf::Error{"cannot tokenize the text: " + tokenizer.error().message + " (give token ids instead)", gguf::Error::kNoOffset, {}};
    const QByteArray utf8 = input.text.toUtf8();
    if (static_cast<std::size_t>(utf8.size()) > gguf::Tokenizer::kMaxTextBytes)
        return gguf::Error{"the text is longer than the tokenizer takes at once", gguf::Error::kNoOffset, {}};
    std::vector<std::int32_t> ids = tokenizer->encode(std::string_view(utf8.constData(), static_cast<std::size_t>(utf8.size())), true, false);
    if (ids.size() < 2)
        return gguf::Error{"the text gives " + std::to_string(ids.size()) + " token(s); at least two are needed", gguf::Error::kNoOffset, {}};
    return ids;
}
}  // namespace

void OutputRun::start(std::shared_ptr<const gguf::Model> reference, std::vector<OutputRunCandidate> candidates, OutputRunInput input,
                      gguf::ActivationArithmetic activations, gguf::KvCacheSettings kvCache)
{
    // The work owns shared pointers to everything it reads.
    BackgroundJob* job = m_jobs.run(
        [reference, activations, kvCache, candidates = std::move(candidates), input = std::move(input)](const JobControl& control)
            -> gguf::Result<OutputRunValue> {
            auto tokenized = tokensOf(*reference, input);
            if (!tokenized)
                return tokenized.error();
            const std::vector<std::int32_t>& tokens = *tokenized;
            std::vector<gguf::OutputCandidate> core;
            for (const auto& c : candidates)
                core.push_back({c.label.toStdString(), c.model.get(), c.simulatedType});
            gguf::OutputRunOptions options;
            options.cancel = control.cancelFlag();
            options.executor = &JobPoolExecutor::instance();  // the passes' products on the one pool
            options.activations = activations;
            options.kvCache = kvCache;
            if (!input.textFile.empty()) {  // as kld --text-file: llama-perplexity's windows
                options.chunkSize = gguf::kldTextChunkSize(tokens.size(), input.chunk);
                if (const auto bos = reference->metadataUInt("tokenizer.ggml.bos_token_id"); options.chunkSize > 0 && bos && *bos <= 0x7FFFFFFF)
                    options.bosToken = static_cast<std::int32_t>(*bos);
            }
            options.progress = [&control](std::int64_t done, std::int64_t total) {
                control.setProgress(static_cast<std::uint64_t>(done), static_cast<std::uint64_t>(total));
            };
            auto result = gguf::compareModelOutputs(*reference, core, tokens, options);
            if (!result)
                return result.error();
            OutputRunValue value;
            value.tokens = std::move(tokenized).value();
            value.result = std::make_shared<const gguf::OutputRunResult>(std::move(result).value());
            if (gguf::Vocabulary::hasTokens(*reference))
                if (auto built = gguf::Vocabulary::build(reference, control.cancelFlag()))
                    value.vocabulary = std::make_shared<const gguf::Vocabulary>(std::move(built).value());
            return value;
        },
        [this](OutputRunValue value) { emit finished(value.result, value.vocabulary, value.tokens); },
        [this](const JobOutcome& outcome) { emit failed(outcome.isCancelled() ? tr("cancelled") : outcome.message(), outcome.isCancelled()); });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) { emit progress(static_cast<int>(done), static_cast<int>(total)); });
}
