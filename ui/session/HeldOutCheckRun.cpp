#include "ui/session/HeldOutCheckRun.h"

#include "core/sensitivity/PlanHeldOutCheck.h"
#include "ui/session/CalibrationTokens.h"
#include "ui/session/JobPoolExecutor.h"

#include <string>
#include <utility>

HeldOutCheckRun::HeldOutCheckRun(QObject* parent) : QObject(parent) {}

void HeldOutCheckRun::start(HeldOutCheckInput input, const QString& textFile, qint64 most)
{
    BackgroundJob* job = m_jobs.run(
        [input = std::move(input), text = textFile.toStdString(), most](const JobControl& control) -> gguf::Result<gguf::HeldOutResult> {
            auto tokens = calibrationTokens(*input.model, text);
            if (!tokens)
                return tokens.error();
            gguf::PlanHeldOutRequest request;
            request.source = gguf::HeldOutSource::Either;  // the scan's own text: past its tokens; any other: all of it
            request.most = most;
            if (const auto importance = input.importance)
                request.importance = [importance](std::string_view name, std::size_t expert) {
                    const gguf::ImportanceEntry* entry = importance->find(name);
                    return entry ? entry->quantWeights(expert) : std::vector<float>{};
                };
            request.executor = &JobPoolExecutor::instance();
            request.cancel = control.cancelFlag();
            request.progress = [&control](std::int64_t done, std::int64_t total) { control.setProgress(std::uint64_t(done), std::uint64_t(total)); };
            return gguf::measurePlanOnHeldOutText(*input.model, *input.scan, *tokens, *input.table, input.plan, input.presets, input.budget, request);
        },
        [this](gguf::HeldOutResult figures) { emit finished(figures); },
        [this](const JobOutcome& outcome) { emit failed(outcome.isCancelled() ? tr("cancelled") : outcome.message(), outcome.isCancelled()); });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) { emit progress(int(done), int(total)); });
}
