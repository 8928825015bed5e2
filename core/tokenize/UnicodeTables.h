#pragma once
// The generated Unicode tables (UnicodeTablesData.cpp, written by tools/gen-unicode-tables.py).
// Read them through tokenize/Unicode.h.

#include <cstddef>
#include <cstdint>

namespace gguf::unicode_tables {

struct CategoryRange {
    char32_t first;       // the range runs to the next entry's first - 1
    std::uint8_t flags;   // unicode::Category bits
};
struct CodePointPair {
    char32_t from;
    char32_t to;
};
struct NfdRun {
    char32_t first;
    char32_t last;
    char32_t target;  // the first code point of the canonical decomposition of every member
};

extern const CategoryRange kCategoryRanges[];
extern const std::size_t kCategoryRangeCount;
extern const char32_t kWhitespace[];
extern const std::size_t kWhitespaceCount;
extern const CodePointPair kLowercase[];
extern const std::size_t kLowercaseCount;
extern const NfdRun kNfdRuns[];
extern const std::size_t kNfdRunCount;

}  // namespace gguf::unicode_tables
