#include "core/tokenize/CustomSplitters.h"

#include "core/tokenize/Unicode.h"

namespace gguf {

namespace {
constexpr char32_t kOutside = 0xFFFFFFFF;

// One fragment being cut into words: positions outside it read as "no character".
class FragmentCursor {
public:
    FragmentCursor(const std::vector<char32_t>& codePoints, std::size_t begin, std::size_t end, std::vector<std::size_t>& out)
        : m_codePoints(codePoints), m_begin(begin), m_end(end), m_wordStart(begin), m_out(out)
    {
    }
    std::size_t begin() const { return m_begin; }
    std::size_t end() const { return m_end; }
    char32_t at(std::size_t pos) const { return pos >= m_begin && pos < m_end ? m_codePoints[pos] : kOutside; }
    // Category bits; 0 outside the fragment (no class matches there).
    std::uint8_t categoryAt(std::size_t pos) const { return pos >= m_begin && pos < m_end ? unicode::category(m_codePoints[pos]) : 0; }
    bool whitespaceAt(std::size_t pos) const { return pos >= m_begin && pos < m_end && unicode::isWhitespace(m_codePoints[pos]); }
    bool letterAt(std::size_t pos) const { return categoryAt(pos) & unicode::Letter; }
    bool letterOrMarkAt(std::size_t pos) const { return categoryAt(pos) & (unicode::Letter | unicode::Mark); }
    bool numberAt(std::size_t pos) const { return categoryAt(pos) & unicode::Number; }
    // [^\s\p{L}\p{N}] inside the fragment.
    bool otherAt(std::size_t pos) const
    {
        const std::uint8_t c = categoryAt(pos);
        return c != 0 && !(c & (unicode::Letter | unicode::Number)) && !whitespaceAt(pos);
    }
    // [^\s\p{L}\p{M}\p{N}] inside the fragment.
    bool otherThanMarkAt(std::size_t pos) const { return otherAt(pos) && !(categoryAt(pos) & unicode::Mark); }
    // Ends the current word at `pos` (no word when empty); returns its length.
    std::size_t cut(std::size_t pos)
    {
        const std::size_t length = pos - m_wordStart;
        if (length > 0)
            m_out.push_back(length);
        m_wordStart = pos;
        return length;
    }

private:
    const std::vector<char32_t>& m_codePoints;
    std::size_t m_begin;
    std::size_t m_end;
    std::size_t m_wordStart;
    std::vector<std::size_t>& m_out;
};

// Length of the contraction ('s 't 're 've 'm 'll 'd) starting at pos, or 0.
std::size_t contractionLength(const FragmentCursor& f, std::size_t pos, bool ignoreCase)
{
    if (f.at(pos) != '\'' || pos + 1 >= f.end())
        return 0;
    const auto fold = [&](char32_t c) { return ignoreCase ? unicode::toLower(c) : c; };
    const char32_t next = fold(f.at(pos + 1));
    if (next == 's' || next == 't' || next == 'm' || next == 'd')
        return 2;
    if (pos + 2 >= f.end())
        return 0;
    const char32_t after = fold(f.at(pos + 2));
    if ((next == 'r' && after == 'e') || (next == 'v' && after == 'e') || (next == 'l' && after == 'l'))
        return 3;
    return 0;
}

void splitGpt2Fragment(FragmentCursor& f)
{
    std::size_t pos = f.begin();
    while (pos < f.end()) {
        if (const std::size_t n = contractionLength(f, pos, false)) {
            pos += f.cut(pos + n);
            continue;
        }
        // ' ?X+' for X = letters, numbers, or [^\s\p{L}\p{N}]: the optional space belongs to the run.
        const std::size_t runStart = f.at(pos) == ' ' ? pos + 1 : pos;
        if (f.letterAt(runStart) || f.numberAt(runStart) || f.otherAt(runStart)) {
            const bool letters = f.letterAt(runStart);
            const bool numbers = !letters && f.numberAt(runStart);
            pos = runStart;
            while (letters ? f.letterAt(pos) : numbers ? f.numberAt(pos) : f.otherAt(pos))
                ++pos;
            f.cut(pos);
            continue;
        }
        std::size_t spaces = 0;
        while (f.whitespaceAt(pos + spaces))
            ++spaces;
        if (spaces > 1 && f.at(pos + spaces) != kOutside) {
            // \s+(?!\S): leave the last space to prefix the next word.
            pos += spaces - 1;
            f.cut(pos);
            continue;
        }
        if (spaces > 0) {
            pos += spaces;
            f.cut(pos);
            continue;
        }
        f.cut(++pos);
    }
}

// `marksJoinLetters` (qwen35): [\p{L}\p{M}]+ for \p{L}+, and marks are not "other".
void splitLlama3Fragment(FragmentCursor& f, std::size_t digitsPerWord, bool marksJoinLetters)
{
    const auto wordAt = [&](std::size_t pos) { return marksJoinLetters ? f.letterOrMarkAt(pos) : f.letterAt(pos); };
    const auto otherAt = [&](std::size_t pos) { return marksJoinLetters ? f.otherThanMarkAt(pos) : f.otherAt(pos); };
    std::size_t pos = f.begin();
    while (pos < f.end()) {
        const char32_t c = f.at(pos);
        if (const std::size_t n = contractionLength(f, pos, true)) {
            pos += f.cut(pos + n);
            continue;
        }
        // [^\r\n\p{L}\p{N}]?\p{L}+ (qwen35: a mark may be the prefix or in the run; either way
        // the match runs to the end of the letters and marks)
        if (!(c == '\r' || c == '\n' || f.numberAt(pos)) && (wordAt(pos) || wordAt(pos + 1))) {
            ++pos;
            while (wordAt(pos))
                ++pos;
            f.cut(pos);
            continue;
        }
        // \p{N}{1,3} (qwen2: \p{N})
        if (f.numberAt(pos)) {
            std::size_t groupStart = pos;
            while (f.numberAt(pos)) {
                if (++pos - groupStart >= digitsPerWord) {
                    f.cut(pos);
                    groupStart = pos;
                }
            }
            f.cut(pos);
            continue;
        }
        //  ?[^\s\p{L}\p{N}]+[\r\n]*
        const std::size_t runStart = c == ' ' ? pos + 1 : pos;
        if (otherAt(runStart)) {
            pos = runStart;
            while (otherAt(pos))
                ++pos;
            while (f.at(pos) == '\r' || f.at(pos) == '\n')
                ++pos;
            f.cut(pos);
            continue;
        }
        std::size_t spaces = 0;
        std::size_t afterLastNewline = 0;
        while (f.whitespaceAt(pos + spaces)) {
            const char32_t s = f.at(pos + spaces);
            if (s == '\r' || s == '\n')
                afterLastNewline = pos + spaces + 1;
            ++spaces;
        }
        if (afterLastNewline > 0) {  // \s*[\r\n]+
            pos = afterLastNewline;
            f.cut(pos);
            continue;
        }
        if (spaces > 1 && f.at(pos + spaces) != kOutside) {  // \s+(?!\S)
            pos += spaces - 1;
            f.cut(pos);
            continue;
        }
        if (spaces > 0) {  // \s+
            pos += spaces;
            f.cut(pos);
            continue;
        }
        f.cut(++pos);
    }
}

void splitNewlineRunsFragment(FragmentCursor& f)
{
    for (std::size_t pos = f.begin(); pos < f.end();) {
        const bool newline = f.at(pos) == '\n';
        while (pos < f.end() && (f.at(pos) == '\n') == newline)
            ++pos;
        f.cut(pos);
    }
}

void splitTrailingWhitespaceFragment(FragmentCursor& f)
{
    std::size_t start = f.end();
    while (start > f.begin() && f.whitespaceAt(start - 1))
        --start;
    f.cut(start);
    f.cut(f.end());
}

// A cut wherever the ASCII digits from there to the end of their run are a multiple of three.
void splitDigitTriplesFragment(FragmentCursor& f)
{
    const auto digitAt = [&](std::size_t pos) { return f.at(pos) >= '0' && f.at(pos) <= '9'; };
    for (std::size_t pos = f.begin(); pos < f.end();) {
        if (!digitAt(pos)) {
            ++pos;
            continue;
        }
        const std::size_t runStart = pos;
        while (digitAt(pos))
            ++pos;
        for (std::size_t cut = runStart + (pos - runStart) % 3; cut < pos; cut += 3)
            f.cut(cut);
    }
    f.cut(f.end());
}

template <typename SplitFragment>
std::vector<std::size_t> splitEach(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments, SplitFragment split)
{
    std::vector<std::size_t> out;
    out.reserve(fragments.size());
    std::size_t start = 0;
    for (const std::size_t length : fragments) {
        FragmentCursor cursor(codePoints, start, start + length, out);
        split(cursor);
        start += length;
    }
    return out;
}
}  // namespace

std::vector<std::size_t> splitGpt2(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments)
{
    return splitEach(codePoints, fragments, splitGpt2Fragment);
}

std::vector<std::size_t> splitLlama3(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments)
{
    return splitEach(codePoints, fragments, [](FragmentCursor& f) { splitLlama3Fragment(f, 3, false); });
}

std::vector<std::size_t> splitQwen2(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments)
{
    return splitEach(codePoints, fragments, [](FragmentCursor& f) { splitLlama3Fragment(f, 1, false); });
}

std::vector<std::size_t> splitQwen35(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments)
{
    return splitEach(codePoints, fragments, [](FragmentCursor& f) { splitLlama3Fragment(f, 1, true); });
}

std::vector<std::size_t> splitNewlineRuns(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments)
{
    return splitEach(codePoints, fragments, splitNewlineRunsFragment);
}

std::vector<std::size_t> splitTrailingWhitespace(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments)
{
    return splitEach(codePoints, fragments, splitTrailingWhitespaceFragment);
}

std::vector<std::size_t> splitDigitTriples(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments)
{
    return splitEach(codePoints, fragments, splitDigitTriplesFragment);
}

}  // namespace gguf
