#include "ui/session/ComparisonColumnTitle.h"

#include "core/recipe/QuantPresets.h"
#include "core/recipe/RecipeAudit.h"  // presetInFileName

#include <QCoreApplication>
#include <QFileInfo>
#include <QStringList>
#include <map>

namespace {

QString typeTitle(std::uint32_t typeId)
{
    return QString::fromStdString(gguf::typeName(typeId)).toUpper();
}

// The preset that made the file: general.file_type first (what llama-quantize wrote), else the
// one the file name spells; null for a file that names neither (a converted F16 has file type 1,
// MOSTLY_F16, which is the preset F16).
const gguf::QuantPreset* filePreset(const gguf::Model& model)
{
    if (const auto fileType = model.metadataUInt("general.file_type"))
        if (const gguf::QuantPreset* preset = gguf::presetForFileType(*fileType))
            return preset;
    return gguf::presetInFileName(QFileInfo(QString::fromStdString(model.primary().path())).fileName().toStdString());
}

QString baseTitle(const gguf::ModelComparison& comparison, std::size_t column)
{
    const gguf::ComparisonColumn& info = comparison.columns()[column];
    if (info.kind == gguf::ComparisonColumn::Kind::Simulated)
        return QCoreApplication::translate("ComparisonColumnTitle", "%1 (simulated)").arg(typeTitle(info.simulatedType));
    if (const gguf::QuantPreset* preset = filePreset(*info.model))
        return QString::fromLatin1(preset->name.data(), static_cast<qsizetype>(preset->name.size())).toUpper();
    const std::uint32_t type = comparisonColumnType(comparison, column);
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
    const gguf::ComparisonColumn& info = comparison.columns()[column];
    for (std::size_t other = 0; other < comparison.columns().size(); ++other)
        if (other != column && baseTitle(comparison, other) == title && info.kind == gguf::ComparisonColumn::Kind::File)
            return QStringLiteral("%1 · %2").arg(title, QFileInfo(QString::fromStdString(info.model->primary().path())).completeBaseName());
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

int comparisonColumnTypeRepeat(const gguf::ModelComparison& comparison, std::size_t column)
{
    const std::uint32_t type = comparisonColumnType(comparison, column);
    int repeats = 0;
    for (std::size_t earlier = 0; earlier < column; ++earlier)
        repeats += comparison.columns()[earlier].kind == comparison.columns()[column].kind && comparisonColumnType(comparison, earlier) == type;
    return repeats;
}

QString comparisonSubject(const gguf::ModelComparison& comparison, const std::vector<std::size_t>& columns)
{
    QStringList titles;
    for (const std::size_t column : columns)
        titles << comparisonColumnTitle(comparison, column);
    const gguf::Model& reference = comparison.reference();
    const QString file = QFileInfo(QString::fromStdString(reference.primary().path())).fileName();
    const QString name = QString::fromStdString(reference.metadataString("general.name"));
    const QString against = QCoreApplication::translate("ComparisonColumnTitle", "%1 against the reference %2").arg(titles.join(QStringLiteral(", ")), file);
    return name.isEmpty() ? against : QCoreApplication::translate("ComparisonColumnTitle", "model %1: %2").arg(name, against);
}

QString comparisonSubject(const gguf::ModelComparison& comparison)
{
    std::vector<std::size_t> all(comparison.columns().size());
    for (std::size_t c = 0; c < all.size(); ++c)
        all[c] = c;
    return comparisonSubject(comparison, all);
}
