#pragma once
// Opens a model (a path, or an http(s) / hf:// URL) on the job pool so the window never waits on
// file or network I/O or parsing, and hands back the parsed model (a plain value) or the core's
// error text through signals on the GUI thread. Every place of the GUI that opens a model goes
// through openModel() below, so what opens in the window opens in a comparison too. Each open is
// its own job: files opened together (several on the command line, in one drop or one Open)
// load side by side, and each ends in its own opened() or failed().

#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <QString>
#include <memory>

// On a pool thread: the model at `path` (a file, or a URL read over HTTP). Remote set-up
// (prepareModelOpen) must have run on the GUI thread first.
gguf::Result<std::shared_ptr<const gguf::Model>> openModel(const QString& path);
// On the GUI thread, before a job that calls openModel(path): libcurl's set-up for a URL.
void prepareModelOpen(const QString& path);

class ModelLoader : public QObject {
    Q_OBJECT
public:
    explicit ModelLoader(QObject* parent = nullptr);
    // Starts loading `path` beside the loads already running; none of them is dropped.
    void open(const QString& path);
    // Stops every running load: a remote read stops at its next fetch, a local open's result is
    // dropped; cancelled() follows for each, failed() and opened() do not.
    void cancel();
    bool isLoading() const { return m_jobs.isRunning(); }
    // The newest running load's job (for progress displays), or null.
    BackgroundJob* currentJob() const { return m_jobs.current(); }

signals:
    void opened(const QString& path, std::shared_ptr<const gguf::Model> model);
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);

private:
    JobRunner m_jobs{this};
};
