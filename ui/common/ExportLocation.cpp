#include "ui/common/ExportLocation.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace {
const char* const kExportDirKey = "lastExportDirectory";
}

QString proposedExportPath(const QString& modelPath, const QString& fileName)
{
    QString folder = QSettings().value(kExportDirKey).toString();
    if (folder.isEmpty() || !QFileInfo(folder).isDir()) {
        const QFileInfo model(modelPath);
        folder = !modelPath.isEmpty() && model.absoluteDir().exists() ? model.absolutePath() : QDir::homePath();
    }
    return QDir(folder).filePath(fileName);
}

void rememberExportFolder(const QString& exportedPath)
{
    QSettings().setValue(kExportDirKey, QFileInfo(exportedPath).absolutePath());
}

QString modelFolder(const QString& modelPath, const QString& fallback)
{
    if (modelPath.isEmpty() || modelPath.contains(QLatin1String("://")))
        return fallback;
    const QFileInfo model(modelPath);
    return model.absoluteDir().exists() ? model.absolutePath() : fallback;
}
