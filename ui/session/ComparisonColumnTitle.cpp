#include "ui/session/ComparisonColumnTitle.h"

#include <QCoreApplication>
#include <map>

namespace {

QString typeTitle(std::uint32_t typeId)
{
    return QString::fromStdString(gguf::typeName(typeId)).toUpper();
}

QString baseTitle(const gguf::ModelComparison& comparison, std::size_t column)
{
    const gguf::ComparisonColumn& info = comparison.columns()[column];
    const std::uint32_t type = comparisonColumnType(comparison, column);
    if (info.kind == gguf::ComparisonColumn::Kind::Simulated)
        return QCoreApplication::translate("ComparisonColumnTitle", "%1 (simulated)").arg(typeTitle(type));
    return type == 0 ? QString::fromStdString(info.label) : typeTitle(type);  // nothing comparable: the file
}

}  // namespace

std::uint32_t comparisonColumnType(const gguf::ModelComparison& comparison, std::size_t column)
{
    const gguf::ComparisonColumn& info = comparison.columns()[column];
    if (info.kind == gguf::ComparisonColumn::Kind::Simulated)
        return info.simulatedType;
    std::map<std::uint32_t, std::uint64_t> elements;
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].cells[column].ok())
            elements[comparison.rows()[r].cells[column].typeId] += comparison.cellElements(r, column);
    std::uint32_t best = 0;
    std::uint64_t most = 0;
    for (const auto& [type, count] : elements)
        if (count > most) {
            best = type;
            most = count;
        }
    return best;
}

QString comparisonColumnTitle(const gguf::ModelComparison& comparison, std::size_t column)
{
    const QString title = baseTitle(comparison, column);
    for (std::size_t other = 0; other < comparison.columns().size(); ++other)
        if (other != column && baseTitle(comparison, other) == title)
            return QStringLiteral("%1 [%2]").arg(title).arg(column + 1);
    return title;
}

QString comparisonColumnSource(const gguf::ModelComparison& comparison, std::size_t column)
{
    const gguf::ComparisonColumn& info = comparison.columns()[column];
    if (info.kind == gguf::ComparisonColumn::Kind::Simulated)
        return QCoreApplication::translate("ComparisonColumnTitle", "the reference quantized to %1 in memory")
            .arg(QString::fromStdString(gguf::typeName(info.simulatedType)));
    return QString::fromStdString(info.model->primary().path());
}
