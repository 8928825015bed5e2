#pragma once
// Per-tensor type rules in the form llama-quantize's --tensor-type takes: "REGEX=TYPE", the
// regex searched in each tensor name (base/UserPattern: RE2, linear time), the first matching
// rule wins.
// llama-quantize lower-cases the regex and accepts any ggml type name in any case; a rules file
// (--tensor-type-file) is the same words separated by spaces or newlines.

#include "core/base/Result.h"
#include "core/base/UserPattern.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

struct TensorTypeRule {
    std::string pattern;     // lower-cased, as llama-quantize stores it
    std::uint32_t typeId = 0;
};

// One "REGEX=TYPE" word; the error says what is wrong the way llama-quantize's parser does
// (no '=', no name, no type, unknown type, invalid regex).
Result<TensorTypeRule> parseTensorTypeRule(std::string_view word);
// Bounds on a rules file, which people share: a rule costs a few KiB once compiled. One rule per
// tensor of the largest models (about 2,000 tensors) is far inside both.
constexpr std::size_t kMaxRules = 16384;
constexpr std::size_t kMaxRulesFileBytes = std::size_t{1} << 20;

// Whitespace-separated rules (a --tensor-type-file's text). Lines starting with '#' are
// comments here (llama-quantize has none; this tool writes them, so it must read them).
Result<std::vector<TensorTypeRule>> parseTensorTypeRules(std::string_view text);
// Reads and parses a rules file.
Result<std::vector<TensorTypeRule>> loadTensorTypeRules(const std::string& path);

// "REGEX=type" with ggml's type name.
std::string formatTensorTypeRule(const TensorTypeRule& rule);
// A rules file llama-quantize --tensor-type-file reads (one rule a line, after a comment header).
std::string formatTensorTypeRulesFile(const std::vector<TensorTypeRule>& rules, std::string_view comment);
// "--tensor-type 'REGEX=type' ..." for a shell command line.
std::string formatTensorTypeArguments(const std::vector<TensorTypeRule>& rules);
// A regex matching exactly `tensorName` ("^blk\.0\.attn_v\.weight$").
std::string exactNamePattern(std::string_view tensorName);

// Rules compiled once for matching.
class CompiledTensorTypeRules {
public:
    static Result<CompiledTensorTypeRules> compile(const std::vector<TensorTypeRule>& rules);
    // The first rule whose regex is found in `name`, or nullptr.
    const TensorTypeRule* match(std::string_view name) const;
    bool empty() const { return m_rules.empty(); }
    const std::vector<TensorTypeRule>& rules() const { return m_rules; }

private:
    std::vector<TensorTypeRule> m_rules;
    std::vector<UserPattern> m_patterns;
};

}  // namespace gguf
