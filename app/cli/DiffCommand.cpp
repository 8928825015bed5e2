#include "app/threads/ParallelRows.h"
#include "Commands.h"
#include "ModelOpening.h"
#include "core/compare/ErrorMetricTable.h"
#include "core/diff/ModelDiff.h"
#include "core/types/GgmlType.h"

#include <optional>
#include <cstdio>

namespace {
std::string shapeText(const gguf::TensorInfo& tensor)
{
    std::string text = "[";
    for (std::uint32_t d = 0; d < tensor.nDims; ++d)
        text += (d ? ", " : "") + std::to_string(tensor.ne[d]);
    return text + "]";
}

// One metric as the table says to print it: `width` 0 for inline text.
std::string metricText(const gguf::ErrorMetricInfo& metric, const gguf::ErrorMetrics& metrics, int width)
{
    char text[64];
    std::snprintf(text, sizeof text, metric.cliConversion == 'f' ? "%*.*f" : "%*.*e", width, metric.cliPrecision, metric.valueIn(metrics));
    return text;
}

// Every CLI column of the metric table, "rmse 1.2345e-03  rel_rmse ...", as compare prints them.
std::string figures(const gguf::ErrorMetrics& metrics)
{
    std::string text;
    for (const gguf::ErrorMetricInfo& metric : gguf::errorMetricTable()) {
        if (!metric.cliHeader)
            continue;
        text += (text.empty() ? "" : "  ") + std::string(metric.cliHeader) + " " + metricText(metric, metrics, 0);
    }
    return text;
}

void appendMetadata(std::string& out, const gguf::ModelDiff& diff)
{
    using Kind = gguf::MetadataDifference::Kind;
    out += "metadata: " + std::to_string(diff.metadataCount(Kind::Added)) + " added, " + std::to_string(diff.metadataCount(Kind::Removed))
         + " removed, " + std::to_string(diff.metadataCount(Kind::Changed)) + " changed\n";
    for (const gguf::MetadataDifference& d : diff.metadata) {
        if (d.kind == Kind::Added) {
            out += "  + " + shown(d.key) + "  " + d.typeB + "  " + d.valueB + "\n";
        } else if (d.kind == Kind::Removed) {
            out += "  - " + shown(d.key) + "  " + d.typeA + "  " + d.valueA + "\n";
        } else {
            out += "  ~ " + shown(d.key) + "  " + (d.typeA == d.typeB ? d.typeA : d.typeA + " -> " + d.typeB) + "\n";
            if (d.array) {
                out += "      " + std::to_string(d.array->differingElements) + " of " + std::to_string(std::min(d.array->lengthA, d.array->lengthB))
                     + " common elements differ";
                if (d.array->firstDifference)
                    out += ", first at index " + std::to_string(*d.array->firstDifference);
                if (d.array->lengthA != d.array->lengthB)
                    out += "; length " + std::to_string(d.array->lengthA) + " -> " + std::to_string(d.array->lengthB);
                out += "\n";
            }
            if (!d.textDiff.empty()) {
                for (const gguf::TextDiffLine& line : d.textDiff)
                    out += "      " + (line.op == gguf::TextDiffLine::Op::Gap ? line.text : std::string(1, static_cast<char>(line.op)) + shown(line.text)) + "\n";
            } else {
                out += "      a: " + d.valueA + "\n      b: " + d.valueB + "\n";
            }
        }
    }
}

void appendTensors(std::string& out, const gguf::ModelDiff& diff)
{
    using Kind = gguf::TensorDifference::Kind;
    using Content = gguf::TensorContent;
    out += "tensors: " + std::to_string(diff.tensorCount(Kind::Added)) + " added, " + std::to_string(diff.tensorCount(Kind::Removed)) + " removed, "
         + std::to_string(diff.tensorCount(Kind::ShapeChanged)) + " with another shape, " + std::to_string(diff.tensorCount(Kind::InBoth))
         + " in both: " + std::to_string(diff.contentCount(Content::IdenticalBytes)) + " identical bytes, "
         + std::to_string(diff.contentCount(Content::IdenticalValues)) + " identical values, " + std::to_string(diff.contentCount(Content::Different))
         + " different, " + std::to_string(diff.contentCount(Content::NotComparable)) + " not comparable\n";
    for (const gguf::TensorDifference& d : diff.tensors) {
        switch (d.kind) {
        case Kind::Added: out += "  + " + shown(d.name) + "  " + gguf::typeName(d.b->typeId) + "  " + shapeText(*d.b) + "\n"; break;
        case Kind::Removed: out += "  - " + shown(d.name) + "  " + gguf::typeName(d.a->typeId) + "  " + shapeText(*d.a) + "\n"; break;
        case Kind::ShapeChanged:
            out += "  ~ " + shown(d.name) + "  shape " + shapeText(*d.a) + " -> " + shapeText(*d.b) + "\n";
            break;
        case Kind::InBoth: {
            if (d.content == Content::IdenticalBytes && d.a->typeId == d.b->typeId)
                break;  // the common case is not listed; the counts above say how many
            const std::string types = d.a->typeId == d.b->typeId ? gguf::typeName(d.a->typeId)
                                                                  : gguf::typeName(d.a->typeId) + " -> " + gguf::typeName(d.b->typeId);
            out += "  = " + shown(d.name) + "  " + types + "  " + gguf::tensorContentName(d.content);
            if (d.content == Content::Different && d.metrics)
                out += "  " + figures(*d.metrics);
            if (!d.problem.empty())
                out += "  (" + shown(d.problem) + ")";
            out += "\n";
            break;
        }
        }
    }
}

void appendLayers(std::string& out, const gguf::ModelDiff& diff)
{
    if (diff.layers.empty())
        return;
    out += "per layer:\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-7s %7s %9s %9s %9s", "layer", "tensors", "same_byte", "same_val", "different");
    out += line;
    for (const gguf::ErrorMetricInfo& metric : gguf::errorMetricTable())
        if (metric.cliHeader) {
            std::snprintf(line, sizeof line, " %*s", metric.cliWidth, metric.cliHeader);
            out += line;
        }
    out += "\n";
    for (const gguf::LayerDifference& layer : diff.layers) {
        const std::string name = layer.layer ? std::to_string(*layer.layer) : "other";
        std::snprintf(line, sizeof line, "  %-7s %7zu %9zu %9zu %9zu", name.c_str(), layer.tensors, layer.identicalBytes,
                      layer.identicalValues, layer.different);
        out += line;
        for (const gguf::ErrorMetricInfo& metric : gguf::errorMetricTable())
            if (metric.cliHeader)
                out += " " + metricText(metric, layer.metrics, metric.cliWidth);
        out += "\n";
    }
}
}  // namespace

