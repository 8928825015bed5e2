#pragma once
// Opens a model (a path, or an http(s) / hf:// URL) on the thread pool so the window never waits
// on file or network I/O or parsing; hands back
// the parsed model (a plain value) or the core's error text through signals on the GUI thread.

#include "gguf/Model.h"

#include <QObject>
#include <QString>
#include <memory>

class ModelLoader : public QObject {
    Q_OBJECT
public:
    explicit ModelLoader(QObject* parent = nullptr);
    // A newer request makes an older one stale: its result is dropped.
    void open(const QString& path);

signals:
    void opened(const QString& path, std::shared_ptr<const gguf::Model> model);
    void failed(const QString& path, const QString& message);

private:
    quint64 m_generation = 0;
};
