// plan: per-tensor types that minimise the estimated quantization error within a size budget,
// the presets for comparison, and the mix as --tensor-type rules over a base preset.

#include "app/threads/ParallelRows.h"
#include "Commands.h"
#include "ImatrixOption.h"
#include "ModelOpening.h"
#include "core/base/HumanFormat.h"
#include "core/base/JsonWriter.h"
#include "core/recipe/MixPlanner.h"
#include "core/sensitivity/ScanComparison.h"
#include "core/sensitivity/ScanCosts.h"
#include "core/sensitivity/PlanHeldOutCheck.h"
#include "core/sensitivity/ScanFile.h"
#include "TokenInput.h"
#include "core/write/ByteSink.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

namespace {

std::string figure(const char* format, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

// A command line to copy: as it is unless it holds control characters (from tensor names),
// which are shown escaped instead.
std::string commandText(const std::string& text)
{
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return shown(text);
    return text;
}

std::string rulesFileText(const gguf::PlanRules& rules)
{
    // Plain rules only: llama-quantize's --tensor-type-file reads every word as a rule.
    std::string text;
    for (const gguf::TensorTypeRule& rule : rules.rules)
        text += gguf::formatTensorTypeRule(rule) + "\n";
    return text;
}

// "base_preset" and "rules" as members.
void writeRulesJson(gguf::JsonWriter& json, const gguf::PlanRules& rules)
{
    json.key("base_preset");
    json.value(rules.basePreset->name);
    json.key("rules");
    json.beginArray();
    for (const gguf::TensorTypeRule& rule : rules.rules)
        json.value(gguf::formatTensorTypeRule(rule));
    json.endArray();
}

void writeHeldOutJson(gguf::JsonWriter& json, const gguf::HeldOutResult& heldOut, std::int64_t chunkSize)
{
    json.key("held_out");
    json.beginObject();
    json.key("tokens");
    json.value(heldOut.tokens);
    json.key("chunk_size");
    json.value(chunkSize);
    json.key("positions");
    json.value(heldOut.positions);
    json.key("mixes");
    json.beginArray();
    for (std::size_t m = 0; m < heldOut.mixes.size(); ++m) {
        const gguf::MeasuredMix& mix = heldOut.mixes[m];
        json.beginObject();
        json.key("label");
        json.value(mix.label);
        json.key("mean_kld");
        json.value(mix.meanKld);
        json.key("mean_kld_error");
        json.value(mix.meanError);
        json.key("median_kld");
        json.value(mix.medianKld);
        if (m > 0) {  // this preset's KLD minus the plan's, position by position
            json.key("difference_mean");
            json.value(mix.differenceMean);
            json.key("difference_error");
            json.value(mix.differenceError);
            json.key("difference_median");
            json.value(mix.differenceMedian);
        }
        if (heldOut.routed) {  // MoE: routing flips apart from the steady error
            json.key("flipped_positions");
            json.value(mix.flippedPositions);
            json.key("steady_kld");
            json.value(mix.steadyKld);
            if (m > 0) {
                json.key("steady_pairs");
                json.value(mix.steadyPairs);
                json.key("steady_difference_mean");
                json.value(mix.steadyDifferenceMean);
                json.key("steady_difference_error");
                json.value(mix.steadyDifferenceError);
            }
        }
        json.endObject();
    }
    json.endArray();
    json.key("best_preset");
    json.value(heldOut.mixes[heldOut.bestPreset].label);
    json.key("plan_wins");
    json.value(heldOut.planWins);
    json.key("won_on_steady_error");
    json.value(heldOut.wonOnSteadyError);
    json.endObject();
}

std::string heldOutText(const gguf::HeldOutResult& heldOut, std::int64_t chunkSize)
{
    std::string text = "\nmeasured on " + std::to_string(heldOut.tokens) + " held-out tokens (chunks of " + std::to_string(chunkSize) + ", "
                     + std::to_string(heldOut.positions) + " positions scored), mean KLD ± its standard error, median:\n";
    for (const gguf::MeasuredMix& mix : heldOut.mixes)
        text += "  " + mix.label + std::string(10 - std::min<std::size_t>(mix.label.size(), 9), ' ') + figure("%.6f", mix.meanKld) + " ± "
              + figure("%.6f", mix.meanError) + "  median " + figure("%.6f", mix.medianKld) + "\n";
    const gguf::MeasuredMix& best = heldOut.mixes[heldOut.bestPreset];
    if (heldOut.routed) {
        text += "  routing flips (positions where a layer chose other experts than the reference) and the KLD of the others:\n";
        for (const gguf::MeasuredMix& mix : heldOut.mixes)
            text += "  " + mix.label + std::string(10 - std::min<std::size_t>(mix.label.size(), 9), ' ') + std::to_string(mix.flippedPositions)
                  + " flipped, steady " + figure("%.6f", mix.steadyKld) + "\n";
        text += "  " + best.label + " minus plan where neither flipped (" + std::to_string(best.steadyPairs)
              + " positions): " + figure("%.6f", best.steadyDifferenceMean) + " ± " + figure("%.6f", best.steadyDifferenceError) + "\n";
    }
    text += "  " + best.label + " minus plan, per position: " + figure("%.6f", best.differenceMean) + " ± " + figure("%.6f", best.differenceError)
          + ", median " + figure("%.6f", best.differenceMedian) + "\n";
    text += heldOut.wonOnSteadyError
                ? "  the plan wins where neither flipped by more than twice that difference's standard error, flips no more and is no worse "
                  "over all positions (mean and median): the plan is offered\n"
            : heldOut.planWins ? "  the plan wins by more than twice the difference's standard error: the plan is offered\n"
                             : "  the plan does not beat " + best.label + " by more than twice the difference's standard error: " + best.label
                                   + " is the better choice, and is offered (and written with -o) instead\n";
    return text;
}

}  // namespace

int runPlan(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "plan");
    if (!args.error.empty() || args.positionals.size() != 1 || !args.has("--size"))
        return reportFailure(args.error.empty() ? commandUsage("plan") : args.error, 2);
    auto budget = gguf::parseBudget(*args.value("--size"));
    if (!budget)
        return reportFailure(budget.error().message, 2);
    gguf::ErrorTableOptions tableOptions;
    std::optional<gguf::ParallelRows> ownPool;  // --threads; otherwise the shared pool (GGUFX_THREADS)
    // --threads caps at 1024 as every other command's does.
    for (const auto& [option, most] : {std::pair{"--rows", 1L << 20}, std::pair{"--threads", 1024L}}) {
        if (const auto text = args.value(option)) {
            char* end = nullptr;
            const long n = std::strtol(text->c_str(), &end, 10);
            if (text->empty() || *end != '\0' || n < 1 || n > most)
                return reportFailure(std::string(option) + " must be a whole number from 1 to " + std::to_string(most), 2);
            if (std::string(option) == "--rows")
                tableOptions.sampleRows = static_cast<std::size_t>(n);
            else
                ownPool.emplace(static_cast<unsigned>(n));
        }
    }
    // Threads the system refuses are an error, not fewer threads than asked for.
    if (ownPool && !ownPool->startError().empty())
        return reportFailure(ownPool->startError());
    tableOptions.executor = ownPool ? &*ownPool : &gguf::ParallelRows::shared();
    const auto imatrixPath = args.value("--imatrix");
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    // With an importance matrix every choice is measured as llama-quantize --imatrix would make
    // it (each expert's rows with its weights, errors weighted by them), which also makes the
    // IQ1/IQ2/IQ3 types and their presets candidates.
    std::optional<gguf::ImatrixCoverage> coverage;
    std::optional<gguf::ImatrixProvenance> imatrixKeys;  // what `convert --imatrix` with the same path writes
    if (imatrixPath) {
        const auto imatrix = loadImatrixForModelOrReport(*imatrixPath, *model, &coverage.emplace());
        if (!imatrix)
            return 1;
        tableOptions.importance = importanceLookupOf(imatrix);
        imatrixKeys = gguf::imatrixProvenanceOf(*imatrix, *imatrixPath);
    }

