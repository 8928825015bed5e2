#pragma once
// A line diff of two texts (chat templates, long descriptions), as unified-diff lines: the
// changed lines with `context` unchanged lines around each change, "@@" lines between hunks.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

struct TextDiffLine {
    enum class Op : char { Same = ' ', Removed = '-', Added = '+', Gap = '@' };
    Op op = Op::Same;
    std::string text;  // a line without its newline; for Gap: "@@ -a,n +b,m @@"
};

// Lines of `a` and `b` split at '\n'. The common start and end are matched first; the rest is
// matched by a longest common subsequence when it is at most `maxCells` line pairs, else shown
// as removed then added (bounded time and memory whatever the texts).
std::vector<TextDiffLine> diffLines(std::string_view a, std::string_view b, std::size_t context = 2,
                                    std::size_t maxCells = std::size_t{1} << 22);

}  // namespace gguf
