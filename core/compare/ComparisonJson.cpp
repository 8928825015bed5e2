#include "core/compare/ComparisonJson.h"

#include "core/base/JsonWriter.h"
#include "core/compare/ImportanceErrorMetrics.h"
#include "core/compare/LayerErrorMetrics.h"
#include "core/imatrix/ImatrixCoverage.h"
#include "core/imatrix/ImportanceMatrix.h"

namespace gguf {

void writeComparisonJson(const ModelComparison& comparison, const ComparisonResults& results, std::string& out)
{
    JsonWriter json(out);
    json.beginObject();
    json.key("reference");
    json.beginObject();
    json.key("file"), json.value(comparison.reference().primary().path());
    json.key("bits_per_weight"), json.value(comparison.reference().summary().averageBitsPerWeight);
    json.endObject();
    json.key("columns");
    json.beginArray();
    for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
        const ComparisonColumn& column = comparison.columns()[c];
        json.beginObject();
        json.key("index"), json.value(static_cast<std::uint64_t>(c + 1));
        json.key("label"), json.value(column.label);
        if (column.kind == ComparisonColumn::Kind::File) {
            json.key("kind"), json.value("file");
            json.key("file"), json.value(column.model->primary().path());
        } else {
            json.key("kind"), json.value("simulated");
            if (column.recipeTypes)
                json.key("preset"), json.value(column.label.substr(0, column.label.find(' ')));
            else
                json.key("type"), json.value(typeName(column.simulatedType));
        }
        json.key("tensors"), json.value(static_cast<std::uint64_t>(results.columnTensorCounts[c]));
        json.key("totals");
        json.beginObject();
        writeErrorMetricsJson(json, results.columnTotals[c]);
        if (comparison.importance())
            writeImportanceMetricsJson(json, results.columnTotals[c]);
        json.endObject();
        if (comparison.importance()) {
            // Per layer, combined from the sums as the metric table says.
            json.key("layers");
            json.beginArray();
            for (const LayerErrorMetrics& layer : layerErrorMetrics(comparison, results, c)) {
                json.beginObject();
                json.key("layer"), json.value(layer.layer);
                json.key("tensors"), json.value(static_cast<std::uint64_t>(layer.tensorCount));
                writeErrorMetricsJson(json, layer.metrics);
                writeImportanceMetricsJson(json, layer.metrics);
                json.endObject();
            }
            json.endArray();
        }
        json.endObject();
    }
    json.endArray();
    json.key("tensors");
    json.beginArray();
    for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
        const ComparisonRow& row = comparison.rows()[r];
        json.beginObject();
        json.key("name"), json.value(row.reference->name);
        json.key("shape");
        json.beginArray();
        for (std::uint32_t d = 0; d < row.reference->nDims; ++d)
            json.value(static_cast<std::int64_t>(row.reference->ne[d]));
        json.endArray();
        json.key("reference_type"), json.value(typeName(row.reference->typeId));
        json.key("layer");
        row.nameParts.layer ? json.value(*row.nameParts.layer) : json.null();
        json.key("kind"), json.value(row.nameParts.kind);
        json.key("results");
        json.beginArray();
        for (std::size_t c = 0; c < row.cells.size(); ++c) {
            const ComparisonCell& cell = row.cells[c];
            json.beginObject();
            json.key("column"), json.value(static_cast<std::uint64_t>(c + 1));
            json.key("status"), json.value(cellStatusName(cell.status));
            if (!cell.ok()) {
                json.key("problem"), json.value(cell.problem);
            } else {
                json.key("type"), json.value(typeName(cell.typeId));
                if (comparison.columns()[c].kind == ComparisonColumn::Kind::Simulated)
                    json.key("quantized_in_memory"), json.value(cell.quantizedInMemory);
                if (!cell.note.empty())
                    json.key("note"), json.value(cell.note);
                if (results.cells[r][c])
                    writeErrorMetricsJson(json, *results.cells[r][c]);
                if (results.cells[r][c] && comparison.importance()) {
                    writeImportanceMetricsJson(json, *results.cells[r][c]);
                    if (r < results.expertCells.size() && !results.expertCells[r][c].empty()) {
                        json.key("experts");
                        json.beginArray();
                        for (const ErrorMetrics& expert : results.expertCells[r][c]) {
                            json.beginObject();
                            writeErrorMetricsJson(json, expert);
                            writeImportanceMetricsJson(json, expert);
                            json.endObject();
                        }
                        json.endArray();
                    }
                }
            }
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
    if (const ImportanceMatrix* importance = comparison.importance()) {
        json.key("importance_matrix");
        json.beginObject();
        json.key("file"), json.value(importance->path());
        json.key("entries"), json.value(static_cast<std::uint64_t>(importance->entries().size()));
        const ImatrixCoverage coverage = imatrixCoverage(*importance, comparison.reference());
        json.key("matrices"), json.value(static_cast<std::uint64_t>(coverage.matrices));
        json.key("uncovered_count"), json.value(static_cast<std::uint64_t>(coverage.uncovered.size()));
        json.key("uncovered");
        json.beginArray();
        for (const std::string& name : coverage.uncovered)
            json.value(name);
        json.endArray();
        json.endObject();
    }
    json.key("problems");
    json.beginArray();
    for (const std::string& problem : comparison.problems())
        json.value(problem);
    json.endArray();
    json.endObject();
    out += '\n';
}

}  // namespace gguf