    // With a scan the choices cost what the scan measured: the plan minimises the predicted KLD.
    std::optional<gguf::ScanRecord> scan;
    if (const auto path = args.value("--scan")) {
        auto record = gguf::readScanFile(*path, gguf::ScanFileLimits::forModel(*model));
        if (!record)
            return reportFailure(record.error().toString());
        if (record->identity.importance.empty() == imatrixPath.has_value())
            return reportFailure(*path + (imatrixPath ? " was measured without an importance matrix; plan without --imatrix, or scan with it"
                                                      : " was measured with an importance matrix; give plan the same --imatrix"),
                                 2);
        // Figures of another model (or another importance matrix) would plan this one by costs
        // that are not its own.
        if (gguf::Status s = gguf::checkScanForModel(*record, *model, tableOptions.importance); !s)
            return reportFailure(*path + ": " + s.error().message);
        scan = std::move(*record);
    }

    if (args.has("--text-file") && !scan)
        return reportFailure("--text-file is the scan's text: it needs --scan", 2);
    std::int64_t heldOutMost = 2048;
    if (const auto text = args.value("--held-out")) {
        char* end = nullptr;
        heldOutMost = std::strtoll(text->c_str(), &end, 10);
        if (text->empty() || *end != '\0' || heldOutMost < 4 || heldOutMost > (std::int64_t{1} << 30))
            return reportFailure("--held-out must be a whole number of tokens from 4 to 1073741824", 2);
    }
    std::optional<std::vector<std::int32_t>> calibration;
    if (const auto path = args.value("--text-file")) {
        calibration = tokenizeTextFileOrReport(*model, *path);
        if (!calibration)
            return 2;
    }
    auto table = gguf::measureErrorTable(*model, tableOptions);
    if (!table)
        return reportFailure(table.error().toString());
    // The presets to measure a plan against are those of its size whatever types the scan
    // measured: evaluated on the table before the scan's costs replace its figures.
    std::optional<gguf::ErrorTable> weightTable;
    if (calibration)
        weightTable = *table;
    if (scan) {
        auto applied = gguf::applyScanCosts(*table, *scan);
        if (!applied)
            return reportFailure(applied.error().toString());
    }
    const char* figureName = scan ? "predicted_kld" : "error";
    auto context = gguf::makePlanContext(*model, *table, imatrixKeys.has_value(), imatrixKeys);
    if (!context)
        return reportFailure(context.error().toString());
    const auto presets = gguf::evaluatePresets(*context);
    auto plan = gguf::planMix(*context, presets, *budget);
    if (!plan)
        return reportFailure(plan.error().message);
    auto rules = gguf::rulesForMix(*context, presets, plan->mix);
    if (!rules)
        return reportFailure(rules.error().message);
    // Measured before it is offered: where the best preset that fits is as good (within the
    // difference's uncertainty), the preset is offered and written instead.
    std::optional<gguf::HeldOutResult> heldOut;
    if (calibration) {
        auto weightContext = gguf::makePlanContext(*model, *weightTable, imatrixKeys.has_value(), imatrixKeys);
        if (!weightContext)
            return reportFailure(weightContext.error().toString());
        gguf::PlanHeldOutRequest request;
        request.most = heldOutMost;
        request.importance = tableOptions.importance;
        request.executor = tableOptions.executor;
        auto measured = gguf::measurePlanOnHeldOutText(*model, *scan, *calibration, *table, plan->mix, gguf::evaluatePresets(*weightContext), *budget, request);
        if (!measured)
            return reportFailure(measured.error().toString());
        heldOut = std::move(*measured);
    }
    gguf::PlanRules offered = *rules;
    if (heldOut && !heldOut->planWins)
        offered = gguf::PlanRules{gguf::findQuantPreset(heldOut->mixes[heldOut->bestPreset].label), {}};
    if (!inputsUnchangedOrReport())
        return 1;
    if (const auto out = args.value("-o")) {
        // Never into what this run read (the model, the importance matrix); `-` is standard output.
        auto sink = gguf::openOutputFile(*out);
        if (!sink)
            return reportFailure(sink.error().toString());
        const std::string text = rulesFileText(offered);
        if (gguf::Status s = (*sink)->write(text.data(), text.size()); !s)
            return reportFailure(s.error().toString());
        if (gguf::Status s = (*sink)->commit(); !s)
            return reportFailure(s.error().toString());
    }

