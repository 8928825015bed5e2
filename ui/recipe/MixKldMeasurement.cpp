#include "ui/recipe/MixKldMeasurement.h"

#include "ui/session/JobPoolExecutor.h"

#include "core/forward/OutputComparisonRun.h"
#include "ui/session/CalibrationTokens.h"

namespace {

struct Measured {
    std::vector<MeasuredKld> figures;
    qint64 positions = 0;
};

}  // namespace

MixKldMeasurement::MixKldMeasurement(QObject* parent) : QObject(parent) {}

void MixKldMeasurement::start(std::shared_ptr<const gguf::Model> model, std::vector<MixToMeasure> mixes, const QString& textFile, qint64 chunk,
                              qint64 maxTokens, std::shared_ptr<const gguf::ImportanceMatrix> importance)
{
    std::int32_t bos = -1;
    if (const auto id = model->metadataUInt("tokenizer.ggml.bos_token_id"); id && *id <= 0x7FFFFFFF)
        bos = static_cast<std::int32_t>(*id);
    BackgroundJob* job = m_jobs.run(
        [model, mixes = std::move(mixes), text = textFile.toStdString(), chunk, maxTokens, importance, bos](const JobControl& control) -> gguf::Result<Measured> {
            auto read = calibrationTokens(*model, text);
            if (!read)
                return read.error();
            std::vector<std::int32_t> tokens = std::move(*read);
            if (maxTokens > 0 && std::int64_t(tokens.size()) > maxTokens)
                tokens.resize(std::size_t(maxTokens));
            if (std::int64_t(tokens.size()) < chunk)
                return gguf::Error{"the text gives " + std::to_string(tokens.size()) + " tokens, fewer than one chunk of " + std::to_string(chunk),
                                   gguf::Error::kNoOffset, text};
            std::vector<gguf::OutputCandidate> candidates;
            for (const MixToMeasure& mix : mixes) {
                gguf::OutputCandidate candidate;
                candidate.label = mix.label.toStdString();
                candidate.simulation.recipeTypes = std::make_shared<const std::unordered_map<std::string, std::uint32_t>>(mix.types);
                if (importance)
                    candidate.simulation.importance = [importance](std::string_view name, std::size_t expert) {
                        const gguf::ImportanceEntry* entry = importance->find(name);
                        return entry ? entry->quantWeights(expert) : std::vector<float>{};
                    };
                candidates.push_back(std::move(candidate));
            }
            gguf::OutputRunOptions options;
            options.executor = &JobPoolExecutor::instance();
            options.chunkSize = chunk;
            options.bosToken = bos;
            options.cancel = control.cancelFlag();
            options.progress = [&control](std::int64_t done, std::int64_t total) { control.setProgress(std::uint64_t(done), std::uint64_t(total)); };
            auto run = gguf::compareModelOutputs(*model, candidates, tokens, options);
            if (!run)
                return run.error();
            Measured measured;
            measured.positions = run->scoredPositions;
            for (std::size_t i = 0; i < mixes.size(); ++i)
                measured.figures.push_back({mixes[i].label, run->comparisons[i].kld.mean, run->comparisons[i].kld.meanError});
            return measured;
        },
        [this](Measured measured) { emit finished(measured.figures, measured.positions); },
        [this](const JobOutcome& outcome) { emit failed(outcome.isCancelled() ? tr("cancelled") : outcome.message(), outcome.isCancelled()); });
    m_jobs.onWorkProgress(job, [this](quint64 done, quint64 total) { emit progress(int(done), int(total)); });
}
