#include "ui/session/LoadedImatrix.h"

#include "core/gguf/Model.h"

gguf::Result<std::shared_ptr<const LoadedImatrix>> LoadedImatrix::load(const QString& path, const gguf::Model* model)
{
    auto loaded = gguf::ImportanceMatrix::load(path.toStdString());
    if (!loaded)
        return loaded.error();
    auto matrix = std::make_shared<gguf::ImportanceMatrix>(std::move(loaded.value()));
    auto result = std::make_shared<LoadedImatrix>();
    if (model) {
        result->validation = gguf::validateImatrix(*matrix, *model);
        result->modelPath = QString::fromStdString(model->primary().path());
    } else {
        result->validation = gguf::validateImatrix(*matrix);
    }
    result->statistics = gguf::computeImatrixStatistics(*matrix);
    result->routing = gguf::computeExpertRouting(*matrix);
    result->coverage = gguf::computeCoverage(*matrix);
    result->matrix = std::move(matrix);
    return std::shared_ptr<const LoadedImatrix>(std::move(result));
}
