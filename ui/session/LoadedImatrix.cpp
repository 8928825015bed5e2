#include "ui/session/LoadedImatrix.h"

#include "core/base/EscapedText.h"
#include "core/gguf/Model.h"
#include "core/imatrix/ImatrixForModel.h"

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
        result->refusal = QString::fromStdString(gguf::escapeForDisplay(gguf::imatrixRefusal(result->validation)));
        if (result->refusal.isEmpty())
            for (const std::string& warning : gguf::imatrixCoverage(*matrix, *model).warnings())
                result->warnings << QString::fromStdString(gguf::escapeForDisplay(warning));
    } else {
        result->validation = gguf::validateImatrix(*matrix);
    }
    result->statistics = gguf::computeImatrixStatistics(*matrix);
    result->routing = gguf::computeExpertRouting(*matrix);
    result->coverage = gguf::computeCoverage(*matrix);
    result->matrix = std::move(matrix);
    return std::shared_ptr<const LoadedImatrix>(std::move(result));
}
