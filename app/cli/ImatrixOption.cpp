#include "ImatrixOption.h"

#include "CliArguments.h"
#include "ModelOpening.h"
#include "core/imatrix/ImatrixForModel.h"

#include <cstdio>

namespace {

// "gguf-explorer-cli: warning: the importance matrix has no entry for ...", one line each.
void warnAboutImatrixFit(const gguf::ImatrixFit& fit)
{
    for (const std::string& warning : fit.warnings())
        std::fprintf(stderr, "gguf-explorer-cli: warning: %s\n", shown(warning).c_str());
}

}  // namespace

std::shared_ptr<const gguf::ImportanceMatrix> loadImatrixForModelOrReport(const std::string& path, const gguf::Model& model,
                                                                          gguf::ImatrixCoverage* coverage,
                                                                          gguf::ImatrixValidation* validation)
{
    auto loaded = gguf::loadImatrixForModel(path, model);
    if (!loaded) {
        reportFailure(loaded.error().toString());
        return nullptr;
    }
    const gguf::ImatrixFit& fit = loaded.value().fit;
    warnAboutImatrixFit(fit);
    if (coverage)
        *coverage = fit.coverage;
    if (validation)
        *validation = fit.validation;
    return loaded.value().matrix;
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
