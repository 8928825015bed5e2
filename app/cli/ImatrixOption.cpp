#include "ImatrixOption.h"

#include "CliArguments.h"
#include "core/imatrix/ImatrixValidation.h"

std::shared_ptr<const gguf::ImportanceMatrix> loadImatrixForModelOrReport(const std::string& path, const gguf::Model& model)
{
    auto loaded = gguf::ImportanceMatrix::load(path);
    if (!loaded) {
        reportFailure("cannot read the importance matrix: " + loaded.error().toString());
        return nullptr;
    }
    auto matrix = std::make_shared<gguf::ImportanceMatrix>(std::move(loaded.value()));
    const gguf::ImatrixValidation validation = gguf::validateImatrix(*matrix, model);
    for (const gguf::ImatrixIssue& issue : validation.issues)
        if (issue.severity == gguf::ImatrixSeverity::Error) {
            reportFailure("the importance matrix does not fit the model: " + issue.toString());
            return nullptr;
        }
    return matrix;
}

gguf::ImportanceLookup importanceLookupOf(std::shared_ptr<const gguf::ImportanceMatrix> matrix)
{
    return [matrix = std::move(matrix)](std::string_view name, std::size_t expert) {
        const gguf::ImportanceEntry* entry = matrix->find(name);
        return entry ? entry->quantWeights(expert) : std::vector<float>{};
    };
}
