#include "session/ModelLoader.h"

#include "remote/HttpFile.h"
#include "remote/RemoteModel.h"
#include "remote/RemoteUrl.h"
#include "session/JobPool.h"

#include <QPointer>
#include <QtConcurrent>

ModelLoader::ModelLoader(QObject* parent) : QObject(parent) {}

void ModelLoader::open(const QString& path)
{
    const quint64 generation = ++m_generation;
    QPointer<ModelLoader> self(this);
    // libcurl's set-up belongs on this (the GUI) thread, not on the job that opens the URL.
    if (gguf::remote::isRemoteName(path.toStdString()))
        gguf::remote::initializeHttp();
    QtConcurrent::run(jobPool(), [path]() {
        yieldToGuiThread();
        return gguf::remote::openAnyModel(path.toStdString());  // a file, or a URL read over HTTP
    })
        .then(this, [self, generation, path](gguf::Result<std::shared_ptr<const gguf::Model>> result) {
            if (!self || generation != self->m_generation)
                return;
            if (result)
                emit self->opened(path, result.value());
            else
                emit self->failed(path, QString::fromStdString(result.error().toString()));
        });
}
