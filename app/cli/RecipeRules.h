#pragma once
// --tensor-type R=T (repeatable) and --tensor-type-file F / --recipe F, shared by recipe,
// plan and convert.

#include "CliArguments.h"
#include "RepeatedOption.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/recipe/TensorTypeRules.h"
#include "core/types/GgmlType.h"

#include <optional>
#include <string>
#include <vector>

// Takes the --tensor-type values out of `words`; the rules, or nullopt after setting `error`.
inline std::optional<std::vector<gguf::TensorTypeRule>> takeTensorTypeRules(std::vector<std::string>& words, std::string& error)
{
    std::vector<gguf::TensorTypeRule> rules;
    for (const std::string& word : takeRepeatedOption(words, "--tensor-type", error)) {
        auto rule = gguf::parseTensorTypeRule(word);
        if (!rule) {
            error = "--tensor-type: " + rule.error().message;
            return std::nullopt;
        }
        rules.push_back(std::move(*rule));
    }
    if (!error.empty())
        return std::nullopt;
    return rules;
}

// Appends the rules of a file (after the command-line ones: llama-quantize reads both into one
// list in argument order, and the first match wins).
inline bool appendRulesFile(const std::string& path, std::vector<gguf::TensorTypeRule>& rules, std::string& error)
{
    auto loaded = gguf::loadTensorTypeRules(path);
    if (!loaded) {
        error = loaded.error().toString();
        return false;
    }
    rules.insert(rules.end(), loaded->begin(), loaded->end());
    return true;
}

// The value options of the forced types (llama-quantize's --token-embedding-type and
// --output-tensor-type), for CliArguments::parse.
inline constexpr const char* kForcedTypeOptions[] = {"--token-embedding-type", "--output-tensor-type"};

// Reads them into `options` (any ggml type name, as llama-quantize takes); false after setting `error`.
inline bool readForcedTypes(const CliArguments& args, gguf::RecipeOptions& options, std::string& error)
{
    for (const char* option : kForcedTypeOptions) {
        const auto name = args.value(option);
        if (!name)
            continue;
        const gguf::TypeTraits* type = gguf::findTypeByName(*name);
        if (!type) {
            error = std::string(option) + ": unknown type '" + *name + "'";
            return false;
        }
        (std::string_view(option) == "--output-tensor-type" ? options.outputTensorType : options.tokenEmbeddingType) = type->id;
    }
    return true;
}
