#include "ImatrixOption.h"

#include "CliArguments.h"
#include "ModelOpening.h"
#include "core/imatrix/ImatrixForModel.h"

#include <cstdio>

std::shared_ptr<const gguf::ImportanceMatrix> loadImatrixForModelOrReport(const std::string& path, const gguf::Model& model,
                                                                          gguf::ImatrixCoverage* coverage,
                                                                          gguf::ImatrixValidation* validation)
{
    auto loaded = gguf::loadImatrixForModel(path, model);
    if (!loaded) {
        reportFailure(loaded.error().toString());
        return nullptr;
    }
    const gguf::ImatrixCoverage covered = gguf::imatrixCoverage(*loaded.value().matrix, model);
    warnAboutImatrixCoverage(covered);
    if (coverage)
        *coverage = covered;
    if (validation)
        *validation = std::move(loaded.value().validation);
    return loaded.value().matrix;
}

void warnAboutImatrixCoverage(const gguf::ImatrixCoverage& coverage)
{
    if (coverage.worthWarning())
        std::fprintf(stderr, "gguf-explorer-cli: warning: %s\n", shown(coverage.warning()).c_str());
}

void writeImatrixCoverageJson(gguf::JsonWriter& json, const gguf::ImatrixCoverage& coverage)
{
    json.key("imatrix_coverage");
    json.beginObject();
    json.key("matrices");
    json.value(static_cast<std::uint64_t>(coverage.matrices));
    json.key("uncovered_count");
    json.value(static_cast<std::uint64_t>(coverage.uncovered.size()));
    json.key("uncovered");
    json.beginArray();
    for (const std::string& name : coverage.uncovered)
        json.value(name);
    json.endArray();
    json.endObject();
}

gguf::ImportanceLookup importanceLookupOf(std::shared_ptr<const gguf::ImportanceMatrix> matrix)
{
    return [matrix = std::move(matrix)](std::string_view name, std::size_t expert) {
        const gguf::ImportanceEntry* entry = matrix->find(name);
        return entry ? entry->quantWeights(expert) : std::vector<float>{};
    };
}
