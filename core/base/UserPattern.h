#pragma once
// A regular expression a user typed or shared: --filter, --tensors, --tensor-type and rules
// files all compile their patterns here and nowhere else. It runs on RE2, not std::regex:
// std::regex backtracks (`(.*)*z` takes minutes on a few names) and compiles by recursion (a
// pattern nested 20,000 groups deep overflows the stack). RE2 matches in time linear in the
// name and compiles into bounded memory, so no pattern can hang or crash a command; the price
// is that back-references and lookarounds, which no tensor name needs, are refused with an
// error. The syntax is otherwise the ECMAScript one people write for llama-quantize
// (`blk\.[0-9]+\.ffn_(up|gate)`, `\d`, `[[:alpha:]]`, `^...$`), matched on bytes.

#include "core/base/Result.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace gguf {

class UserPattern {
public:
    // Longest pattern accepted: far beyond an alternation of every tensor name of a model.
    static constexpr std::size_t kMaxLength = 256 * 1024;

    // The compiled pattern, or an error quoting (the start of) the pattern and saying why.
    static Result<UserPattern> compile(std::string_view pattern);

    // Whether the pattern occurs anywhere in `text` (std::regex_search's question).
    bool foundIn(std::string_view text) const;
    const std::string& text() const { return m_text; }

private:
    std::string m_text;
    std::shared_ptr<const re2::RE2> m_compiled;  // shared: copies of a pattern reuse one program
};

}  // namespace gguf
