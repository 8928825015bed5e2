#include "CompareWithImatrix.h"

#include "ImatrixOption.h"
#include "ModelOpening.h"
#include "core/base/JsonWriter.h"
#include "core/compare/ColumnErrorProfile.h"
#include "core/compare/ImportanceErrorMetrics.h"
#include "core/compare/LayerErrorMetrics.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace {

struct LoadedImportance {
    std::shared_ptr<const gguf::ImportanceMatrix> matrix;
    gguf::ImatrixValidation validation;
};

LoadedImportance& loadedImportance()
{
    static LoadedImportance loaded;
    return loaded;
}

std::string scientific(double value)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.4e", value);
    return text;
}

}  // namespace

bool prepareCompareImportance(const CliArguments& args, const std::vector<std::shared_ptr<const gguf::Model>>& models,
                              gguf::ComparisonOptions& options, int& status)
{
    const auto path = args.value("--imatrix");
    if (!path) {
        if (args.has("--column-errors") || args.has("--expert")) {
            // --column-errors works without a matrix (plain error per column); --expert needs it.
            if (args.has("--expert") && !args.has("--column-errors")) {
                status = reportFailure("--expert goes with --column-errors", 2);
                return false;
            }
        }
        return true;
    }
    // The reference decides the shapes the matrix must fit: find it as the comparison will. The
    // probe simulates nothing: a type that needs importance weights would fail it, since the
    // weights are set only below.
    gguf::ComparisonOptions probeOptions = options;
    probeOptions.simulatedTypes.clear();
    if (models.size() < 2)
        probeOptions.simulatedTypes.push_back(gguf::typeIdValue(gguf::GgmlTypeId::Q8_0));
    auto probe = gguf::ModelComparison::create(models, probeOptions);
    if (!probe) {
        status = reportFailure(probe.error().toString(), 2);
        return false;
    }
    LoadedImportance& state = loadedImportance();
    // Refused as convert, kld and plan refuse it: weighted figures from unusable numbers are no figures.
    state.matrix = loadImatrixForModelOrReport(*path, probe->reference(), nullptr, &state.validation);
    if (!state.matrix) {
        status = 1;
        return false;
    }
    // Simulated columns then quantize as llama-quantize --imatrix does: each expert's rows with its weights.
    options.importance = state.matrix;
    return true;
}

void appendImportanceHeader(std::string& out)
{
    if (!loadedImportance().matrix)
        return;
    char line[64];
    for (const gguf::ErrorMetricInfo& metric : gguf::importanceMetricTable()) {
        std::snprintf(line, sizeof line, " %*s", metric.cliWidth, metric.cliHeader);
        out += line;
    }
}

void appendImportanceValues(std::string& out, const gguf::ErrorMetrics& m)
{
    if (!loadedImportance().matrix)
        return;
    char line[64];
    for (const gguf::ErrorMetricInfo& metric : gguf::importanceMetricTable()) {
        std::snprintf(line, sizeof line, metric.cliConversion == 'f' ? " %*.*f" : " %*.*e", metric.cliWidth, metric.cliPrecision,
                      metric.valueIn(m));
        out += line;
    }
}

void appendImportanceSections(std::string& out, const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results)
{
    const LoadedImportance& state = loadedImportance();
    if (!state.matrix)
        return;
    std::size_t weighted = 0;
    for (const gguf::ComparisonRow& row : comparison.rows())
        if (const gguf::ImportanceEntry* e = state.matrix->find(row.reference->name);
            e && e->columnCount() == static_cast<std::size_t>(row.reference->ne[0]))
            ++weighted;
    out += "\nimportance matrix: " + shown(state.matrix->path()) + " (" + std::to_string(weighted) + " of "
         + std::to_string(comparison.rows().size()) + " compared tensors weighted; w_sq_err = sum w (x - q)^2, rel_w_err = that / sum w x^2)\n";
    for (const gguf::ImatrixIssue& issue : state.validation.issues)
        if (issue.severity != gguf::ImatrixSeverity::Note)
            out += "  " + shown(issue.toString()) + "\n";
    bool simulated = false;
    for (const gguf::ComparisonColumn& column : comparison.columns())
        simulated = simulated || column.kind == gguf::ComparisonColumn::Kind::Simulated;
    if (simulated)
        out += "  simulated columns are quantized with the importance matrix (as llama-quantize --imatrix) and weighted by it\n";

    char line[256];
    for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
        const std::vector<gguf::LayerErrorMetrics> layers = gguf::layerErrorMetrics(comparison, results, c);
        if (layers.empty())
            continue;
        out += "\nper layer, column " + std::to_string(c + 1) + ":\n";
        std::snprintf(line, sizeof line, "  %5s %8s %11s %11s %11s\n", "layer", "tensors", "rel_rmse", "w_sq_err", "rel_w_err");
        out += line;
        for (const gguf::LayerErrorMetrics& layer : layers) {
            std::snprintf(line, sizeof line, "  %5u %8zu %11.4e %11.4e %11.4e\n", layer.layer, layer.tensorCount, layer.metrics.relativeRmse,
                          layer.metrics.weightedSquaredError, layer.metrics.relativeWeightedError);
            out += line;
        }
    }
    bool header = false;
    for (std::size_t r = 0; r < comparison.rows().size() && r < results.expertCells.size(); ++r)
        for (std::size_t c = 0; c < results.expertCells[r].size(); ++c) {
            const std::vector<gguf::ErrorMetrics>& experts = results.expertCells[r][c];
            if (experts.empty())
                continue;
            if (!header) {
                out += "\nper expert (relative weighted error, expert 0 first; the worst marked *):\n";
                header = true;
            }
            std::size_t worst = 0;
            for (std::size_t e = 1; e < experts.size(); ++e)
                if (experts[e].relativeWeightedError > experts[worst].relativeWeightedError)
                    worst = e;
            out += "  " + shown(comparison.rows()[r].reference->name) + " [" + std::to_string(c + 1) + "]:";
            for (std::size_t e = 0; e < experts.size(); ++e)
                out += " " + scientific(experts[e].relativeWeightedError) + (e == worst ? "*" : "");
            out += "\n";
        }
}

