#include "core/recipe/TensorTypeRules.h"

#include "core/base/InputFiles.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gguf {

namespace {

Error ruleError(const std::string& message)
{
    return Error{message, Error::kNoOffset, {}};
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

Result<TensorTypeRule> parseTensorTypeRule(std::string_view word)
{
    const std::size_t separator = word.find('=');
    if (separator == std::string_view::npos)
        return ruleError("malformed tensor type '" + std::string(word) + "': expected REGEX=TYPE");
    if (separator == 0)
        return ruleError("missing tensor name in '" + std::string(word) + "'");
    if (separator + 1 == word.size())
        return ruleError("missing quantization type in '" + std::string(word) + "'");
    TensorTypeRule rule;
    rule.pattern.assign(word.substr(0, separator));
    std::transform(rule.pattern.begin(), rule.pattern.end(), rule.pattern.begin(),
                   [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
    const std::string_view typeText = word.substr(separator + 1);
    const TypeTraits* type = findTypeByName(typeText);
    if (!type)
        return ruleError("invalid quantization type '" + std::string(typeText) + "' in '" + std::string(word) + "'");
    rule.typeId = type->id;
    if (auto compiled = UserPattern::compile(rule.pattern); !compiled)
        return ruleError("tensor " + compiled.error().message);
    return rule;
}

Result<std::vector<TensorTypeRule>> parseTensorTypeRules(std::string_view text)
{
    std::vector<TensorTypeRule> rules;
    std::size_t at = 0;
    bool lineStart = true;
    while (at < text.size()) {
        if (isSpace(text[at])) {
            lineStart = lineStart || text[at] == '\n';
            ++at;
            continue;
        }
        if (lineStart && text[at] == '#') {
            while (at < text.size() && text[at] != '\n')
                ++at;
            continue;
        }
        std::size_t end = at;
        while (end < text.size() && !isSpace(text[end]))
            ++end;
        if (rules.size() == kMaxRules)
            return ruleError("more than " + std::to_string(kMaxRules) + " rules");
        auto rule = parseTensorTypeRule(text.substr(at, end - at));
        if (!rule)
            return rule.error();
        rules.push_back(std::move(rule.value()));
        at = end;
        lineStart = false;
    }
    return rules;
}

Result<std::vector<TensorTypeRule>> loadTensorTypeRules(const std::string& path)
{
    // A folder opens as a stream that reads nothing: it would pass for an empty rules file.
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        return Error{"is a folder, not a rules file", Error::kNoOffset, path};
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return Error{"cannot open the rules file", Error::kNoOffset, path};
    noteInputPath(path);  // no output of this run may replace it
    std::string text;
    char buffer[65536];
    while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(file.gcount()));
        if (text.size() > kMaxRulesFileBytes)
            return Error{"the rules file is larger than " + std::to_string(kMaxRulesFileBytes >> 20) + " MiB", Error::kNoOffset, path};
    }
    if (file.bad())
        return Error{"cannot read the rules file", Error::kNoOffset, path};
    auto rules = parseTensorTypeRules(text);
    if (!rules) {
        Error error = rules.error();
        error.path = path;
        return error;
    }
    return rules;
}

std::string formatTensorTypeRule(const TensorTypeRule& rule)
{
    return rule.pattern + "=" + typeName(rule.typeId);
}

std::string formatTensorTypeRulesFile(const std::vector<TensorTypeRule>& rules, std::string_view comment)
{
    std::string text;
    std::istringstream lines{std::string(comment)};
    for (std::string line; std::getline(lines, line);)
        text += "# " + line + "\n";
    // A rule at the start of a line that begins with '#' would read back as a comment: escape
    // the '#' (the same pattern to the regex engine; llama-quantize reads it the same way).
    for (const TensorTypeRule& rule : rules)
        text += (rule.pattern.starts_with('#') ? "\\" : "") + formatTensorTypeRule(rule) + "\n";
    return text;
}

std::string formatTensorTypeArguments(const std::vector<TensorTypeRule>& rules)
{
    std::string text;
    for (const TensorTypeRule& rule : rules) {
        std::string quoted;
        for (char c : formatTensorTypeRule(rule))
            quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        text += (text.empty() ? "" : " ") + std::string("--tensor-type '") + quoted + "'";
    }
    return text;
}

std::string exactNamePattern(std::string_view tensorName)
{
    std::string pattern = "^";
    for (char c : tensorName) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            pattern += '\\';
        pattern += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return pattern + "$";
}

Result<CompiledTensorTypeRules> CompiledTensorTypeRules::compile(const std::vector<TensorTypeRule>& rules)
{
    CompiledTensorTypeRules compiled;
    for (const TensorTypeRule& rule : rules) {
        auto pattern = UserPattern::compile(rule.pattern);
        if (!pattern)
            return ruleError("tensor " + pattern.error().message);
        compiled.m_patterns.push_back(std::move(*pattern));
        compiled.m_rules.push_back(rule);
    }
    return compiled;
}

const TensorTypeRule* CompiledTensorTypeRules::match(std::string_view name) const
{
    for (std::size_t i = 0; i < m_patterns.size(); ++i)
        if (m_patterns[i].foundIn(name))
            return &m_rules[i];
    return nullptr;
}

}  // namespace gguf
