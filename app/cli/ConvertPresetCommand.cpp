// convert --type PRESET (or --preset PRESET): quantize as llama-quantize would for a preset
// such as Q4_K_M, optionally with --tensor-type rules or a --recipe rules file over it, and
// write the file in llama-quantize's tensor order with the metadata keys it writes.

#include "app/threads/ParallelRows.h"
#include "Commands.h"
#include "ModelOpening.h"
#include "RecipeRules.h"
#include "ImatrixOption.h"
#include "core/base/HumanFormat.h"
#include "ImatrixOption.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/QuantPresets.h"
#include "core/recipe/RecipeConversion.h"

#include <optional>
#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include <memory>

namespace {

// "# base preset: Q4_K_M" in a rules file written by `plan`.
const gguf::QuantPreset* presetNamedInRulesFile(const std::string& path)
{
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file)
        return nullptr;
    char line[256];
    const gguf::QuantPreset* preset = nullptr;
    for (int i = 0; i < 32 && !preset && std::fgets(line, sizeof line, file); ++i) {
        const std::string text = line;
        const std::string marker = "# base preset: ";
        if (text.rfind(marker, 0) == 0) {
            std::string name = text.substr(marker.size());
            while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' '))
                name.pop_back();
            preset = gguf::findQuantPreset(name);
        }
    }
    std::fclose(file);
    return preset;
}

}  // namespace

bool convertWantsPreset(const std::vector<std::string>& words)
{
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "--preset" || words[i] == "--tensor-type" || words[i] == "--recipe" || words[i] == "--token-embedding-type"
            || words[i] == "--output-tensor-type")
            return true;
        // A preset name that is no type name (Q4_K_M, IQ2_M, MXFP4_MOE): only a preset can be meant.
        if (words[i] == "--type" && i + 1 < words.size() && gguf::findQuantPreset(words[i + 1])
            && !gguf::findTypeByName(words[i + 1]))
            return true;
    }
    return false;
}

int runConvertPreset(const std::vector<std::string>& givenWords)
{
    std::vector<std::string> words = givenWords;
    std::string error;
    auto rules = takeTensorTypeRules(words, error);
    if (!rules)
        return reportFailure(error, 2);
    const CliArguments args = CliArguments::parse(words, "convert");
    if (!args.error.empty() || args.positionals.size() != 2)
        return reportFailure(args.error.empty() ? commandUsage("convert") : args.error, 2);
    if (args.has("--tensors"))
        return reportFailure("--tensors goes with one --type, not with a preset (use --tensor-type REGEX=TYPE)", 2);
    std::optional<std::string> presetText = args.value("--preset");
    if (!presetText)
        presetText = args.value("--type");
    const gguf::QuantPreset* preset = presetText ? gguf::findQuantPreset(*presetText) : nullptr;
    if (presetText && !preset)
        return reportFailure("unknown preset '" + *presetText + "'", 2);
    if (const auto file = args.value("--recipe")) {
        if (!preset)
            preset = presetNamedInRulesFile(*file);
        if (!appendRulesFile(*file, *rules, error))
            return reportFailure(error);
    }
    if (!preset)
        return reportFailure("convert with rules needs --type PRESET (or a rules file naming its base preset)", 2);

    gguf::RecipeOptions recipeOptions;
    if (!readForcedTypes(args, recipeOptions, error))
        return reportFailure(error, 2);

    gguf::RecipeConversionOptions options;
    std::optional<gguf::ParallelRows> ownPool;  // --threads; otherwise the shared pool (GGUFX_THREADS)
    if (const auto threads = args.value("--threads")) {
        const long n = std::strtol(threads->c_str(), nullptr, 10);
        if (n < 1 || n > 1024)
            return reportFailure("--threads must be a whole number from 1 to 1024", 2);
        ownPool.emplace(static_cast<unsigned>(n));
    }
    options.executor = ownPool ? &*ownPool : &gguf::ParallelRows::shared();
    // `-`: the model goes to standard output (never a file named `-`), and the summary to stderr.
    const bool modelOnStdout = args.positionals[1] == "-";
    if (modelOnStdout && isatty(STDOUT_FILENO))
        return reportFailure("refusing to write a model to a terminal; name a file or use a pipe", 2);
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    // As llama-quantize --imatrix: each expert's rows quantized with its weights, the preset's
    // imatrix rules, and the quantize.imatrix.* keys.
    std::shared_ptr<const gguf::ImportanceMatrix> imatrix;
    if (const auto imatrixPath = args.value("--imatrix")) {
        imatrix = loadImatrixForModelOrReport(*imatrixPath, *model);
        if (!imatrix)
            return 1;
        options.importance = importanceLookupOf(imatrix);
        options.imatrix = gguf::imatrixProvenanceOf(*imatrix, *imatrixPath);
    }
    recipeOptions.hasImatrix = imatrix != nullptr;
    recipeOptions.preset = preset;
    recipeOptions.rules = std::move(*rules);
    auto recipe = gguf::computeRecipe(gguf::readModelShape(*model), model->tensors(), recipeOptions);
    if (!recipe)
        return reportFailure(recipe.error().toString());
    if (!recipe->refusal.empty())
        return reportFailure(recipe->refusal);
    auto report = gguf::convertWithRecipe(*model, *recipe, args.positionals[1], options);
    if (!report)
        return reportFailure(report.error().toString());
    inputsVerified() = true;  // convertWithRecipe checked the input before committing
    for (const std::string& warning : report->warnings)
        std::fprintf(stderr, "gguf-explorer-cli: warning: %s\n", shown(warning).c_str());
    const auto summary = [modelOnStdout](const char* text) {
        if (modelOnStdout)
            std::fputs(text, stderr);
        else
            writeStdout(text);
    };
    if (!args.has("--quiet")) {
        char line[512];
        std::snprintf(line, sizeof line, "wrote %s: %s, %zu tensors converted, %zu kept, %s of tensor data, %.3f bits per weight\n",
                      shown(args.positionals[1]).c_str(), std::string(preset->name).c_str(), report->convertedCount,
                      report->copiedCount, gguf::formatBytes(report->tensorBytes).c_str(), recipe->bitsPerWeight());
        summary(line);
    }
    return 0;
}
