// recipe: a file's per-tensor types as layers x roles with an audit of its label, or (with
// --preset) the types llama-quantize would choose for a model.

#include "Commands.h"
#include "ModelOpening.h"
#include "RecipeOutput.h"
#include "RecipeRules.h"
#include "core/base/HumanFormat.h"
#include "core/base/JsonWriter.h"
#include "ImatrixOption.h"
#include "core/recipe/RecipeAudit.h"
#include "core/recipe/MixSummary.h"
#include "core/recipe/RecipeGrid.h"

#include <algorithm>
#include <cstdio>

namespace {

std::string presetText(const gguf::QuantPreset* preset)
{
    return preset ? std::string(preset->name) : std::string("-");
}

int showFileRecipe(const gguf::Model& model, bool asJson)
{
    const gguf::RecipeGrid grid = gguf::storedGrid(model);
    const gguf::RecipeAudit audit = gguf::auditRecipe(model);
    const gguf::MixSummary mix = gguf::summarizeMix(model, audit);
    if (!inputsUnchangedOrReport())
        return 1;
    if (asJson) {
        std::string out;
        gguf::JsonWriter json(out);
        json.beginObject();
        json.key("file");
        json.value(model.primary().path());
        json.key("grid");
        writeGridJson(json, grid);
        writeMixJson(json, mix);
        json.key("audit");
        json.beginObject();
        json.key("general.file_type");
        if (audit.fileType)
            json.value(*audit.fileType);
        else
            json.null();
        json.key("file_type_name");
        json.value(audit.fileTypeName);
        json.key("label_preset");
        audit.labelPreset ? json.value(audit.labelPreset->name) : json.null();
        json.key("name_preset");
        audit.namePreset ? json.value(audit.namePreset->name) : json.null();
        json.key("dominant_type");
        json.value(gguf::typeName(audit.dominantType));
        json.key("dominant_share");
        json.value(audit.dominantShare);
        json.key("compared_preset");
        audit.comparedPreset ? json.value(audit.comparedPreset->name) : json.null();
        json.key("assumed_imatrix");
        json.value(audit.assumedImatrix);
        json.key("matches_preset");
        json.value(audit.matchesPreset());
        json.key("differences");
        json.beginArray();
        for (const gguf::RecipeDifference& d : audit.differences) {
            json.beginObject();
            json.key("tensor");
            json.value(d.tensor);
            json.key("stored");
            json.value(gguf::typeName(d.storedType));
            json.key("llama_quantize");
            json.value(gguf::typeName(d.expectedType));
            json.endObject();
        }
        json.endArray();
        json.key("imatrix");
        json.beginObject();
        for (const auto& [key, value] : audit.imatrixKeys) {
            json.key(key);
            json.value(value);
        }
        json.endObject();
        json.key("findings");
        json.beginArray();
        for (const std::string& finding : audit.findings)
            json.value(finding);
        json.endArray();
        json.endObject();
        json.endObject();
        out += '\n';
        writeStdout(out);
        return 0;
    }
    std::string text = "file: " + shown(model.primary().path()) + "\n\n" + gridText(grid) + "\n" + mixText(mix) + "\naudit:\n";
    text += "  general.file_type: " + (audit.fileType ? std::to_string(*audit.fileType) : std::string("(not set)"))
          + (audit.fileTypeName.empty() ? "" : " (" + audit.fileTypeName + ")") + "; preset " + presetText(audit.labelPreset) + "\n";
    text += "  file name:         " + shown(audit.fileName) + "; preset " + presetText(audit.namePreset) + "\n";
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", 100.0 * audit.dominantShare);
    text += "  most weights:      " + gguf::typeName(audit.dominantType) + " (" + share + " of the quantizable bytes)\n";
    for (const auto& [key, value] : audit.imatrixKeys)
        text += "  " + shown(key) + ": " + shown(value) + "\n";
    for (const std::string& finding : audit.findings)
        text += "  - " + shown(finding) + "\n";
    if (!audit.differences.empty()) {
        text += "  tensors that differ from llama-quantize's " + presetText(audit.comparedPreset) + ":\n";
        for (const gguf::RecipeDifference& d : audit.differences)
            text += "    " + padded(shown(d.tensor), 32) + "  stored " + padded(gguf::typeName(d.storedType), 8) + "  llama-quantize "
                  + gguf::typeName(d.expectedType) + "\n";
    }
    writeStdout(withoutTrailingSpaces(text));
    return 0;
}

// `options` holds the rules and forced types; the preset and the imatrix are set here.
int showPresetRecipe(const gguf::Model& model, const std::string& modelPath, const gguf::QuantPreset& preset,
                     const std::optional<std::string>& imatrixPath, gguf::RecipeOptions options, bool asJson)
{
    options.preset = &preset;
    options.hasImatrix = imatrixPath.has_value();
    auto recipe = gguf::computeRecipe(gguf::readModelShape(model), model.tensors(), options);
    if (!recipe)
        return reportFailure(recipe.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;
    // As llama-quantize --dry-run: the types are shown, with its refusal as a warning.
    const std::string refusal = recipe->refusal.empty() ? std::string()
                                                        : "llama-quantize would refuse " + std::string(preset.name)
                                                              + " for this model without an importance matrix: " + recipe->refusal;
    if (!refusal.empty())
        std::fprintf(stderr, "gguf-explorer-cli: warning: %s\n", shown(refusal).c_str());
    if (asJson) {
        std::string out;
        gguf::JsonWriter json(out);
        json.beginObject();
        json.key("source");
        json.value(modelPath);
        json.key("ftype");
        json.value(preset.name);
        json.key("imatrix");
        imatrixPath ? json.value(*imatrixPath) : json.null();
        json.key("general.file_type");
        json.value(preset.fileType);
        json.key("tensors");
        json.beginObject();
        for (const gguf::RecipeTensor& tensor : recipe->tensors) {
            json.key(tensor.source->name);
            json.value(gguf::typeName(tensor.typeId));
        }
        json.endObject();
        json.key("bytes");
        json.value(recipe->totalBytes);
        json.key("bits_per_weight");
        json.value(recipe->bitsPerWeight());
        json.key("fallbacks");
        json.value(static_cast<std::uint64_t>(recipe->fallbackCount));
        json.key("needs_imatrix");
        json.value(!recipe->refusal.empty());
        json.key("warning");
        refusal.empty() ? json.null() : json.value(refusal);
        json.key("rules");
        json.beginArray();
        for (const gguf::TensorTypeRule& rule : options.rules)
            json.value(gguf::formatTensorTypeRule(rule));
        json.endArray();
        json.endObject();
        out += '\n';
        writeStdout(out);
        return 0;
    }
    std::string text = "llama-quantize " + std::string(preset.name) + (imatrixPath ? " with an imatrix" : " without an imatrix")
                     + " on " + shown(modelPath) + " (general.file_type " + std::to_string(preset.fileType) + "):\n";
    for (const gguf::RecipeTensor& tensor : recipe->tensors) {
        text += "  " + padded(shown(tensor.source->name), 34) + "  " + padded(gguf::typeName(tensor.source->typeId), 7) + " -> "
              + padded(gguf::typeName(tensor.typeId), 8) + "  " + padded(gguf::formatBytes(tensor.bytes), 10);
        if (!tensor.note.empty() && (tensor.manual || tensor.fellBack))
            text += "  " + shown(tensor.note);
        text += "\n";
    }
    text += "\n" + gridText(gguf::recipeGrid(*recipe));
    if (!refusal.empty())
        text += "\nwarning: " + shown(refusal) + "\n";
    writeStdout(withoutTrailingSpaces(text));
    return 0;
}

}  // namespace

int runRecipe(const std::vector<std::string>& givenWords)
{
    std::vector<std::string> words = givenWords;
    std::string ruleError;
    auto rules = takeTensorTypeRules(words, ruleError);
    if (!rules)
        return reportFailure(ruleError, 2);
    const CliArguments args = CliArguments::parse(words, "recipe");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("recipe") : args.error, 2);
    const bool asJson = args.has("--json");
    if (args.has("--source"))
        return runRecipeProvenance(args, std::move(*rules));
    if (args.has("--threads"))
        return reportFailure("--threads goes with --source", 2);
    if (!args.has("--preset")) {
        if (args.has("--imatrix") || !rules->empty() || args.has("--tensor-type-file") || args.has(kForcedTypeOptions[0])
            || args.has(kForcedTypeOptions[1]))
            return reportFailure("--imatrix, --tensor-type, --tensor-type-file and the type options need --preset or --source", 2);
        const auto model = openModelOrReport(args.positionals[0]);
        return model ? showFileRecipe(*model, asJson) : 1;
    }
    const gguf::QuantPreset* preset = gguf::findQuantPreset(*args.value("--preset"));
    if (!preset) {
        std::string names;
        for (const gguf::QuantPreset& p : gguf::quantPresets())
            names += (names.empty() ? "" : ", ") + std::string(p.name);
        return reportFailure("unknown preset '" + *args.value("--preset") + "'; presets: " + names, 2);
    }
    if (const auto file = args.value("--tensor-type-file"); file && !appendRulesFile(*file, *rules, ruleError))
        return reportFailure(ruleError);
    const auto imatrixPath = args.value("--imatrix");
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    // Read as the quantizers would: either format, and it must fit this model.
    if (imatrixPath && !loadImatrixForModelOrReport(*imatrixPath, *model))
        return 1;
    gguf::RecipeOptions options;
    options.rules = std::move(*rules);
    if (!readForcedTypes(args, options, ruleError))
        return reportFailure(ruleError, 2);
    return showPresetRecipe(*model, args.positionals[0], *preset, imatrixPath, std::move(options), asJson);
}
