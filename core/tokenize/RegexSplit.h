#pragma once
// One pre-tokenizer expression run with the standard library's ECMAScript engine, the way
// llama.cpp runs every expression it has no hand-written splitter for (unicode_regex_split):
//  * with \p{N} \p{L} \p{P} \p{M} \p{S} (or Lu/Ll/Lt/Lm/Lo, which it treats as \p{L}) the text is
//    "collapsed" to one byte per code point: ASCII stays, other whitespace becomes \v, other
//    characters the byte 0xD1..0xD5 of their category (0xD0 for the rest), and each \p{..} in
//    the expression becomes a class of that byte plus the category's ASCII members;
//  * without them it runs std::wregex on the code points, non-ASCII whitespace replaced by \v.
// Each fragment is cut into its matches and the unmatched stretches between them, looked for in
// windows of a bounded number of code points (the engine recurses once per character of a
// match; see RegexSplit.cpp for why the windows give the engine's words on the whole text).

#include "core/base/Result.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gguf {

struct SplitInput {
    const std::vector<char32_t>& codePoints;
    const std::string& collapsed;     // built once per text when some expression needs it
    const std::wstring& wide;         // likewise
};

class RegexSplit {
public:
    // Fails on an expression the engine rejects, or (as llama.cpp) one that mixes categories
    // with non-ASCII characters.
    static Result<std::shared_ptr<const RegexSplit>> compile(const std::string& expression);
    ~RegexSplit();

    bool usesCollapsedText() const { return m_collapsed; }
    // Code points the engine sees at once. The deepest expressions (tekken, gpt-4o) take ~1 KiB
    // of stack per character under AddressSanitizer, so 8,192 overflowed its 8 MiB there on a
    // run of capitals; 4,096 keeps half of it free.
    static constexpr std::size_t kDefaultWindow = 4096;
    std::vector<std::size_t> split(const SplitInput& input, const std::vector<std::size_t>& fragments,
                                   std::size_t window = kDefaultWindow) const;

    static std::string collapseText(const std::vector<char32_t>& codePoints);
    static std::wstring wideText(const std::vector<char32_t>& codePoints);
    // True when `expression` names a category (needs the collapsed text).
    static bool namesCategory(const std::string& expression);

private:
    struct Engines;
    RegexSplit() = default;
    bool m_collapsed = false;
    std::unique_ptr<Engines> m_engines;
};

}  // namespace gguf
