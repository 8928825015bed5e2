#include "core/imatrix/ImatrixForModel.h"

namespace gguf {

Result<ImatrixForModel> loadImatrixForModel(const std::string& path, const Model& model)
{
    auto loaded = ImportanceMatrix::load(path);
    if (!loaded)
        return Error{"cannot read the importance matrix: " + loaded.error().toString(), Error::kNoOffset, {}};
    auto matrix = std::make_shared<ImportanceMatrix>(std::move(loaded.value()));
    ImatrixForModel result;
    result.validation = validateImatrix(*matrix, model);
    for (const ImatrixIssue& issue : result.validation.issues)
        if (issue.severity == ImatrixSeverity::Error)
            return Error{"the importance matrix does not fit the model: " + issue.toString(), Error::kNoOffset, {}};
    result.matrix = std::move(matrix);
    return result;
}

}  // namespace gguf
