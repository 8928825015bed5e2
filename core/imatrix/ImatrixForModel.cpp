#include "core/imatrix/ImatrixForModel.h"

namespace gguf {

Result<ImatrixValidation> fitImatrixToModel(ImportanceMatrix& matrix, const Model& model)
{
    ImatrixValidation validation = validateImatrix(matrix, model);
    for (const ImatrixIssue& issue : validation.issues)
        if (issue.severity == ImatrixSeverity::Error)
            return Error{"the importance matrix does not fit the model: " + issue.toString(), Error::kNoOffset, {}};
    return validation;
}

Result<ImatrixForModel> loadImatrixForModel(const std::string& path, const Model& model)
{
    auto loaded = ImportanceMatrix::load(path);
    if (!loaded)
        return Error{"cannot read the importance matrix: " + loaded.error().toString(), Error::kNoOffset, {}};
    auto matrix = std::make_shared<ImportanceMatrix>(std::move(loaded.value()));
    ImatrixForModel result;
    auto validation = fitImatrixToModel(*matrix, model);
    if (!validation)
        return validation.error();
    result.validation = std::move(validation.value());
    result.matrix = std::move(matrix);
    return result;
}

}  // namespace gguf
