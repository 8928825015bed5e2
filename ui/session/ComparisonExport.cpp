#include "ui/session/ComparisonExport.h"

#include "core/base/JsonWriter.h"
#include "core/compare/ComparisonJson.h"
#include "core/compare/SummaryErrorMetrics.h"
#include "ui/session/ComparisonColumnTitle.h"

#include <QCoreApplication>
#include <QSaveFile>
#include <cmath>
#include <string>

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ComparisonExport", text);
}

QString writeAtomically(const QString& path, const std::string& content)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    if (file.write(content.data(), static_cast<qint64>(content.size())) != static_cast<qint64>(content.size()) || !file.commit())
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
}

// RFC 4180: quote fields holding separators, quotes or line breaks.
std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

// The same rendering as JsonWriter: 17 significant digits round-trip a double; nan/inf spelled out.
std::string csvNumber(double value)
{
    return gguf::JsonWriter::numberText(value);
}

}  // namespace

QString exportComparisonCsv(const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results, const QString& path)
{
    std::string out = "tensor,layer,kind,reference_type,column,label,type,status,problem";
    for (const std::string& name : gguf::errorMetricNames())
        out += ',' + name;
    out += '\n';
    for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
        const gguf::ComparisonRow& row = comparison.rows()[r];
        for (std::size_t c = 0; c < row.cells.size(); ++c) {
            const gguf::ComparisonCell& cell = row.cells[c];
            out += csvField(std::string(row.reference->name)) + ',';
            out += (row.nameParts.layer ? std::to_string(*row.nameParts.layer) : std::string()) + ',';
            out += csvField(row.nameParts.kind) + ',' + gguf::typeName(row.reference->typeId) + ',';
            out += std::to_string(c + 1) + ',' + csvField(comparison.columns()[c].label) + ',';
            out += (cell.ok() ? gguf::typeName(cell.typeId) : std::string()) + ',';
            out += std::string(gguf::cellStatusName(cell.status)) + ',' + csvField(cell.problem);
            const std::optional<gguf::ErrorMetrics>& metrics = results.cells[r][c];
            for (const double value : metrics ? gguf::errorMetricValues(*metrics) : std::vector<double>(gguf::errorMetricNames().size()))
                out += ',' + (metrics ? csvNumber(value) : std::string());
            out += '\n';
        }
    }
    // Then the model-wide lines, one per column: "(all tensors)" (the CLI's totals) and
    // "(all <kind>)"; status "ok" when at least one tensor was computed, else "none".
    for (const gguf::SummaryErrorMetrics& summary : gguf::summaryErrorMetrics(comparison, results)) {
        for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
            const bool computed = summary.tensorCounts[c] > 0;
            const std::uint32_t type = comparisonColumnType(comparison, c);
            out += csvField(summary.kind.empty() ? std::string("(all tensors)") : "(all " + summary.kind + ")") + ",,";
            out += csvField(summary.kind) + ",,";
            out += std::to_string(c + 1) + ',' + csvField(comparison.columns()[c].label) + ',';
            out += (type != 0 ? gguf::typeName(type) : std::string()) + ',';
            out += computed ? "ok," : "none,";
            for (const double value : gguf::errorMetricValues(summary.metrics[c]))
                out += ',' + (computed ? csvNumber(value) : std::string());
            out += '\n';
        }
    }
    return writeAtomically(path, out);
}

QString exportComparisonJson(const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results, const QString& path)
{
    std::string out;
    gguf::writeComparisonJson(comparison, results, out);
    // The CLI's document (its columns[].totals are "all tensors"), plus one member the CLI does
    // not write: "kinds", every tensor kind's figures per column.
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    if (out.empty() || out.back() != '}')
        return tr("Cannot write %1: unexpected comparison document").arg(path);
    out.pop_back();
    std::string kinds;
    gguf::JsonWriter json(kinds);
    json.beginArray();
    for (const gguf::SummaryErrorMetrics& summary : gguf::summaryErrorMetrics(comparison, results)) {
        if (summary.kind.empty())
            continue;
        json.beginObject();
        json.key("kind"), json.value(summary.kind);
        json.key("columns");
        json.beginArray();
        for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
            json.beginObject();
            json.key("column"), json.value(static_cast<std::uint64_t>(c + 1));
            json.key("tensors"), json.value(static_cast<std::uint64_t>(summary.tensorCounts[c]));
            if (summary.tensorCounts[c] > 0)
                gguf::writeErrorMetricsJson(json, summary.metrics[c]);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
    out += ",\"kinds\":" + kinds + "}\n";
    return writeAtomically(path, out);
}
