// `imatrix FILE [--model MODEL] [--json] [--top N]` (FILE --text-file T -o OUT computes a matrix
// instead, ImatrixCompute.cpp): what an importance matrix covers (tensors,
// chunks, datasets), whether it fits the model, llama-imatrix's statistics, the MoE routing map
// with never/rarely routed experts, and each tensor's most important input columns.
// Exit status 3 when the validation found errors (llama-quantize would refuse or misuse it).

#include "Commands.h"
#include "ModelOpening.h"
#include "core/base/JsonWriter.h"
#include "core/imatrix/ColumnImportance.h"
#include "core/imatrix/ExpertRouting.h"
#include "core/imatrix/ImatrixStatistics.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

struct ImatrixReport {
    const gguf::ImportanceMatrix* matrix = nullptr;
    const gguf::ImatrixValidation* validation = nullptr;
    bool validatedAgainstModel = false;
    std::string modelPath;
    gguf::ImatrixStatistics statistics;
    gguf::ExpertRouting routing;
    std::vector<gguf::EntryCoverage> coverage;
    std::size_t top = 8;
};

std::string number(double value, int decimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string formatName(gguf::ImatrixFormat format) { return format == gguf::ImatrixFormat::Gguf ? "gguf" : "legacy-dat"; }

void writeJson(const ImatrixReport& r, std::string& out)
{
    const gguf::ImportanceMatrix& m = *r.matrix;
    gguf::JsonWriter json(out);
    json.beginObject();
    json.key("file"), json.value(m.path());
    json.key("format"), json.value(formatName(m.format()));
    json.key("datasets"), json.beginArray();
    for (const std::string& d : m.datasets())
        json.value(d);
    json.endArray();
    json.key("chunk_count"), json.value(m.chunkCount());
    json.key("chunk_size"), json.value(m.chunkSize());
    json.key("entries"), json.beginArray();
    for (std::size_t i = 0; i < m.entries().size(); ++i) {
        const gguf::ImportanceEntry& e = m.entries()[i];
        const gguf::EntryCoverage& c = r.coverage[i];
        json.beginObject();
        json.key("name"), json.value(e.name);
        json.key("columns"), json.value(static_cast<std::uint64_t>(e.columnCount()));
        json.key("experts"), json.value(static_cast<std::uint64_t>(e.expertCount()));
        if (e.legacy)
            json.key("ncall"), json.value(static_cast<std::int64_t>(e.legacyCalls));
        else
            json.key("tokens"), json.value(c.tokens);
        json.key("chunks"), json.value(c.chunks);
        if (e.routingKnown() && e.counts.size() > 1) {
            json.key("tokens_per_expert"), json.beginArray();
            for (double t : e.tokensPerExpert())
                json.value(t);
            json.endArray();
        }
        json.key("top_columns"), json.beginArray();
        for (const gguf::ImportantColumn& col : gguf::topColumns(gguf::columnImportance(e), r.top)) {
            json.beginObject();
            json.key("column"), json.value(static_cast<std::uint64_t>(col.column));
            json.key("importance"), json.value(static_cast<double>(col.importance));
            json.key("share"), json.value(col.shareOfTotal);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();

    json.key("validation"), json.beginObject();
    if (r.validatedAgainstModel)
        json.key("model"), json.value(r.modelPath);
    else
        json.key("model"), json.null();
    json.key("errors"), json.value(static_cast<std::uint64_t>(r.validation->count(gguf::ImatrixSeverity::Error)));
    json.key("warnings"), json.value(static_cast<std::uint64_t>(r.validation->count(gguf::ImatrixSeverity::Warning)));
    if (r.validatedAgainstModel) {
        json.key("matched_entries"), json.value(static_cast<std::uint64_t>(r.validation->matchedEntries));
        json.key("uncovered_tensors"), json.beginArray();
        for (const std::string& name : r.validation->uncoveredTensors)
            json.value(name);
        json.endArray();
    }
    json.key("issues"), json.beginArray();
    for (const gguf::ImatrixIssue& issue : r.validation->issues) {
        json.beginObject();
        json.key("severity"), json.value(gguf::imatrixSeverityName(issue.severity));
        json.key("tensor"), json.value(issue.tensor);
        json.key("field"), json.value(issue.field);
        if (issue.offset == gguf::Error::kNoOffset)
            json.key("offset"), json.null();
        else
            json.key("offset"), json.value(issue.offset);
        json.key("message"), json.value(issue.message);
        json.endObject();
    }
    json.endArray();
    json.endObject();

    json.key("statistics"), json.beginObject();
    json.key("tensors"), json.beginArray();
    for (const gguf::ImatrixTensorStatistics& ts : r.statistics.tensors) {
        json.beginObject();
        json.key("name"), json.value(ts.name);
        json.key("sum"), json.value(static_cast<double>(ts.total));
        json.key("min"), json.value(static_cast<double>(ts.minimum));
        json.key("max"), json.value(static_cast<double>(ts.maximum));
        json.key("mean"), json.value(static_cast<double>(ts.mean));
        json.key("std"), json.value(static_cast<double>(ts.deviation));
        json.key("active"), json.value(static_cast<double>(ts.activeFraction));
        json.key("n"), json.value(ts.elements);
        json.key("entropy"), json.value(static_cast<double>(ts.entropy));
        json.key("entropy_norm"), json.value(ts.entropyPercent / 100.0);
        json.key("zd"), json.value(static_cast<double>(ts.zdFraction));
        json.key("cossim"), json.value(static_cast<double>(ts.cossim));
        json.endObject();
    }
    json.endArray();
    json.key("layers"), json.beginArray();
    for (const gguf::ImatrixLayerStatistics& l : r.statistics.layers) {
        json.beginObject();
        json.key("layer"), json.value(l.layer);
        json.key("weighted_sum"), json.value(static_cast<double>(l.weightedTotal));
        json.key("zd"), json.value(static_cast<double>(l.zdFraction));
        json.key("cossim"), json.value(static_cast<double>(l.cossim));
        json.endObject();
    }
    json.endArray();
    json.endObject();

    json.key("routing");
    if (!r.routing.known()) {
        json.null();
    } else {
        json.beginObject();
        json.key("rare_share"), json.value(r.routing.rareShare);
        json.key("layers"), json.beginArray();
        for (const gguf::RoutingLayer& layer : r.routing.layers) {
            json.beginObject();
            json.key("layer"), json.value(layer.layer);
            json.key("source"), json.value(layer.source);
            json.key("tokens"), json.beginArray();
            for (double t : layer.tokens)
                json.value(t);
            json.endArray();
            json.key("projections_disagree"), json.value(layer.projectionsDisagree);
            json.endObject();
        }
        json.endArray();
        json.key("rare"), json.beginArray();
        for (const gguf::RarelyRoutedExpert& x : r.routing.rare) {
            json.beginObject();
            json.key("layer"), json.value(x.layer);
            json.key("expert"), json.value(x.expert);
            json.key("tokens"), json.value(x.tokens);
            json.key("share_of_even"), json.value(x.shareOfEven);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endObject();
    out += '\n';
}

void writeText(const ImatrixReport& r, std::string& out)
{
    const gguf::ImportanceMatrix& m = *r.matrix;
    out += "imatrix:   " + shown(m.path()) + " (" + (m.format() == gguf::ImatrixFormat::Gguf ? "GGUF" : "legacy .dat") + ", "
         + std::to_string(m.entries().size()) + " entries)\n";
    out += "datasets: ";
    for (const std::string& d : m.datasets())
        out += " " + shown(d);
    out += m.datasets().empty() ? " (none recorded)\n" : "\n";
    out += "chunks:    " + std::to_string(m.chunkCount())
         + (m.chunkSize() > 0 ? " of " + std::to_string(m.chunkSize()) + " tokens" : std::string()) + "\n";

    const gguf::ImatrixValidation& v = *r.validation;
    out += "\nvalidation" + (r.validatedAgainstModel ? " against " + shown(r.modelPath) : std::string(" (no --model: contents only)")) + ": "
         + std::to_string(v.count(gguf::ImatrixSeverity::Error)) + " error(s), " + std::to_string(v.count(gguf::ImatrixSeverity::Warning))
         + " warning(s)\n";
    for (const gguf::ImatrixIssue& issue : v.issues)
        out += "  " + shown(issue.toString()) + "\n";
    if (r.validatedAgainstModel) {
        out += "  " + std::to_string(v.matchedEntries) + " of " + std::to_string(m.entries().size()) + " entries match a tensor; "
             + std::to_string(v.uncoveredTensors.size()) + " matrices have no importance:";
        for (const std::string& name : v.uncoveredTensors)
            out += " " + shown(name);
        out += "\n";
    }

    out += "\ncoverage:\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-36s %8s %8s %10s %8s\n", "tensor", "columns", "experts", m.format() == gguf::ImatrixFormat::Gguf ? "tokens" : "ncall", "chunks");
    out += line;
    for (std::size_t i = 0; i < m.entries().size(); ++i) {
        const gguf::ImportanceEntry& e = m.entries()[i];
        const gguf::EntryCoverage& c = r.coverage[i];
        std::snprintf(line, sizeof line, "  %-36s %8zu %8zu %10s %8s\n", shown(e.name).c_str(), e.columnCount(), e.expertCount(),
                      e.legacy ? std::to_string(e.legacyCalls).c_str() : number(c.tokens, 0).c_str(), number(c.chunks, 2).c_str());
        out += line;
    }

    if (r.routing.known()) {
        out += "\nexpert routing (tokens per expert during calibration; * = rarely routed, below "
             + number(r.routing.rareShare * 100.0, 0) + "% of an even share; ! = never):\n  layer";
        for (std::size_t e = 0; e < r.routing.expertCount; ++e) {
            std::snprintf(line, sizeof line, " %8zu", e);
            out += line;
        }
        out += "\n";
        for (const gguf::RoutingLayer& layer : r.routing.layers) {
            std::snprintf(line, sizeof line, "  %5u", layer.layer);
            out += line;
            for (std::size_t e = 0; e < layer.tokens.size(); ++e) {
                const double t = layer.tokens[e];
                const bool rare = std::any_of(r.routing.rare.begin(), r.routing.rare.end(),
                                              [&](const gguf::RarelyRoutedExpert& x) { return x.layer == layer.layer && x.expert == e; });
                std::snprintf(line, sizeof line, " %7s%s", number(t, 0).c_str(), t <= 0.0 ? "!" : rare ? "*" : " ");
                out += line;
            }
            out += layer.projectionsDisagree ? "  (projections disagree)\n" : "\n";
        }
        if (r.routing.rare.empty())
            out += "  no expert was rarely routed\n";
        for (const gguf::RarelyRoutedExpert& x : r.routing.rare)
            out += "  layer " + std::to_string(x.layer) + " expert " + std::to_string(x.expert) + ": "
                 + (x.tokens <= 0.0 ? std::string("never routed; its importance is unknown (llama-quantize uses weight 1)")
                                    : number(x.tokens, 0) + " tokens, " + number(x.shareOfEven * 100.0, 1) + "% of an even share")
                 + "\n";
    } else if (m.format() == gguf::ImatrixFormat::LegacyDat) {
        out += "\nexpert routing: unknown (the legacy format keeps one ncall per tensor, not per-expert counts)\n";
    }

    out += "\ntop " + std::to_string(r.top) + " columns by importance (mean squared activation; share of the tensor's total):\n";
    for (const gguf::ImportanceEntry& e : m.entries()) {
        out += "  " + shown(e.name) + ":";
        for (const gguf::ImportantColumn& col : gguf::topColumns(gguf::columnImportance(e), r.top))
            out += " " + std::to_string(col.column) + " (" + number(col.shareOfTotal * 100.0, 1) + "%)";
        out += "\n";
    }

    // Names come from the file: escaped like every other name printed (the table's tabs stay).
    gguf::ImatrixStatistics statistics = r.statistics;
    for (gguf::ImatrixTensorStatistics& ts : statistics.tensors) {
        ts.layer = shown(ts.layer);
        ts.shortName = shown(ts.shortName);
    }
    out += "\nstatistics (as llama-imatrix --show-statistics):";
    out += gguf::formatImatrixStatistics(statistics, shown(m.path()));
}

}  // namespace

int runImatrix(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "imatrix");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("imatrix") : args.error, 2);
    if (args.has("--text-file"))
        return runImatrixComputation(args);
    ImatrixReport report;
    if (const auto top = args.value("--top")) {
        char* end = nullptr;
        const long n = std::strtol(top->c_str(), &end, 10);
        if (top->empty() || *end != '\0' || n < 0 || n > 100000)
            return reportFailure("--top must be a whole number from 0 to 100000", 2);
        report.top = static_cast<std::size_t>(n);
    }
    auto loaded = gguf::ImportanceMatrix::load(args.positionals[0]);
    if (!loaded)
        return reportFailure(loaded.error().toString());
    gguf::ImportanceMatrix matrix = std::move(loaded.value());
    if (args.has("-o"))
        return runImatrixConversion(args, matrix);
    gguf::ImatrixValidation validation;
    if (const auto modelPath = args.value("--model")) {
        const auto model = openModelOrReport(*modelPath);
        if (!model)
            return 1;
        validation = gguf::validateImatrix(matrix, *model);
        report.validatedAgainstModel = true;
        report.modelPath = *modelPath;
    } else {
        validation = gguf::validateImatrix(matrix);
    }
    report.matrix = &matrix;
    report.validation = &validation;
    report.statistics = gguf::computeImatrixStatistics(matrix);
    report.routing = gguf::computeExpertRouting(matrix);
    report.coverage = gguf::computeCoverage(matrix);
    std::string out;
    if (args.has("--json"))
        writeJson(report, out);
    else
        writeText(report, out);
    writeStdout(out);
    return validation.hasErrors() ? 3 : 0;
}
