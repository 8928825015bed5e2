// compare: per-tensor error metrics of one or more models (or simulated quantizations) against a
// reference model, as a table or JSON.

#include "app/threads/ParallelRows.h"
#include "Commands.h"
#include "CompareWithImatrix.h"
#include "core/compare/ComparisonJson.h"
#include "core/compare/ErrorMetricTable.h"
#include "core/base/JsonWriter.h"
#include "core/compare/ModelComparison.h"
#include "core/compare/NothingCompared.h"
#include "ModelOpening.h"
#include "QuantChoices.h"
#include "core/quantize/Quantize.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/recipe/ModelShape.h"
#include "core/base/UserPattern.h"

#include <optional>
#include <cstdio>

namespace {

// The metric columns of the text table: the metric table's rows with a CLI header, in its order.
void appendMetricsLine(std::string& out, const char* name, const std::string& column, const std::string& type,
                       const gguf::ErrorMetrics& m)
{
    char line[512];
    std::snprintf(line, sizeof line, "%-34s %4s %-7s", name, column.c_str(), type.c_str());
    out += line;
    for (const gguf::ErrorMetricInfo& metric : gguf::errorMetricTable()) {
        if (!metric.cliHeader)
            continue;
        const char* format = metric.cliConversion == 'f' ? " %*.*f" : " %*.*e";
        std::snprintf(line, sizeof line, format, metric.cliWidth, metric.cliPrecision, metric.valueIn(m));
        out += line;
    }
    appendImportanceValues(out, m);
    out += '\n';
}

void appendMetricsHeader(std::string& out)
{
    char line[512];
    std::snprintf(line, sizeof line, "\n%-34s %4s %-7s", "tensor", "col", "type");
    out += line;
    for (const gguf::ErrorMetricInfo& metric : gguf::errorMetricTable()) {
        if (!metric.cliHeader)
            continue;
        std::snprintf(line, sizeof line, " %*s", metric.cliWidth, metric.cliHeader);
        out += line;
    }
    appendImportanceHeader(out);
    out += '\n';
}

void writeText(const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results, std::string& out)
{
    const gguf::ModelSummary reference = comparison.reference().summary();
    char line[512];
    std::snprintf(line, sizeof line, "reference: %s (%.2f bits/weight)\n", shown(comparison.reference().primary().path()).c_str(),
                  reference.averageBitsPerWeight);
    out += line;
    for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
        // Appended piece by piece: GCC 12's -Wrestrict misfires on "[" + std::string at -O2.
        out += '[';
        out += std::to_string(c + 1);
        out += "] ";
        out += shown(comparison.columns()[c].label);
        out += '\n';
    }
    appendMetricsHeader(out);
    for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
        const gguf::ComparisonRow& row = comparison.rows()[r];
        const std::string name = shown(row.reference->name);
        for (std::size_t c = 0; c < row.cells.size(); ++c) {
            const gguf::ComparisonCell& cell = row.cells[c];
            const std::string column = std::to_string(c + 1);
            if (!cell.ok() || !results.cells[r][c]) {
                std::snprintf(line, sizeof line, "%-34s %4s %-7s %s: %s\n", name.c_str(), column.c_str(), "-",
                              gguf::cellStatusName(cell.status), shown(cell.problem).c_str());
                out += line;
                continue;
            }
            appendMetricsLine(out, name.c_str(), column, gguf::typeName(cell.typeId), *results.cells[r][c]);
        }
    }
    out += "\nall compared tensors together:\n";
    for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
        const std::size_t tensors = results.columnTensorCounts[c];
        std::string label(1, '(');  // appended: GCC 12's -Wrestrict misfires on "x" + std::string
        label += std::to_string(tensors);
        label += tensors == 1 ? " tensor)" : " tensors)";
        appendMetricsLine(out, label.c_str(), std::to_string(c + 1), "", results.columnTotals[c]);
    }
    if (!comparison.problems().empty()) {
        out += "\nproblems:\n";
        for (const std::string& problem : comparison.problems()) {
            out += "  ";
            out += shown(problem);
            out += '\n';
        }
    }
}

