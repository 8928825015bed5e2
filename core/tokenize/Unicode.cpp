#include "core/tokenize/Unicode.h"

#include "core/tokenize/UnicodeTables.h"

#include <algorithm>
#include <array>
#include <memory>

namespace gguf::unicode {

namespace {
constexpr char32_t kCodePointCount = 0x110000;

// One byte per code point (1.1 MB, built on first use): a category lookup is on the inner loop
// of every pre-tokenizer.
const std::uint8_t* categoryTable()
{
    static const std::unique_ptr<std::uint8_t[]> table = [] {
        auto bytes = std::make_unique<std::uint8_t[]>(kCodePointCount);
        using unicode_tables::kCategoryRanges;
        for (std::size_t i = 0; i < unicode_tables::kCategoryRangeCount; ++i) {
            const char32_t end = i + 1 < unicode_tables::kCategoryRangeCount ? kCategoryRanges[i + 1].first : kCodePointCount;
            std::fill(bytes.get() + kCategoryRanges[i].first, bytes.get() + end, kCategoryRanges[i].flags);
        }
        return bytes;
    }();
    return table.get();
}
}  // namespace

std::uint8_t category(char32_t codePoint)
{
    return codePoint < kCodePointCount ? categoryTable()[codePoint] : static_cast<std::uint8_t>(Undefined);
}

bool isWhitespace(char32_t codePoint)
{
    if (codePoint < 0x80)
        return codePoint == ' ' || (codePoint >= 0x09 && codePoint <= 0x0D);
    const char32_t* end = unicode_tables::kWhitespace + unicode_tables::kWhitespaceCount;
    return std::binary_search(unicode_tables::kWhitespace, end, codePoint);
}

char32_t toLower(char32_t codePoint)
{
    const auto* begin = unicode_tables::kLowercase;
    const auto* end = begin + unicode_tables::kLowercaseCount;
    const auto* it = std::lower_bound(begin, end, codePoint, [](const unicode_tables::CodePointPair& pair, char32_t value) { return pair.from < value; });
    return it != end && it->from == codePoint ? it->to : codePoint;
}

char32_t nfdFirst(char32_t codePoint)
{
    const auto* begin = unicode_tables::kNfdRuns;
    const auto* end = begin + unicode_tables::kNfdRunCount;
    const auto* it = std::upper_bound(begin, end, codePoint, [](char32_t value, const unicode_tables::NfdRun& run) { return value < run.first; });
    if (it == begin)
        return codePoint;
    --it;
    return codePoint <= it->last ? it->target : codePoint;
}

std::vector<char32_t> decodeUtf8(std::string_view text)
{
    std::vector<char32_t> out;
    out.reserve(text.size());
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const auto continuation = [&](std::size_t i) { return i < text.size() && (byte(i) & 0xC0) == 0x80; };
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char lead = byte(i);
        // The checks llama.cpp makes, no more: overlong forms and surrogates pass, as there.
        if (lead < 0x80) {
            out.push_back(lead);
            i += 1;
        } else if ((lead & 0x40) == 0) {
            out.push_back(kReplacementCharacter);
            i += 1;
        } else if ((lead & 0x20) == 0 && continuation(i + 1)) {
            out.push_back(static_cast<char32_t>((lead & 0x1F) << 6 | (byte(i + 1) & 0x3F)));
            i += 2;
        } else if ((lead & 0x20) == 0) {
            out.push_back(kReplacementCharacter);
            i += 1;
        } else if ((lead & 0x10) == 0 && continuation(i + 1) && continuation(i + 2)) {
            out.push_back(static_cast<char32_t>((lead & 0x0F) << 12 | (byte(i + 1) & 0x3F) << 6 | (byte(i + 2) & 0x3F)));
            i += 3;
        } else if ((lead & 0x10) == 0) {
            out.push_back(kReplacementCharacter);
            i += 1;
        } else if ((lead & 0x08) == 0 && continuation(i + 1) && continuation(i + 2) && continuation(i + 3)) {
            out.push_back(static_cast<char32_t>((lead & 0x07) << 18 | (byte(i + 1) & 0x3F) << 12 | (byte(i + 2) & 0x3F) << 6 | (byte(i + 3) & 0x3F)));
            i += 4;
        } else {
            out.push_back(kReplacementCharacter);
            i += 1;
        }
    }
    return out;
}

}  // namespace gguf::unicode
