#include "ui/experts/ExpertChartTitle.h"

#include <QFileInfo>

QString expertChartTitle(const gguf::Model* model, const QString& what)
{
    if (!model)
        return what;
    const QString file = QFileInfo(QString::fromStdString(model->primary().path())).fileName();
    const QString name = QString::fromStdString(model->metadataString("general.name"));
    return QStringLiteral("%1 — %2").arg(what, name.isEmpty() ? file : QStringLiteral("%1, %2").arg(name, file));
}

QString expertTensorName(const gguf::TensorInfo& tensor)
{
    return QString::fromUtf8(tensor.name.data(), static_cast<qsizetype>(tensor.name.size()));
}
