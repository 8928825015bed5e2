#include "core/tokenize/BpeEncoder.h"

#include "core/tokenize/Unicode.h"

#include <algorithm>
#include <queue>

namespace gguf {

namespace {
// 32-bit fields: a word is cut from a text of at most 4 GiB (see encodeBpeWord), and a long
// word's cost is these two arrays.
constexpr std::uint32_t kNoSymbol = 0xFFFFFFFF;

struct Symbol {
    std::uint32_t prev;
    std::uint32_t next;
    std::uint32_t start;
    std::uint32_t length;  // 0 once merged into its left neighbour
};

struct Candidate {
    std::uint32_t left;
    std::uint32_t right;
    std::int32_t rank;
    std::uint32_t length;
};

struct LaterMerge {
    bool operator()(const Candidate& a, const Candidate& b) const
    {
        return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
    }
};
}  // namespace

std::int32_t hexByteToken(const TokenTable& table, unsigned char byte)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    const char name[6] = {'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'};
    return table.find(std::string_view(name, sizeof name));
}

void encodeBpeWord(const TokenTable& table, std::string_view word, bool ignoreMerges, ByteFallback fallback, std::vector<std::int32_t>& out)
{
    if (word.empty())
        return;
    if (word.size() >= kNoSymbol) {
        // Beyond what 32-bit offsets hold (no text reader here accepts so much): halves.
        const std::size_t half = word.size() / 2;
        encodeBpeWord(table, word.substr(0, half), ignoreMerges, fallback, out);
        encodeBpeWord(table, word.substr(half), ignoreMerges, fallback, out);
        return;
    }
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
        const auto index = static_cast<std::uint32_t>(symbols.size());
        symbols.push_back({index - 1, offset + length == word.size() ? kNoSymbol : index + 1, static_cast<std::uint32_t>(offset),
                           static_cast<std::uint32_t>(length)});
        offset += length;
    }

    // Each merge pops one candidate and pushes at most two: the queue never holds more than
    // twice the symbols, and starts with room for them once.
    std::vector<Candidate> storage;
    storage.reserve(symbols.size());
    std::priority_queue<Candidate, std::vector<Candidate>, LaterMerge> queue(LaterMerge(), std::move(storage));
    const auto consider = [&](std::uint32_t left, std::uint32_t right) {
        if (left == kNoSymbol || right == kNoSymbol)
            return;
        const Symbol& a = symbols[left];
        const Symbol& b = symbols[right];
        const int rank = table.mergeRank(word.substr(a.start, a.length), word.substr(b.start, b.length));
        if (rank >= 0)
            queue.push({left, right, rank, a.length + b.length});
    };
    for (std::uint32_t i = 1; i < symbols.size(); ++i)
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
        if (right.next != kNoSymbol)
            symbols[right.next].prev = best.left;
        consider(left.prev, best.left);
        consider(best.left, left.next);
    }

    for (std::uint32_t i = 0; i != kNoSymbol; i = symbols[i].next) {
        const std::string_view piece = word.substr(symbols[i].start, symbols[i].length);
        if (const std::int32_t id = table.find(piece); id != TokenTable::kNone) {
            out.push_back(id);
            continue;
        }
        // llama.cpp looks up each byte of the piece on its own: the byte as text (the piece is
        // already byte-level encoded) or as its <0xNN> token.
        for (std::size_t b = 0; b < piece.size(); ++b) {
            const std::int32_t id = fallback == ByteFallback::HexTokens ? hexByteToken(table, static_cast<unsigned char>(piece[b]))
                                                                        : table.find(piece.substr(b, 1));
            if (id != TokenTable::kNone)
                out.push_back(id);
        }
    }
}

}  // namespace gguf
