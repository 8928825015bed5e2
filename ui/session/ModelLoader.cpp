#include "ui/session/ModelLoader.h"

#include "core/remote/HttpFile.h"
#include "core/remote/RemoteModel.h"
#include "core/remote/RemoteUrl.h"

gguf::Result<std::shared_ptr<const gguf::Model>> openModel(const QString& path)
{
    return gguf::remote::openAnyModel(path.toStdString());
}

void prepareModelOpen(const QString& path)
{
    if (gguf::remote::isRemoteName(path.toStdString()))
        gguf::remote::initializeHttp();
}

ModelLoader::ModelLoader(QObject* parent) : QObject(parent) {}

void ModelLoader::open(const QString& path)
{
    prepareModelOpen(path);
    // Alongside, not run(): a second open is another file to show, not a newer answer to the same
    // question, and must not make the first one stale.
    m_jobs.runAlongside([path](const JobControl&) { return openModel(path); },
                        [this, path](std::shared_ptr<const gguf::Model> model) { emit opened(path, std::move(model)); },
                        [this, path](const JobOutcome& outcome) {
                            if (outcome.isCancelled())
                                emit cancelled(path);
                            else
                                emit failed(path, outcome.message());
                        });
}

void ModelLoader::cancel()
{
    m_jobs.cancel();
}