int runDiff(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "diff");
    if (!args.error.empty() || args.positionals.size() != 2)
        return reportFailure(args.error.empty() ? commandUsage("diff") : args.error, 2);
    gguf::DiffOptions options;
    std::optional<gguf::ParallelRows> ownPool;  // --threads; otherwise the shared pool (GGUFX_THREADS)
    if (const auto threads = args.value("--threads")) {
        char* end = nullptr;
        const unsigned long count = std::strtoul(threads->c_str(), &end, 10);
        if (threads->empty() || *end != '\0' || count == 0 || count > 1024 || (*threads)[0] == '-')
            return reportFailure("--threads needs a whole number from 1 to 1024, not '" + *threads + "'", 2);
        ownPool.emplace(static_cast<unsigned>(count));
    }
    options.executor = ownPool ? &*ownPool : &gguf::ParallelRows::shared();
    const auto a = openModelOrReport(args.positionals[0]);
    if (!a)
        return 1;
    const auto b = openModelOrReport(args.positionals[1]);
    if (!b)
        return 1;
    const auto diff = gguf::diffModels(a, b, options);
    if (!diff)
        return reportFailure(diff.error().toString());
    inputsVerified() = true;  // diffModels checked both after reading

    std::string out;
    if (args.has("--json")) {
        gguf::JsonWriter json(out);
        gguf::writeModelDiffJson(json, *diff);
        out += '\n';
    } else {
        for (const std::string& problem : diff->problems)
            out += "problem: " + shown(problem) + "\n";
        appendMetadata(out, *diff);
        appendTensors(out, *diff);
        appendLayers(out, *diff);
        if (diff->identical())
            out += "the models are identical (metadata and tensor bytes)\n";
    }
    writeStdout(out);
    return 0;
}