// --preset: each preset's recipe for the reference (with the imatrix rules when a matrix is
// given), as llama-quantize would choose it; false after reporting why not.
bool addSimulatedPresets(const std::vector<QuantChoice>& presets, const std::vector<std::shared_ptr<const gguf::Model>>& models,
                         gguf::ComparisonOptions& options)
{
    // The reference as create() will pick it (a placeholder column, so that it has one).
    gguf::ComparisonOptions probeOptions;
    probeOptions.referenceIndex = options.referenceIndex;
    probeOptions.simulatedTypes = {gguf::typeIdValue(gguf::GgmlTypeId::Q8_0)};
    auto probe = gguf::ModelComparison::create(models, probeOptions);
    if (!probe) {
        reportFailure(probe.error().toString());
        return false;
    }
    const gguf::Model& reference = probe->reference();
    for (const QuantChoice& choice : presets) {
        gguf::RecipeOptions recipeOptions;
        recipeOptions.preset = choice.preset;
        recipeOptions.hasImatrix = options.importance != nullptr;
        auto recipe = gguf::computeRecipe(gguf::readModelShape(reference), reference.tensors(), recipeOptions);
        if (!recipe) {
            reportFailure(recipe.error().toString());
            return false;
        }
        if (!recipe->refusal.empty()) {
            reportFailure("cannot simulate " + std::string(choice.preset->name) + " without --imatrix: " + recipe->refusal);
            return false;
        }
        auto types = std::make_shared<std::unordered_map<std::string, std::uint32_t>>();
        for (const gguf::RecipeTensor& tensor : recipe->tensors)
            if (tensor.converted)
                types->emplace(std::string(tensor.source->name), tensor.typeId);
        options.simulatedRecipes.push_back({std::string(choice.preset->name), std::move(types)});
    }
    return true;
}

}  // namespace

int runCompare(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "compare");
    if (!args.error.empty() || args.positionals.empty())
        return reportFailure(args.error.empty() ? commandUsage("compare") : args.error, 2);

    gguf::ComparisonOptions options;
    if (!args.has("--auto-reference"))
        options.referenceIndex = 0;
    // --type, or its older spelling --simulate: ggml types (QuantChoices.h).
    for (const char* option : {"--type", "--simulate"}) {
        const auto list = args.value(option);
        if (!list)
            continue;
        std::string error;
        const auto types = parseQuantChoices(*list, QuantChoiceKind::Type, option, error);
        if (!types)
            return reportFailure(error, 2);
        for (const QuantChoice& choice : *types)
            options.simulatedTypes.push_back(choice.type);
    }
    std::vector<QuantChoice> presets;
    if (const auto list = args.value("--preset")) {
        std::string error;
        auto parsed = parseQuantChoices(*list, QuantChoiceKind::Preset, "--preset", error);
        if (!parsed)
            return reportFailure(error, 2);
        presets = std::move(*parsed);
    }
    if (args.positionals.size() < 2 && options.simulatedTypes.empty() && presets.empty())
        return reportFailure("compare needs a second file, --type TYPES or --preset PRESETS", 2);
    std::optional<gguf::UserPattern> filter;
    if (const auto pattern = args.value("--filter")) {
        auto compiled = gguf::UserPattern::compile(*pattern);
        if (!compiled)
            return reportFailure("--filter: " + compiled.error().message, 2);
        filter = std::move(*compiled);
        options.includeTensor = [&filter](std::string_view name) { return filter->foundIn(name); };
    }
    gguf::ComparisonRunOptions run;
    std::optional<gguf::ParallelRows> ownPool;  // --threads; otherwise the shared pool (GGUFX_THREADS)
    if (const auto threads = args.value("--threads")) {
        const long n = std::strtol(threads->c_str(), nullptr, 10);
        if (n < 1 || n > 1024)
            return reportFailure("--threads must be a whole number from 1 to 1024", 2);
        ownPool.emplace(static_cast<unsigned>(n));
    }
    run.executor = ownPool ? &*ownPool : &gguf::ParallelRows::shared();

    std::vector<std::shared_ptr<const gguf::Model>> models;
    for (const std::string& path : args.positionals) {
        auto model = openModelOrReport(path);
        if (!model)
            return 1;
        models.push_back(std::move(model));
    }
    if (int status = 0; !prepareCompareImportance(args, models, options, status))
        return status;
    if (!presets.empty() && !addSimulatedPresets(presets, models, options))
        return 1;
    auto comparison = gguf::ModelComparison::create(std::move(models), options);
    if (!comparison)
        return reportFailure(comparison.error().toString(), 2);
    if (comparison->rows().empty())
        return reportFailure("no tensor of the reference matches --filter '" + args.value("--filter").value_or("") + "'");
    if (const int status = runColumnErrorsIfAsked(args, *comparison); status >= 0)
        return status;
    auto results = gguf::runComparison(*comparison, run);
    if (!results)
        return reportFailure(results.error().toString());
    bool anyComputed = false;
    for (const std::size_t count : results->columnTensorCounts)
        anyComputed = anyComputed || count > 0;
    if (!anyComputed)
        return reportFailure("no tensor could be compared: " + gguf::whyNothingCompared(*comparison));
    if (!inputsUnchangedOrReport())
        return 1;
    std::string out;
    if (args.has("--json"))
        gguf::writeComparisonJson(*comparison, *results, out);
    else
        writeText(*comparison, *results, out);
    if (!args.has("--json"))
        appendImportanceSections(out, *comparison, *results);
    writeStdout(out);
    return 0;
}
