#include "core/tokenize/PreTokenizer.h"

#include "core/tokenize/CustomSplitters.h"
#include "core/tokenize/Unicode.h"

#include <array>

namespace gguf {

namespace {
// The two expressions llama.cpp recognises by their exact text and runs with hand-written code,
// and those of qwen2, qwen35, gemma4, deepseek-llm's \\s+$ and superbpe's digit triples, which it runs with std::regex (see CustomSplitters.h).
constexpr std::string_view kGpt2Expression = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr std::string_view kLlama3Expression =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

constexpr std::string_view kQwen2Expression =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

constexpr std::string_view kQwen35Expression =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// gemma4: runs of newlines apart from everything else; deepseek-llm: trailing whitespace;
// superbpe: cuts before digit triples.
constexpr std::string_view kNewlineRunsExpression = R"([^\n]+|[\n]+)";
constexpr std::string_view kTrailingWhitespaceExpression = R"(\s+$)";
constexpr std::string_view kDigitTriplesExpression = R"((?=(\d{3})+(?!\d)))";

const std::array<std::string, 256>& byteLevelTable()
{
    static const std::array<std::string, 256> table = [] {
        std::array<std::string, 256> characters;
        const auto printable = [](int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); };
        char32_t next = 256;
        for (int b = 0; b < 256; ++b)
            unicode::appendUtf8(characters[static_cast<std::size_t>(b)], printable(b) ? static_cast<char32_t>(b) : next++);
        return characters;
    }();
    return table;
}
}  // namespace

std::string_view byteLevelCharacter(unsigned char byte)
{
    return byteLevelTable()[byte];
}

Result<PreTokenizer> PreTokenizer::create(const std::vector<std::string>& expressions, bool byteLevel)
{
    PreTokenizer pre;
    pre.m_byteLevel = byteLevel;
    for (const std::string& expression : expressions) {
        if (expression == kGpt2Expression) {
            pre.m_steps.push_back({Kind::Gpt2, nullptr});
        } else if (expression == kLlama3Expression) {
            pre.m_steps.push_back({Kind::Llama3, nullptr});
        } else if (expression == kQwen2Expression) {
            pre.m_steps.push_back({Kind::Qwen2, nullptr});
        } else if (expression == kQwen35Expression) {
            pre.m_steps.push_back({Kind::Qwen35, nullptr});
        } else if (expression == kTrailingWhitespaceExpression) {
            pre.m_steps.push_back({Kind::TrailingWhitespace, nullptr});
        } else if (expression == kDigitTriplesExpression) {
            pre.m_steps.push_back({Kind::DigitTriples, nullptr});
        } else if (expression == kNewlineRunsExpression) {
            pre.m_steps.push_back({Kind::NewlineRuns, nullptr});
        } else {
            auto regex = RegexSplit::compile(expression);
            if (!regex)
                return regex.error();
            (regex.value()->usesCollapsedText() ? pre.m_needsCollapsed : pre.m_needsWide) = true;
            pre.m_steps.push_back({Kind::Regex, std::move(regex.value())});
        }
    }
    return pre;
}

std::vector<std::string> PreTokenizer::split(std::string_view text) const
{
    const std::vector<char32_t> codePoints = unicode::decodeUtf8(text);
    // llama.cpp collapses the text when any expression of the list names a category.
    const std::string collapsed = m_needsCollapsed ? RegexSplit::collapseText(codePoints) : std::string();
    const std::wstring wide = m_needsWide ? RegexSplit::wideText(codePoints) : std::wstring();
    const SplitInput input{codePoints, collapsed, wide};

    std::vector<std::size_t> fragments{codePoints.size()};
    for (const Step& step : m_steps) {
        switch (step.kind) {
        case Kind::Gpt2: fragments = splitGpt2(codePoints, fragments); break;
        case Kind::Llama3: fragments = splitLlama3(codePoints, fragments); break;
        case Kind::Qwen2: fragments = splitQwen2(codePoints, fragments); break;
        case Kind::Qwen35: fragments = splitQwen35(codePoints, fragments); break;
        case Kind::TrailingWhitespace: fragments = splitTrailingWhitespace(codePoints, fragments); break;
        case Kind::DigitTriples: fragments = splitDigitTriples(codePoints, fragments); break;
        case Kind::NewlineRuns: fragments = splitNewlineRuns(codePoints, fragments); break;
        case Kind::Regex: fragments = step.regex->split(input, fragments); break;
        }
    }

    std::vector<std::string> words;
    words.reserve(fragments.size());
    std::string utf8;
    std::size_t start = 0;
    for (const std::size_t length : fragments) {
        utf8.clear();
        for (std::size_t i = start; i < start + length; ++i)
            unicode::appendUtf8(utf8, codePoints[i]);
        std::string& word = words.emplace_back();
        if (!m_byteLevel)
            word = utf8;
        else
            for (const char byte : utf8)
                word += byteLevelCharacter(static_cast<unsigned char>(byte));
        start += length;
    }
    return words;
}

}  // namespace gguf
