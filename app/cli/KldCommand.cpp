// kld: output-level error of other quant levels against a reference model, in the spirit of
// llama-perplexity --kl-divergence (summary per model) plus the per-layer drift table.

#include "Commands.h"

#include "ActivationOption.h"
#include "app/threads/ParallelRows.h"
#include "ImatrixOption.h"
#include "ModelOpening.h"
#include "QuantChoices.h"
#include "TokenInput.h"
#include "core/base/JsonWriter.h"
#include "core/forward/KldTextChunks.h"
#include "core/forward/LlamaKldBase.h"
#include "core/forward/OutputComparisonRun.h"
#include "core/quantize/QuantizationPolicy.h"
#include "core/quantize/Quantize.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/recipe/ModelShape.h"
#include "core/recipe/QuantPresets.h"
#include "core/types/GgmlType.h"

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <unordered_map>

namespace {

std::string format(const char* pattern, double a, double b = 0.0)
{
    char text[128];
    std::snprintf(text, sizeof text, pattern, a, b);
    return text;
}

void appendText(std::string& out, const std::string& label, const gguf::OutputComparison& c)
{
    out += "====== " + shown(label) + " ======\n";
    out += "Positions scored              : " + std::to_string(c.positions.size()) + "\n";
    out += "PPL(Q)                        : " + format("%.6f", c.perplexityOther) + "\n";
    out += "PPL(base)                     : " + format("%.6f", c.perplexityReference) + "\n";
    out += "PPL(Q)/PPL(base)              : " + format("%.6f", c.perplexityReference > 0 ? c.perplexityOther / c.perplexityReference : 0.0) + "\n";
    out += "Mean    KLD                   : " + format("%10.6f ± %.6f", c.kld.mean, c.kld.meanError) + "\n";
    out += "Maximum KLD                   : " + format("%10.6f", c.kld.maximum) + "\n";
    out += "99.0%   KLD                   : " + format("%10.6f", c.kld.p99) + "\n";
    out += "90.0%   KLD                   : " + format("%10.6f", c.kld.p90) + "\n";
    out += "Median  KLD                   : " + format("%10.6f", c.kld.median) + "\n";
    out += "Minimum KLD                   : " + format("%10.6f", c.kld.minimum) + "\n";
    out += "Same top p                    : " + format("%.3f %%", 100.0 * c.sameTopFraction) + "\n";
    out += "Mean Δp of reference's top    : " + format("%.3f ± %.3f %%", 100.0 * c.deltaTopProbability.mean, 100.0 * c.deltaTopProbability.meanError) + "\n";
    out += "Mean Δp of next token         : " + format("%.3f ± %.3f %%", 100.0 * c.deltaNextProbability.mean, 100.0 * c.deltaNextProbability.meanError) + "\n";
    if (!c.layers.empty()) {
        out += c.mixtureOfExperts ? "layer  rel.RMSE     cos(mean)  cos(min)   routing changed\n" : "layer  rel.RMSE     cos(mean)  cos(min)\n";
        for (std::size_t l = 0; l < c.layers.size(); ++l) {
            char line[160];
            const auto& d = c.layers[l];
            std::snprintf(line, sizeof line, "%5zu  %.5e  %.7f  %.7f", l, d.relativeRmse, d.meanCosine, d.minCosine);
            out += line;
            if (c.mixtureOfExperts)
                out += d.routingCompared ? format("  %6.2f %%", 100.0 * d.routingChangedFraction) : std::string("        -");
            out += "\n";
        }
    }
    if (!c.routingNote.empty())
        out += "note: " + c.routingNote + "\n";
    if (c.mixtureOfExperts) {
        out += "expert routing counts per layer (base -> Q):\n";
        for (std::size_t l = 0; l < c.expertCountsReference.size(); ++l) {
            out += "  layer " + std::to_string(l) + ":";
            if (l < c.layers.size() && !c.layers[l].routingCompared) {
                out += " dense (in one model or both)\n";
                continue;
            }
            for (std::size_t e = 0; e < c.expertCountsReference[l].size(); ++e)
                out += " " + std::to_string(c.expertCountsReference[l][e]) + "->" + std::to_string(c.expertCountsOther[l][e]);
            out += "\n";
        }
    }
}

void writeSummary(gguf::JsonWriter& json, const char* name, const gguf::Summary& s)
{
    json.key(name);
    json.beginObject();
    json.key("count");
    json.value(static_cast<std::uint64_t>(s.count));
    for (const auto& [key, value] : {std::pair{"mean", s.mean}, {"mean_error", s.meanError}, {"minimum", s.minimum}, {"median", s.median},
                                     {"p90", s.p90}, {"p99", s.p99}, {"maximum", s.maximum}}) {
        json.key(key);
        json.value(value);
    }
    json.endObject();
}

void appendJson(gguf::JsonWriter& json, const std::string& label, const gguf::OutputComparison& c)
{
    json.beginObject();
    json.key("label");
    json.value(label);
    json.key("perplexity_reference");
    json.value(c.perplexityReference);
    json.key("perplexity");
    json.value(c.perplexityOther);
    json.key("same_top_fraction");
    json.value(c.sameTopFraction);
    writeSummary(json, "kld", c.kld);
    writeSummary(json, "delta_p_reference_top", c.deltaTopProbability);
    writeSummary(json, "delta_p_next_token", c.deltaNextProbability);
    json.key("layers");
    json.beginArray();
    for (const auto& d : c.layers) {
        json.beginObject();
        json.key("relative_rmse");
        json.value(d.relativeRmse);
        json.key("mean_cosine");
        json.value(d.meanCosine);
        json.key("min_cosine");
        json.value(d.minCosine);
        if (c.mixtureOfExperts) {
            json.key("routing_changed_fraction");
            if (d.routingCompared)
                json.value(d.routingChangedFraction);
            else
                json.null();  // dense in one of the models: no router to compare
        }
        json.endObject();
    }
    json.endArray();
    if (!c.routingNote.empty()) {
        json.key("routing_note");
        json.value(c.routingNote);
    }
    if (c.mixtureOfExperts) {
        for (const auto& [key, counts] : {std::pair{"expert_counts_reference", &c.expertCountsReference}, {"expert_counts", &c.expertCountsOther}}) {
            json.key(key);
            json.beginArray();
            for (const auto& layer : *counts) {
                json.beginArray();
                for (const std::int64_t n : layer)
                    json.value(n);
                json.endArray();
            }
            json.endArray();
        }
    }
    json.key("positions");
    json.beginArray();
    for (const auto& p : c.positions) {
        json.beginObject();
        json.key("position");
        json.value(p.position);
        json.key("next_token");
        json.value(static_cast<std::int64_t>(p.nextToken));
        json.key("kld");
        json.value(p.kld);
        json.key("reference_top");
        json.value(static_cast<std::int64_t>(p.referenceTop));
        json.key("top");
        json.value(static_cast<std::int64_t>(p.otherTop));
        json.key("p_reference_top");
        json.value(p.referenceTopProbability);
        json.key("p_reference_top_other");
        json.value(p.referenceTopProbabilityOther);
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

// A type ggml makes only with importance weights, over the whole model: the tensors the matrix
// has no entry for (token_embd, output) are kept as stored and named on stderr, as compare
// skips them, instead of failing the whole run.
std::shared_ptr<const std::unordered_map<std::string, std::uint32_t>> typesWithImportance(const gguf::Model& model, std::uint32_t type,
                                                                                         const gguf::ImportanceMatrix& imatrix)
{
    auto types = std::make_shared<std::unordered_map<std::string, std::uint32_t>>();
    std::string kept;
    for (const gguf::TensorInfo& tensor : model.tensors()) {
        const gguf::TensorTarget target = gguf::chooseTensorTarget(tensor, type);
        if (!target.quantize)
            continue;
        if (gguf::requiresImportance(target.typeId) && !imatrix.find(tensor.name)) {
            kept += (kept.empty() ? "" : ", ") + std::string(tensor.name);
            continue;
        }
        types->emplace(std::string(tensor.name), target.typeId);
    }
    if (!kept.empty())
        std::fprintf(stderr, "gguf-explorer-cli: warning: %s (simulated): kept as stored, the importance matrix has no entry for them and ggml makes %s only with importance weights: %s\n",
                     gguf::typeName(type).c_str(), gguf::typeName(type).c_str(), shown(kept).c_str());
    return types;
}

}  // namespace

int runKld(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "kld");
    if (!args.error.empty() || args.positionals.empty())
        return reportFailure(args.error.empty() ? commandUsage("kld") : args.error, 2);
    const int inputs = int(args.has("--tokens")) + int(args.has("--text-file")) + int(args.has("--llama-kld-base"));
    if (inputs != 1)
        return reportFailure(commandUsage("kld"), 2);
    // --type and --preset, and the older --simulate that may mix them (QuantChoices.h).
    std::vector<QuantChoice> simulated;
    for (const auto& [option, kind] : {std::pair{"--simulate", QuantChoiceKind::Either}, std::pair{"--type", QuantChoiceKind::Type},
                                       std::pair{"--preset", QuantChoiceKind::Preset}}) {
        const auto list = args.value(option);
        if (!list)
            continue;
        std::string error;
        auto parsed = parseQuantChoices(*list, kind, option, error);
        if (!parsed)
            return reportFailure(error, 2);
        simulated.insert(simulated.end(), parsed->begin(), parsed->end());
    }
    if (args.positionals.size() < 2 && simulated.empty())
        return reportFailure("nothing to compare: name OTHER models, --type TYPES or --preset PRESETS", 2);
    if (args.has("--imatrix") && simulated.empty())
        return reportFailure("--imatrix only applies to --type and --preset (it weights the in-memory quantization)", 2);
    if (!args.has("--imatrix"))
        for (const QuantChoice& choice : simulated)
            if (!choice.preset && gguf::requiresImportance(choice.type))
                return reportFailure("cannot simulate " + gguf::typeName(choice.type) + " without --imatrix (ggml needs importance weights for it)", 2);

    const auto reference = openModelOrReport(args.positionals[0]);
    if (!reference)
        return 1;
    std::vector<std::shared_ptr<const gguf::Model>> others;
    std::vector<gguf::OutputCandidate> candidates;
    for (std::size_t i = 1; i < args.positionals.size(); ++i) {
        auto model = openModelOrReport(args.positionals[i]);
        if (!model)
            return 1;
        others.push_back(model);
        candidates.push_back({args.positionals[i], model.get(), 0});
    }
    std::shared_ptr<const gguf::ImportanceMatrix> imatrix;
    std::optional<gguf::ImatrixCoverage> coverage;
    if (const auto path = args.value("--imatrix")) {
        imatrix = loadImatrixForModelOrReport(*path, *reference, &coverage.emplace());
        if (!imatrix)
            return 1;
    }
    const std::string suffix = imatrix ? " (simulated, imatrix)" : " (simulated)";
    for (const QuantChoice& choice : simulated) {
        gguf::OutputCandidate candidate{(choice.preset ? std::string(choice.preset->name) : gguf::typeName(choice.type)) + suffix, nullptr, choice.type, {}};
        if (imatrix)
            candidate.simulation.importance = importanceLookupOf(imatrix);
        if (choice.preset) {
            gguf::RecipeOptions recipeOptions;
            recipeOptions.preset = choice.preset;
            recipeOptions.hasImatrix = imatrix != nullptr;
            auto recipe = gguf::computeRecipe(gguf::readModelShape(*reference), reference->tensors(), recipeOptions);
            if (!recipe)
                return reportFailure(recipe.error().toString());
            if (!recipe->refusal.empty())
                return reportFailure("cannot simulate " + choice.name + ": " + recipe->refusal);
            candidate.simulation.recipeTypes = gguf::recipeTypeMap(*recipe);
        } else if (imatrix && gguf::requiresImportance(choice.type)) {
            candidate.simulation.recipeTypes = typesWithImportance(*reference, choice.type, *imatrix);
        }
        candidates.push_back(std::move(candidate));
    }

    gguf::OutputRunOptions options;
    options.executor = &gguf::ParallelRows::shared();  // GGUFX_THREADS, or every core
    options.accumulateInDouble = args.has("--exact");
    options.accumulateWithBlas = args.has("--sgemm");
    const auto arithmetic = passArithmeticOrReport(args);
    if (!arithmetic)
        return 2;
    options.activations = arithmetic->activations;
    options.kvCache = arithmetic->kvCache;
    std::vector<std::int32_t> tokens;
    if (const auto path = args.value("--llama-kld-base")) {
        auto base = gguf::readLlamaKldBase(*path);
        if (!base)
            return reportFailure(base.error().toString());
        tokens = base->tokens;
        options.chunkSize = base->contextSize;
    } else {
        auto parsed = args.has("--tokens") ? parseTokenListOrReport(*args.value("--tokens"))
                                           : tokenizeTextFileOrReport(*reference, *args.value("--text-file"));
        if (!parsed)
            return 2;
        tokens = *parsed;
    }
    // A text longer than one window is evaluated as llama-perplexity does: independent windows of
    // 512 tokens unless --chunk says otherwise (one pass over all of it would also exceed what
    // one pass may hold).
    if (args.has("--text-file") && !args.has("--chunk"))
        options.chunkSize = gguf::kldTextChunkSize(tokens.size());
    if (const auto chunk = args.value("--chunk")) {
        char* end = nullptr;
        const long long n = std::strtoll(chunk->c_str(), &end, 10);
        if (chunk->empty() || *end != '\0' || n < 4 || n > gguf::kMaxForwardTokens)
            return reportFailure("--chunk needs a whole number from 4 to " + std::to_string(gguf::kMaxForwardTokens), 2);
        options.chunkSize = n;
    }
    if (options.chunkSize > 0)
        if (const auto bos = reference->metadataUInt("tokenizer.ggml.bos_token_id"); bos && *bos <= 0x7FFFFFFF)
            options.bosToken = static_cast<std::int32_t>(*bos);

    auto result = gguf::compareModelOutputs(*reference, candidates, tokens, options);
    if (!result)
        return reportFailure(result.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;

    std::string out;
    if (args.has("--json")) {
        gguf::JsonWriter json(out);
        json.beginObject();
        json.key("reference");
        json.value(args.positionals[0]);
        json.key("tokens");
        json.value(static_cast<std::uint64_t>(tokens.size()));
        json.key("chunk_size");
        json.value(options.chunkSize);
        writePassArithmeticJson(json, *arithmetic);
        json.key("scored_positions");
        json.value(result->scoredPositions);
        json.key("peak_weight_bytes");
        json.value(result->peakWeightBytes);
        if (coverage)
            writeImatrixCoverageJson(json, *coverage);
        json.key("models");
        json.beginArray();
        for (std::size_t i = 0; i < result->labels.size(); ++i)
            appendJson(json, result->labels[i], result->comparisons[i]);
        json.endArray();
        json.endObject();
        out += "\n";
    } else {
        out += "reference: " + shown(args.positionals[0]) + "\n";
        out += "tokens: " + std::to_string(tokens.size());
        if (options.chunkSize > 0)
            out += " in chunks of " + std::to_string(options.chunkSize) + " (first token BOS, second half scored)";
        out += ", scored positions: " + std::to_string(result->scoredPositions) + "\n";
        out += passArithmeticText(*arithmetic) + "\n";
        for (std::size_t i = 0; i < result->labels.size(); ++i)
            appendText(out, result->labels[i], result->comparisons[i]);
    }
    writeStdout(out);
    return 0;
}
