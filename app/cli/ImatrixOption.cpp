#include "ImatrixOption.h"

#include "CliArguments.h"
#include "core/imatrix/ImatrixForModel.h"

std::shared_ptr<const gguf::ImportanceMatrix> loadImatrixForModelOrReport(const std::string& path, const gguf::Model& model,
                                                                          gguf::ImatrixValidation* validation)
{
    auto loaded = gguf::loadImatrixForModel(path, model);
    if (!loaded) {
        reportFailure(loaded.error().toString());
        return nullptr;
    }
    if (validation)
        *validation = std::move(loaded.value().validation);
    return loaded.value().matrix;
}

gguf::ImportanceLookup importanceLookupOf(std::shared_ptr<const gguf::ImportanceMatrix> matrix)
{
    return [matrix = std::move(matrix)](std::string_view name, std::size_t expert) {
        const gguf::ImportanceEntry* entry = matrix->find(name);
        return entry ? entry->quantWeights(expert) : std::vector<float>{};
    };
}
