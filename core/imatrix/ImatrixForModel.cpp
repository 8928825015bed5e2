#include "core/imatrix/ImatrixForModel.h"

namespace gguf {

std::string imatrixRefusal(const ImatrixValidation& validation)
{
    for (const ImatrixIssue& issue : validation.issues) {
        if (issue.severity != ImatrixSeverity::Error)
            continue;
        // An error about the whole file says what it is on its own; one about an entry is put
        // in the words of a misfit.
        if (issue.tensor.empty() && issue.field.empty())
            return issue.message;
        return "the importance matrix does not fit the model: " + issue.toString();
    }
    return {};
}

Result<ImatrixFit> fitImatrixToModel(ImportanceMatrix& matrix, const Model& model)
{
    ImatrixFit fit;
    fit.validation = validateImatrix(matrix, model);
    if (std::string refusal = imatrixRefusal(fit.validation); !refusal.empty())
        return Error{std::move(refusal), Error::kNoOffset, {}};
    fit.coverage = imatrixCoverage(matrix, model);
    return fit;
}

Result<ImatrixForModel> loadImatrixForModel(const std::string& path, const Model& model)
{
    auto loaded = ImportanceMatrix::load(path);
    if (!loaded)
        return Error{"cannot read the importance matrix: " + loaded.error().toString(), Error::kNoOffset, {}};
    auto matrix = std::make_shared<ImportanceMatrix>(std::move(loaded.value()));
    auto fit = fitImatrixToModel(*matrix, model);
    if (!fit)
        return fit.error();
    return ImatrixForModel{std::move(matrix), std::move(fit.value())};
}

}  // namespace gguf
