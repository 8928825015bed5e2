#pragma once
// --tensor-type R=T (repeatable) and --tensor-type-file F / --recipe F, shared by recipe,
// plan and convert.

#include "RepeatedOption.h"
#include "recipe/TensorTypeRules.h"

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
