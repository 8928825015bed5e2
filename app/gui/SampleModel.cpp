#include "SampleModel.h"

#include <QCoreApplication>
#include <QFileInfo>

QString findSampleModel()
{
    const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/gguf-explorer/sample-moe-q2_k.gguf");
    for (const QString& candidate : {installed, QStringLiteral(GGUFX_SAMPLE_MODEL_SOURCE)})
        if (QFileInfo::exists(candidate))
            return QFileInfo(candidate).absoluteFilePath();
    return {};
}
