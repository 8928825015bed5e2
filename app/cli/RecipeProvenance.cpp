// recipe FILE --source SOURCE [--imatrix I] [--preset P] [rules]: whether FILE is exactly what
// llama-quantize makes from SOURCE, tensor for tensor (core/recipe/ProvenanceCheck.h). Exit 0
// when it is, 3 when it is not (the first difference named), 1 when the check cannot be made.

#include "Commands.h"
#include "ImatrixOption.h"
#include "ModelOpening.h"
#include "RecipeRules.h"
#include "core/base/HumanFormat.h"
#include "core/base/JsonWriter.h"
#include "app/threads/ParallelRows.h"
#include "core/quantize/Quantize.h"
#include "core/recipe/ProvenanceCheck.h"

#include <cstdio>
#include <optional>

namespace {

constexpr int kNotIdentical = 3;

void writeJson(const std::string& filePath, const std::string& sourcePath, const std::optional<std::string>& imatrixPath,
               const gguf::ProvenanceCheck& check, const std::optional<gguf::ImatrixCoverage>& coverage, const std::string& hint)
{
    std::string out;
    gguf::JsonWriter json(out);
    json.beginObject();
    json.key("file");
    json.value(filePath);
    json.key("source");
    json.value(sourcePath);
    json.key("imatrix");
    imatrixPath ? json.value(*imatrixPath) : json.null();
    if (coverage)
        writeImatrixCoverageJson(json, *coverage);
    json.key("preset");
    json.value(check.preset->name);
    json.key("preset_from");
    json.value(check.presetFrom);
    json.key("identical");
    json.value(check.identical());
    json.key("tensors");
    json.value(static_cast<std::uint64_t>(check.tensorCount));
    json.key("tensors_compared");
    json.value(static_cast<std::uint64_t>(check.tensorsCompared));
    json.key("bytes_compared");
    json.value(check.bytesCompared);
    json.key("type_differences");
    json.value(static_cast<std::uint64_t>(check.typeDifferences));
    json.key("first_difference");
    if (const auto& d = check.firstDifference) {
        json.beginObject();
        json.key("tensor");
        json.value(d->tensor);
        json.key("kind");
        json.value(gguf::provenanceDifferenceName(d->kind));
        json.key("file_type");
        d->kind == gguf::ProvenanceDifferenceKind::Missing ? json.null() : json.value(gguf::typeName(d->fileType));
        json.key("llama_quantize_type");
        d->kind == gguf::ProvenanceDifferenceKind::Extra ? json.null() : json.value(gguf::typeName(d->expectedType));
        if (d->kind == gguf::ProvenanceDifferenceKind::Data) {
            json.key("byte_offset");
            json.value(d->byteOffset);
            json.key("row");
            json.value(d->row);
        }
        json.key("message");
        json.value(d->message);
        json.endObject();
    } else {
        json.null();
    }
    json.key("hint");
    hint.empty() ? json.null() : json.value(hint);
    json.endObject();
    out += '\n';
    writeStdout(out);
}

std::string presetOrigin(const gguf::ProvenanceCheck& check)
{
    if (check.presetFrom == "given")
        return "as given";
    return "from " + check.presetFrom;
}

}  // namespace

int runRecipeProvenance(const CliArguments& args, std::vector<gguf::TensorTypeRule> rules)
{
    const std::string sourcePath = *args.value("--source");
    gguf::ProvenanceOptions options;
    if (const auto presetText = args.value("--preset")) {
        options.preset = gguf::findQuantPreset(*presetText);
        if (!options.preset)
            return reportFailure("unknown preset '" + *presetText + "'", 2);
    }
    std::string error;
    if (const auto file = args.value("--tensor-type-file"); file && !appendRulesFile(*file, rules, error))
        return reportFailure(error);
    options.recipe.rules = std::move(rules);
    if (!readForcedTypes(args, options.recipe, error))
        return reportFailure(error, 2);
    std::optional<gguf::ParallelRows> ownPool;  // --threads; otherwise the shared pool (GGUFX_THREADS)
    if (const auto threads = args.value("--threads")) {
        char* end = nullptr;
        const long n = std::strtol(threads->c_str(), &end, 10);
        if (threads->empty() || *end != '\0' || n < 1 || n > 1024)
            return reportFailure("--threads must be a whole number from 1 to 1024", 2);
        ownPool.emplace(static_cast<unsigned>(n));
    }
    options.conversion.executor = ownPool ? &*ownPool : &gguf::ParallelRows::shared();

    const auto file = openModelOrReport(args.positionals[0]);
    if (!file)
        return 1;
    const auto source = openModelOrReport(sourcePath);
    if (!source)
        return 1;
    const auto imatrixPath = args.value("--imatrix");
    std::optional<gguf::ImatrixCoverage> coverage;
    if (imatrixPath) {
        // As llama-quantize --imatrix reads it: it must fit the source, each expert its own weights.
        const auto imatrix = loadImatrixForModelOrReport(*imatrixPath, *source, &coverage.emplace());
        if (!imatrix)
            return 1;
        options.conversion.importance = importanceLookupOf(imatrix);
    }
    auto check = gguf::checkProvenance(*file, *source, options);
    if (!check)
        return reportFailure(check.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;
    const std::string hint = gguf::provenanceImatrixHint(*file, *check);
    if (args.has("--json")) {
        writeJson(file->primary().path(), sourcePath, imatrixPath, *check, coverage, hint);
        return check->identical() ? 0 : kNotIdentical;
    }
    const std::string preset(check->preset->name);
    std::string text = "file:   " + shown(file->primary().path()) + "\nsource: " + shown(sourcePath)
                     + (imatrixPath ? " with the importance matrix " + shown(*imatrixPath) : std::string(" without an importance matrix"))
                     + "\npreset: " + preset + " (" + presetOrigin(*check) + ")\n";
    text += shown(gguf::provenanceVerdict(*check)) + "\n";
    for (const std::string& line : gguf::provenanceDetails(*check))
        text += "  " + line + "\n";
    if (!hint.empty())
        text += "  hint: " + shown(hint) + "\n";
    writeStdout(text);
    return check->identical() ? 0 : kNotIdentical;
}
