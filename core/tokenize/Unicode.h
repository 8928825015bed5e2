#pragma once
// Code point facts and UTF-8 handling exactly as llama.cpp's tokenizers see them (src/unicode.cpp):
// the same categories, the same lowercase and NFD tables, and the same treatment of invalid UTF-8
// (each byte that does not start a well-formed sequence becomes one U+FFFD), because a token id
// depends on all of it.

#include "core/base/Utf8.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::unicode {

// llama.cpp's unicode_cpt_flags category bits (regex \p{...} classes).
enum Category : std::uint8_t {
    Undefined = 0x01,    // unassigned (Cn), and anything past U+10FFFF
    Number = 0x02,       // \p{N}
    Letter = 0x04,       // \p{L}
    Separator = 0x08,    // \p{Z}
    Mark = 0x10,         // \p{M}
    Punctuation = 0x20,  // \p{P}
    Symbol = 0x40,       // \p{S}
    Control = 0x80,      // \p{C} except Cn
};

constexpr char32_t kReplacementCharacter = 0xFFFD;

std::uint8_t category(char32_t codePoint);
bool isWhitespace(char32_t codePoint);  // the White_Space property
char32_t toLower(char32_t codePoint);   // simple lowercase mapping, or the code point itself
char32_t nfdFirst(char32_t codePoint);  // first code point of its NFD, or the code point itself

// Length of the UTF-8 sequence a lead byte announces, by its top four bits (1 for a stray
// continuation byte), as llama.cpp's unicode_len_utf8.
inline std::size_t sequenceLength(unsigned char lead)
{
    static constexpr std::uint8_t kLengths[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return kLengths[lead >> 4];
}

// Code points of `text`; an ill-formed sequence yields U+FFFD and resumes one byte later.
std::vector<char32_t> decodeUtf8(std::string_view text);
// Appends the UTF-8 form of `codePoint`; past U+10FFFF (which decodeUtf8 can produce from
// F5..F7 lead bytes, and llama.cpp fails on) it appends U+FFFD.
using gguf::appendUtf8;

}  // namespace gguf::unicode
