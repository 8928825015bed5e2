#pragma once
// Opens an importance matrix on the job pool (a large MoE imatrix is hundreds of MB) and hands
// the result back on the GUI thread; a newer request makes an older one stale.

#include "ui/session/LoadedImatrix.h"
#include "ui/session/JobRunner.h"

#include <QObject>

namespace gguf {
class Model;
}

class ImatrixLoader : public QObject {
    Q_OBJECT
public:
    explicit ImatrixLoader(QObject* parent = nullptr);
    void load(const QString& path, std::shared_ptr<const gguf::Model> model);

signals:
    void loaded(const QString& path, std::shared_ptr<const LoadedImatrix> imatrix);
    void failed(const QString& path, const QString& message);

private:
    JobRunner m_jobs{this};
};
