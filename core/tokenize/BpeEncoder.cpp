#include "tokenize/BpeEncoder.h"

#include "tokenize/Unicode.h"

#include <algorithm>
#include <queue>

namespace gguf {

namespace {
struct Symbol {
    int prev;
    int next;
    std::size_t start;
    std::size_t length;  // 0 once merged into its left neighbour
};

struct Candidate {
    int left;
    int right;
    int rank;
    std::size_t length;
};

struct LaterMerge {
    bool operator()(const Candidate& a, const Candidate& b) const
    {
        return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
    }
};
}  // namespace

void encodeBpeWord(const TokenTable& table, std::string_view word, bool ignoreMerges, std::vector<std::int32_t>& out)
{
    if (word.empty())
        return;
    if (ignoreMerges) {
        if (const std::int32_t id = table.find(word); id != TokenTable::kNone) {
            out.push_back(id);
            return;
        }
    }
    std::vector<Symbol> symbols;
    symbols.reserve(word.size());
    for (std::size_t offset = 0; offset < word.size();) {
        const std::size_t length = std::min(unicode::sequenceLength(static_cast<unsigned char>(word[offset])), word.size() - offset);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, offset + length == word.size() ? -1 : index + 1, offset, length});
        offset += length;
    }

    std::priority_queue<Candidate, std::vector<Candidate>, LaterMerge> queue;
    const auto consider = [&](int left, int right) {
        if (left == -1 || right == -1)
            return;
        const Symbol& a = symbols[left];
        const Symbol& b = symbols[right];
        const int rank = table.mergeRank(word.substr(a.start, a.length), word.substr(b.start, b.length));
        if (rank >= 0)
            queue.push({left, right, rank, a.length + b.length});
    };
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i)
        consider(i - 1, i);

    while (!queue.empty()) {
        const Candidate best = queue.top();
        queue.pop();
        Symbol& left = symbols[best.left];
        Symbol& right = symbols[best.right];
        // Lengths only grow (or drop to 0), so an unchanged sum means an unchanged pair: the
        // same test as llama.cpp's comparison of the concatenated text.
        if (left.length == 0 || right.length == 0 || left.length + right.length != best.length)
            continue;
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0)
            symbols[right.next].prev = best.left;
        consider(left.prev, best.left);
        consider(best.left, left.next);
    }

    for (int i = 0; i != -1; i = symbols[i].next) {
        const std::string_view piece = word.substr(symbols[i].start, symbols[i].length);
        if (const std::int32_t id = table.find(piece); id != TokenTable::kNone) {
            out.push_back(id);
            continue;
        }
        // llama.cpp looks up each byte of the (already byte-level encoded) piece on its own.
        for (std::size_t b = 0; b < piece.size(); ++b)
            if (const std::int32_t id = table.find(piece.substr(b, 1)); id != TokenTable::kNone)
                out.push_back(id);
    }
}

}  // namespace gguf
