#include "core/tokenize/RegexSplit.h"

#include "core/tokenize/Unicode.h"

#include <algorithm>
#include <array>
#include <locale>
#include <regex>
#include <string_view>

namespace gguf {

namespace {
struct CategoryName {
    std::string_view pattern;
    std::uint8_t category;
};
// \p{Lu} and friends collapse to letters, as in llama.cpp.
constexpr std::array<CategoryName, 10> kCategoryNames = {{
    {"\\p{N}", unicode::Number}, {"\\p{L}", unicode::Letter}, {"\\p{P}", unicode::Punctuation},
    {"\\p{M}", unicode::Mark}, {"\\p{S}", unicode::Symbol}, {"\\p{Lu}", unicode::Letter},
    {"\\p{Ll}", unicode::Letter}, {"\\p{Lt}", unicode::Letter}, {"\\p{Lm}", unicode::Letter},
    {"\\p{Lo}", unicode::Letter},
}};

char collapsedByte(std::uint8_t category)
{
    switch (category) {
    case unicode::Number: return static_cast<char>(0xD1);
    case unicode::Letter: return static_cast<char>(0xD2);
    case unicode::Punctuation: return static_cast<char>(0xD3);
    case unicode::Mark: return static_cast<char>(0xD4);
    case unicode::Symbol: return static_cast<char>(0xD5);
    default: return static_cast<char>(0xD0);
    }
}

// The ASCII members of each category, as llama.cpp lists them (its symbol list lacks '~').
std::string_view asciiMembers(std::uint8_t category)
{
    switch (category) {
    case unicode::Number: return "0-9";
    case unicode::Letter: return "A-Za-z";
    case unicode::Punctuation: return "!-#%-*,-/:-;?-@\\[-\\]_\\{\\}";
    case unicode::Symbol: return "\\$\\+<->^`\\|";
    default: return "";
    }
}

std::string collapseExpression(const std::string& expression)
{
    std::string out;
    bool insideClass = false;
    for (std::size_t i = 0; i < expression.size(); ++i) {
        const char c = expression[i];
        if (c == '[' && (i == 0 || expression[i - 1] != '\\')) {
            out += '[';
            insideClass = true;
            continue;
        }
        if (insideClass && c == ']' && expression[i - 1] != '\\') {
            out += ']';
            insideClass = false;
            continue;
        }
        if (c == '\\' && i + 3 < expression.size() && expression[i + 1] == 'p' && expression[i + 2] == '{') {
            const std::size_t close = expression.find('}', i + 3);
            if (close != std::string::npos && close <= i + 10) {
                const std::string_view name(expression.data() + i, close - i + 1);
                bool replaced = false;
                for (const CategoryName& category : kCategoryNames) {
                    if (category.pattern != name)
                        continue;
                    if (!insideClass)
                        out += '[';
                    out += collapsedByte(category.category);
                    out += asciiMembers(category.category);
                    if (!insideClass)
                        out += ']';
                    replaced = true;
                    break;
                }
                if (replaced) {
                    i = close;
                    continue;
                }
            }
        }
        out += c;
    }
    return out;
}

// std::regex matches by recursion, about one stack frame per character a match spans: a run
// of ~34,000 equal characters overflows an 8 MiB stack (llama.cpp crashes there). So the engine
// only ever sees a window of `window` code points. A match that ends within a margin (an eighth
// of the window) of the window's cut may continue past it (a greedy run, a lookahead, $) and is
// looked for again in a window starting where the previous accepted match ended; only a match
// that still reaches the cut from the very start of its own window is taken as the window cut
// it. So the words are the engine's on the whole text whenever no match or run of one class
// reaches the margin across a cut, and no match is longer than the window less the margin.
template <typename Char>
void splitFragment(const std::basic_regex<Char>& engine, const Char* text, std::size_t length, std::size_t window, std::vector<std::size_t>& out)
{
    const std::size_t margin = window / 8;
    std::size_t pos = 0;          // where the next window starts
    std::size_t matchedUpTo = 0;  // end of the last accepted match
    while (pos < length) {
        const std::size_t windowEnd = std::min(length, pos + window);
        const bool lastWindow = windowEnd == length;
        auto flags = std::regex_constants::match_default;
        if (pos > 0)
            flags |= std::regex_constants::match_prev_avail;
        if (!lastWindow)
            flags |= std::regex_constants::match_not_eol;
        const std::size_t windowStart = pos;
        bool accepted = false;
        bool restart = false;
        for (std::regex_iterator<const Char*> it(text + windowStart, text + windowEnd, engine, flags), end; it != end; ++it) {
            const std::size_t start = windowStart + static_cast<std::size_t>(it->position());
            const std::size_t stop = start + static_cast<std::size_t>(it->length());
            if (!lastWindow && stop + margin > windowEnd && (accepted || start > windowStart)) {
                // Look again from the end of what is settled (or from this match's start).
                pos = accepted ? matchedUpTo : start;
                restart = true;
                break;
            }
            if (start > matchedUpTo)
                out.push_back(start - matchedUpTo);
            out.push_back(stop - start);
            matchedUpTo = stop;
            accepted = accepted || stop > windowStart;
            if (!lastWindow && stop + margin > windowEnd) {
                // A match from the window's start to its cut: cut there.
                pos = std::max(stop, windowStart + 1);
                restart = true;
                break;
            }
        }
        if (!restart)
            pos = lastWindow ? length : std::max(matchedUpTo, windowEnd - margin);
    }
    if (matchedUpTo < length)
        out.push_back(length - matchedUpTo);
}

template <typename Char>
std::vector<std::size_t> splitWith(const std::basic_regex<Char>& engine, const std::basic_string<Char>& text, const std::vector<std::size_t>& fragments,
                                   std::size_t window)
{
    std::vector<std::size_t> out;
    out.reserve(fragments.size());
    std::size_t start = 0;
    for (const std::size_t length : fragments) {
        splitFragment(engine, text.data() + start, length, window, out);
        start += length;
    }
    return out;
}
}  // namespace

struct RegexSplit::Engines {
    std::regex narrow;
    std::wregex wide;
};

RegexSplit::~RegexSplit() = default;

bool RegexSplit::namesCategory(const std::string& expression)
{
    for (const CategoryName& category : kCategoryNames)
        if (expression.find(category.pattern) != std::string::npos)
            return true;
    return false;
}

Result<std::shared_ptr<const RegexSplit>> RegexSplit::compile(const std::string& expression)
{
    std::shared_ptr<RegexSplit> split(new RegexSplit());
    split->m_collapsed = namesCategory(expression);
    split->m_engines = std::make_unique<Engines>();
    constexpr auto flags = std::regex_constants::ECMAScript | std::regex_constants::optimize | std::regex_constants::nosubs;
    try {
        if (split->m_collapsed) {
            for (const char32_t c : unicode::decodeUtf8(expression))
                if (c >= 0x80)
                    return Error{"pre-tokenizer expression mixes Unicode categories with non-ASCII characters: " + expression, Error::kNoOffset, {}};
            split->m_engines->narrow.imbue(std::locale::classic());
            split->m_engines->narrow.assign(collapseExpression(expression), flags);
        } else {
            const std::vector<char32_t> codePoints = unicode::decodeUtf8(expression);
            split->m_engines->wide.imbue(std::locale::classic());
            split->m_engines->wide.assign(std::wstring(codePoints.begin(), codePoints.end()), flags);
        }
    } catch (const std::regex_error& error) {
        return Error{"pre-tokenizer expression rejected (" + std::string(error.what()) + "): " + expression, Error::kNoOffset, {}};
    }
    return std::shared_ptr<const RegexSplit>(std::move(split));
}

std::vector<std::size_t> RegexSplit::split(const SplitInput& input, const std::vector<std::size_t>& fragments, std::size_t window) const
{
    window = std::max<std::size_t>(window, 16);
    return m_collapsed ? splitWith(m_engines->narrow, input.collapsed, fragments, window) : splitWith(m_engines->wide, input.wide, fragments, window);
}

std::string RegexSplit::collapseText(const std::vector<char32_t>& codePoints)
{
    std::string out(codePoints.size(), '\0');
    for (std::size_t i = 0; i < codePoints.size(); ++i) {
        const char32_t c = codePoints[i];
        if (c < 0x80)
            out[i] = static_cast<char>(c);
        else if (unicode::isWhitespace(c))
            out[i] = '\v';
        else
            out[i] = collapsedByte(unicode::category(c));
    }
    return out;
}

std::wstring RegexSplit::wideText(const std::vector<char32_t>& codePoints)
{
    static_assert(sizeof(wchar_t) == 4, "code points are matched as wchar_t");
    std::wstring out(codePoints.begin(), codePoints.end());
    for (std::size_t i = 0; i < codePoints.size(); ++i)
        if (codePoints[i] >= 0x80 && unicode::isWhitespace(codePoints[i]))
            out[i] = L'\v';
    return out;
}

}  // namespace gguf
