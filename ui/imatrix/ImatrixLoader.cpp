#include "imatrix/ImatrixLoader.h"

#include "gguf/Model.h"

#include <mutex>

ImatrixLoader::ImatrixLoader(QObject* parent) : QObject(parent) {}

void ImatrixLoader::load(const QString& path, std::shared_ptr<const gguf::Model> model)
{
    m_jobs.renew();
    // The job's one chunk fills this; the model is captured so its mapping outlives the job.
    auto result = std::make_shared<std::shared_ptr<const LoadedImatrix>>();
    auto* job = new BackgroundJob(1, [path, model, result](int, const std::atomic<bool>&) -> gguf::Status {
        auto loaded = LoadedImatrix::load(path, model.get());
        if (!loaded)
            return loaded.error();
        *result = std::move(loaded.value());
        return gguf::Ok{};
    }, this);
    m_jobs.track(job, this, [this, path, result](const JobOutcome& outcome) {
        if (outcome.isDone() && *result)
            emit loaded(path, *result);
        else if (!outcome.isCancelled())
            emit failed(path, outcome.message());
    });
}
