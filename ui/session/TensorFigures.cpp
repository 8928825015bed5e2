#include "ui/session/TensorFigures.h"

#include "core/compare/ModelComparison.h"
#include "core/sensitivity/SensitivityScan.h"
#include "core/types/GgmlType.h"
#include "ui/session/LoadedImatrix.h"

#include <cmath>

namespace {

QString fileNameOf(const std::string& path)
{
    const QString whole = QString::fromStdString(path);
    return whole.mid(whole.lastIndexOf(QLatin1Char('/')) + 1);
}

QString typeName(std::uint32_t typeId)
{
    const gguf::TypeTraits* traits = gguf::findType(typeId);
    return traits ? QString::fromLatin1(traits->name) : QStringLiteral("type %1").arg(typeId);
}

}  // namespace

std::vector<TensorFigureSet> weightErrorFigures(const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results)
{
    std::vector<TensorFigureSet> sets;
    const auto& columns = comparison.columns();
    const QString referencePath = QString::fromStdString(comparison.reference().primary().path());
    const QString referenceName = fileNameOf(comparison.reference().primary().path());
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const gguf::ComparisonColumn& column = columns[c];
        const bool file = column.kind == gguf::ComparisonColumn::Kind::File && column.model;
        TensorFigureSet set;
        set.kind = TensorFigureKind::WeightError;
        set.modelPath = file ? QString::fromStdString(column.model->primary().path()) : referencePath;
        set.label = QStringLiteral("Weight error: rel. RMSE of %1 vs %2").arg(QString::fromStdString(column.label), referenceName);
        for (std::size_t r = 0; r < comparison.rows().size() && r < results.cells.size(); ++r) {
            const auto& cell = c < results.cells[r].size() ? results.cells[r][c] : std::nullopt;
            const gguf::TensorInfo* tensor = comparison.rows()[r].reference;
            if (cell && tensor && std::isfinite(cell->relativeRmse))
                set.values.emplace(std::string(tensor->name), cell->relativeRmse);
        }
        if (!set.values.empty())
            sets.push_back(std::move(set));
    }
    return sets;
}

std::vector<TensorFigureSet> scanFigures(const QString& modelPath, const gguf::ScanRecord& record)
{
    std::vector<TensorFigureSet> sets;
    for (const std::uint32_t type : record.identity.types) {
        TensorFigureSet set;
        set.kind = TensorFigureKind::ScanSensitivity;
        set.modelPath = modelPath;
        set.label = QStringLiteral("Scan: mean KLD with the tensor at %1").arg(typeName(type));
        for (std::size_t p = 0; p < record.probes.size() && p < record.figures.size(); ++p) {
            const gguf::ProbeKey& key = record.probes[p];
            if (key.type == type && record.figures[p] && key.group < record.groups.size())
                set.values.emplace(record.groups[key.group].tensor, record.figures[p]->meanKld);
        }
        if (!set.values.empty())
            sets.push_back(std::move(set));
    }
    return sets;
}

std::vector<TensorFigureSet> importanceFigures(const LoadedImatrix& imatrix)
{
    if (imatrix.modelPath.isEmpty())
        return {};
    TensorFigureSet set;
    set.kind = TensorFigureKind::ImatrixImportance;
    set.modelPath = imatrix.modelPath;
    set.label = QStringLiteral("Importance: Σ act² of %1").arg(fileNameOf(imatrix.matrix ? imatrix.matrix->path() : std::string()));
    for (const gguf::ImatrixTensorStatistics& tensor : imatrix.statistics.tensors)
        set.values.emplace(tensor.name, tensor.total);
    if (set.values.empty())
        return {};
    return {std::move(set)};
}
