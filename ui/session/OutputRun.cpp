#include "ui/session/OutputRun.h"

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
};
}  // namespace

void OutputRun::start(std::shared_ptr<const gguf::Model> reference, std::vector<OutputRunCandidate> candidates, std::vector<std::int32_t> tokens,
                      bool emulateLlamaCpp)
{
    // The work owns shared pointers to everything it reads.
    BackgroundJob* job = m_jobs.run(
        [reference, emulateLlamaCpp, candidates = std::move(candidates), tokens = std::move(tokens)](const JobControl& control)
            -> gguf::Result<OutputRunValue> {
            std::vector<gguf::OutputCandidate> core;
            for (const auto& c : candidates)
                core.push_back({c.label.toStdString(), c.model.get(), c.simulatedType});
            gguf::OutputRunOptions options;
            options.cancel = control.cancelFlag();
            options.executor = &JobPoolExecutor::instance();  // the passes' products on the one pool
            options.emulateLlamaCppActivations = emulateLlamaCpp;
            options.progress = [&control](std::int64_t done, std::int64_t total) {
                control.setProgress(static_cast<std::uint64_t>(done), static_cast<std::uint64_t>(total));
            };
            auto result = gguf::compareModelOutputs(*reference, core, tokens, options);
            if (!result)
                return result.error();
            OutputRunValue value;
            value.result = std::make_shared<const gguf::OutputRunResult>(std::move(result).value());
            if (gguf::Vocabulary::hasTokens(*reference))
                if (auto built = gguf::Vocabulary::build(reference, control.cancelFlag()))
                    value.vocabulary = std::make_shared<const gguf::Vocabulary>(std::move(built).value());
            return value;
        },
        [this](OutputRunValue value) { emit finished(value.result, value.vocabulary); },
        [this](const JobOutcome& outcome) { emit failed(outcome.isCancelled() ? tr("cancelled") : outcome.message(), outcome.isCancelled()); });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) { emit progress(static_cast<int>(done), static_cast<int>(total)); });
}
