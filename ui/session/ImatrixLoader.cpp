#include "ui/session/ImatrixLoader.h"

#include "core/gguf/Model.h"


ImatrixLoader::ImatrixLoader(QObject* parent) : QObject(parent) {}

void ImatrixLoader::load(const QString& path, std::shared_ptr<const gguf::Model> model)
{
    // The model is captured so its mapping outlives the job.
    m_jobs.run([path, model](const JobControl&) { return LoadedImatrix::load(path, model.get()); },
               [this, path](std::shared_ptr<const LoadedImatrix> imatrix) { emit loaded(path, std::move(imatrix)); },
               [this, path](const JobOutcome& outcome) {
                   if (!outcome.isCancelled())
                       emit failed(path, outcome.message());
               });
}
