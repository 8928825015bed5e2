#include "core/diff/TextDiff.h"

#include <algorithm>
#include <cstdint>

namespace gguf {

namespace {
std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

struct Edit {
    TextDiffLine::Op op;
    std::size_t aLine;  // index in a (Same, Removed)
    std::size_t bLine;  // index in b (Same, Added)
};
}  // namespace

std::vector<TextDiffLine> diffLines(std::string_view textA, std::string_view textB, std::size_t context, std::size_t maxCells)
{
    const auto a = splitLines(textA);
    const auto b = splitLines(textB);
    std::size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    const std::size_t n = a.size() - prefix - suffix;
    const std::size_t m = b.size() - prefix - suffix;

    std::vector<Edit> edits;
    for (std::size_t i = 0; i < prefix; ++i)
        edits.push_back({TextDiffLine::Op::Same, i, i});
    if (n > 0 && m > 0 && n * m <= maxCells) {
        // lcs[i][j]: common subsequence length of a[prefix+i..] and b[prefix+j..].
        std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
        const auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
        for (std::size_t i = n; i-- > 0;)
            for (std::size_t j = m; j-- > 0;)
                at(i, j) = a[prefix + i] == b[prefix + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
                edits.push_back({TextDiffLine::Op::Same, prefix + i++, prefix + j++});
            } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                edits.push_back({TextDiffLine::Op::Removed, prefix + i++, prefix + j});  // removals first, as diff -u
            } else {
                edits.push_back({TextDiffLine::Op::Added, prefix + i, prefix + j++});
            }
        }
    } else {
        for (std::size_t i = 0; i < n; ++i)
            edits.push_back({TextDiffLine::Op::Removed, prefix + i, prefix});
        for (std::size_t j = 0; j < m; ++j)
            edits.push_back({TextDiffLine::Op::Added, prefix + n, prefix + j});
    }
    for (std::size_t k = 0; k < suffix; ++k)
        edits.push_back({TextDiffLine::Op::Same, prefix + n + k, prefix + m + k});

    // Keep the changes and `context` lines around them, with a hunk header before each run.
    std::vector<bool> keep(edits.size(), false);
    for (std::size_t e = 0; e < edits.size(); ++e) {
        if (edits[e].op == TextDiffLine::Op::Same)
            continue;
        const std::size_t from = e >= context ? e - context : 0;
        const std::size_t to = std::min(edits.size(), e + context + 1);
        std::fill(keep.begin() + static_cast<std::ptrdiff_t>(from), keep.begin() + static_cast<std::ptrdiff_t>(to), true);
    }
    std::vector<TextDiffLine> out;
    for (std::size_t e = 0; e < edits.size(); ++e) {
        if (!keep[e])
            continue;
        if (e == 0 || !keep[e - 1]) {
            std::size_t aCount = 0;
            std::size_t bCount = 0;
            for (std::size_t f = e; f < edits.size() && keep[f]; ++f) {
                aCount += edits[f].op != TextDiffLine::Op::Added;
                bCount += edits[f].op != TextDiffLine::Op::Removed;
            }
            out.push_back({TextDiffLine::Op::Gap, "@@ -" + std::to_string(edits[e].aLine + 1) + "," + std::to_string(aCount) + " +"
                                                      + std::to_string(edits[e].bLine + 1) + "," + std::to_string(bCount) + " @@"});
        }
        const Edit& edit = edits[e];
        const std::string_view line = edit.op == TextDiffLine::Op::Added ? b[edit.bLine] : a[edit.aLine];
        out.push_back({edit.op, std::string(line)});
    }
    return out;
}

}  // namespace gguf