    // With `-o -` the rules take standard output and the report goes to stderr, as with a
    // compressor writing to a pipe.
    const bool rulesOnStdout = args.value("-o") == std::optional<std::string>("-");
    const auto reportText = [rulesOnStdout](const std::string& text) {
        if (rulesOnStdout)
            std::fputs(text.c_str(), stderr);
        else
            writeStdout(text);
    };
    const std::string base(offered.basePreset->name);
    if (args.has("--json")) {
        std::string out;
        gguf::JsonWriter json(out);
        json.beginObject();
        json.key("model");
        json.value(model->primary().path());
        json.key("budget");
        json.beginObject();
        json.key(budget->kind == gguf::Budget::Kind::FileBytes ? "file_bytes" : "bits_per_weight");
        json.value(budget->value);
        json.endObject();
        json.key("weighted");
        json.value(table->weighted);
        if (coverage)
            writeImatrixCoverageJson(json, *coverage);
        json.key("objective");
        json.value(scan ? "measured KLD (sum of the scan's cells)" : "relative squared weight error (sum over tensors)");
        json.key("plan");
        json.beginObject();
        json.key("file_bytes");
        json.value(plan->mix.fileBytes);
        json.key("data_bytes");
        json.value(plan->mix.dataBytes);
        json.key("bits_per_weight");
        json.value(plan->mix.bitsPerWeight);
        json.key(figureName);
        json.value(plan->mix.error);
        writeRulesJson(json, *rules);
        json.key("tensors");
        json.beginObject();
        for (std::size_t t = 0; t < table->tensors.size(); ++t) {
            json.key(table->tensors[t].tensor->name);
            json.value(gguf::typeName(plan->mix.types[t]));
        }
        json.endObject();
        json.endObject();
        json.key("best_preset_within_budget");
        plan->bestPresetWithin ? json.value(plan->bestPresetWithin->name) : json.null();
        if (heldOut)
            writeHeldOutJson(json, *heldOut, scan->identity.chunkSize);
        // What is offered (and written with -o): the plan's rules over its base preset, or a
        // preset alone when the measurement says it is the better choice.
        json.key("offered");
        json.beginObject();
        json.key("kind");
        json.value(heldOut && !heldOut->planWins ? "preset" : "plan");
        writeRulesJson(json, offered);
        json.endObject();
        json.key("presets");
        json.beginArray();
        for (const gguf::PresetOnFrontier& point : presets) {
            json.beginObject();
            json.key("preset");
            json.value(point.preset->name);
            json.key("evaluated");
            json.value(point.evaluated);
            if (point.evaluated) {
                json.key("file_bytes");
                json.value(point.mix.fileBytes);
                json.key("bits_per_weight");
                json.value(point.mix.bitsPerWeight);
                json.key(figureName);
                json.value(point.mix.error);
            } else {
                json.key("why");
                json.value(point.why);
            }
            json.endObject();
        }
        json.endArray();
        json.endObject();
        out += '\n';
        reportText(out);
        return 0;
    }