int runColumnErrorsIfAsked(const CliArguments& args, const gguf::ModelComparison& comparison)
{
    const auto tensor = args.value("--column-errors");
    if (!tensor)
        return -1;
    std::optional<std::size_t> expert;
    if (const auto text = args.value("--expert")) {
        char* end = nullptr;
        const unsigned long long n = std::strtoull(text->c_str(), &end, 10);
        if (text->empty() || *end != '\0' || (*text)[0] == '-')
            return reportFailure("--expert needs a non-negative whole number, not '" + *text + "'", 2);
        expert = static_cast<std::size_t>(n);
    }
    std::size_t row = comparison.rows().size();
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].reference->name == *tensor)
            row = r;
    if (row == comparison.rows().size())
        return reportFailure("--column-errors: no compared tensor named '" + *tensor + "'", 2);
    std::vector<gguf::ColumnErrorProfile> profiles;
    for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
        if (!comparison.rows()[row].cells[c].ok())
            continue;
        auto profile = gguf::computeColumnErrorProfile(comparison, row, c, expert);
        if (!profile)
            return reportFailure(profile.error().toString());
        profiles.push_back(std::move(profile.value()));
    }
    if (profiles.empty())
        return reportFailure("--column-errors: '" + *tensor + "' could not be compared with any column");
    if (!inputsUnchangedOrReport())
        return 1;
    std::string out;
    if (args.has("--json")) {
        gguf::JsonWriter json(out);
        json.beginObject();
        json.key("tensor"), json.value(*tensor);
        json.key("expert");
        expert ? json.value(static_cast<std::uint64_t>(*expert)) : json.null();
        json.key("importance"), json.beginArray();
        if (!profiles.front().importance.empty())
            for (float w : profiles.front().importance)
                json.value(static_cast<double>(w));
        json.endArray();
        json.key("columns"), json.beginArray();
        for (const gguf::ColumnErrorProfile& p : profiles) {
            json.beginObject();
            json.key("column"), json.value(static_cast<std::uint64_t>(p.column + 1));
            json.key("label"), json.value(comparison.columns()[p.column].label);
            json.key("values_per_column"), json.value(p.valuesPerColumn);
            json.key("non_finite"), json.value(p.nonFinite);
            json.key("squared_error"), json.beginArray();
            for (double v : p.squaredError)
                json.value(v);
            json.endArray();
            json.key("weighted_squared_error"), json.beginArray();
            for (double v : p.weightedError)
                json.value(v);
            json.endArray();
            json.endObject();
        }
        json.endArray();
        json.endObject();
        out += '\n';
    } else {
        const std::size_t shownColumns = 16;
        for (const gguf::ColumnErrorProfile& p : profiles) {
            const double totalError = std::accumulate(p.squaredError.begin(), p.squaredError.end(), 0.0);
            const double totalWeighted = std::accumulate(p.weightedError.begin(), p.weightedError.end(), 0.0);
            double totalImportance = 0.0;
            for (float w : p.importance)
                totalImportance += w;
            out += shown(*tensor) + (expert ? " expert " + std::to_string(*expert) : std::string()) + " vs [" + std::to_string(p.column + 1)
                 + "] " + shown(comparison.columns()[p.column].label) + ": error per input column";
            const bool weighted = !p.weightedError.empty();
            out += weighted ? ", the " + std::to_string(shownColumns) + " columns with the most weighted error\n"
                            : " (no importance for this tensor), the " + std::to_string(shownColumns) + " columns with the most error\n";
            const std::vector<double>& key = weighted ? p.weightedError : p.squaredError;
            std::vector<std::size_t> order(key.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            const std::size_t n = std::min(shownColumns, order.size());
            std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                              [&](std::size_t a, std::size_t b) { return key[a] > key[b] || (key[a] == key[b] && a < b); });
            char line[256];
            std::snprintf(line, sizeof line, "  %8s %12s %10s %12s %10s %10s\n", "column", "importance", "imp_share", "mse", "err_share",
                          "w_err_share");
            out += line;
            for (std::size_t k = 0; k < n; ++k) {
                const std::size_t j = order[k];
                const double mse = p.valuesPerColumn ? p.squaredError[j] / double(p.valuesPerColumn) : 0.0;
                std::snprintf(line, sizeof line, "  %8zu %12.4e %9.2f%% %12.4e %9.2f%% %9.2f%%\n", j,
                              weighted ? double(p.importance[j]) : std::nan(""),
                              weighted && totalImportance > 0 ? 100.0 * p.importance[j] / totalImportance : std::nan(""), mse,
                              totalError > 0 ? 100.0 * p.squaredError[j] / totalError : 0.0,
                              weighted && totalWeighted > 0 ? 100.0 * p.weightedError[j] / totalWeighted : std::nan(""));
                out += line;
            }
        }
    }
    writeStdout(out);
    return 0;
}
