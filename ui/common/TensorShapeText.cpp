#include "ui/common/TensorShapeText.h"

#include <QStringList>

#include <algorithm>

QString tensorShapeText(const gguf::TensorInfo& tensor)
{
    QStringList dims;
    for (std::uint32_t i = 0; i < std::max<std::uint32_t>(tensor.nDims, 1); ++i)
        dims << QString::number(tensor.ne[i]);
    return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}