    const std::string objective = scan ? "predicted KLD" : "error";
    std::string text = scan ? std::string("presets (predicted KLD: the sum of the scan's cells):\n")
                            : "presets (estimated relative squared error, summed over tensors" + std::string(table->weighted ? ", importance-weighted" : "") + "):\n";
    for (const gguf::PresetOnFrontier& point : presets)
        if (point.evaluated)
            text += "  " + std::string(point.preset->name) + std::string(10 - std::min<std::size_t>(point.preset->name.size(), 9), ' ')
                  + gguf::formatBytes(point.mix.fileBytes) + "  " + figure("%.3f bpw", point.mix.bitsPerWeight) + "  " + objective + " "
                  + figure("%.6g", point.mix.error) + (gguf::fitsBudget(point.mix, *budget, table->totalElements) ? "  (fits)" : "") + "\n";
    text += "\nplan: " + gguf::formatBytes(plan->mix.fileBytes) + " (" + gguf::formatGrouped(plan->mix.fileBytes) + " bytes), "
          + figure("%.3f bpw", plan->mix.bitsPerWeight) + ", " + objective + " " + figure("%.6g", plan->mix.error);
    if (plan->bestPresetWithin)
        text += "; best preset within the budget: " + std::string(plan->bestPresetWithin->name) + ", " + objective + " "
              + figure("%.6g", plan->bestPresetError);
    text += "\n";
    for (std::size_t t = 0; t < table->tensors.size(); ++t)
        text += "  " + shown(table->tensors[t].tensor->name) + "  " + gguf::typeName(plan->mix.types[t]) + "\n";
    if (heldOut)
        text += heldOutText(*heldOut, scan->identity.chunkSize);
    const bool presetAlone = heldOut && !heldOut->planWins;  // offered instead of the plan: no rules
    if (presetAlone)
        text += "\noffered: " + base + " itself:\n";
    else
        text += "\nas rules over " + base + (offered.rules.empty() ? " (none needed)" : "") + ":\n";
    if (!offered.rules.empty())
        text += "  " + commandText(gguf::formatTensorTypeArguments(offered.rules)) + "\n";
    const bool rulesFile = args.has("-o") && !presetAlone;
    text += "  llama-quantize" + std::string(rulesFile ? " --tensor-type-file " + shown(*args.value("-o")) : presetAlone ? "" : " --tensor-type ...")
          + " MODEL OUT.gguf " + base + "\n";
    text += "  gguf-explorer-cli convert MODEL OUT.gguf --preset " + base + (rulesFile ? " --recipe " + shown(*args.value("-o")) : std::string()) + "\n";
    reportText(text);
    return 0;
}
