#include "core/tokenize/SpmEncoder.h"

#include "core/tokenize/Unicode.h"

#include <queue>

namespace gguf {

namespace {
struct Symbol {
    int prev;
    int next;
    std::size_t start;   // byte offset in the text
    std::size_t length;  // 0 once merged into its left neighbour
};

struct Candidate {
    int left;
    int right;
    float score;
    std::size_t length;
};

struct LowerPriority {
    bool operator()(const Candidate& a, const Candidate& b) const
    {
        return a.score < b.score || (a.score == b.score && a.left > b.left);
    }
};

std::int32_t byteToken(const TokenTable& table, unsigned char byte, std::int32_t unknownId)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    const char name[6] = {'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'};
    std::int32_t id = table.find(std::string_view(name, sizeof name));
    if (id == TokenTable::kNone)
        id = table.find(std::string_view(reinterpret_cast<const char*>(&byte), 1));
    return id == TokenTable::kNone ? unknownId : id;
}
}  // namespace

void encodeSentencePiece(const TokenTable& table, std::string_view text, std::int32_t unknownId, std::vector<std::int32_t>& out)
{
    std::vector<Symbol> symbols;
    symbols.reserve(text.size());
    for (std::size_t offset = 0; offset < text.size();) {
        const std::size_t length = std::min(unicode::sequenceLength(static_cast<unsigned char>(text[offset])), text.size() - offset);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, offset + length == text.size() ? -1 : index + 1, offset, length});
        offset += length;
    }

    std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority> queue;
    const auto consider = [&](int left, int right) {
        if (left == -1 || right == -1)
            return;
        const std::size_t length = symbols[left].length + symbols[right].length;
        const std::int32_t id = table.find(text.substr(symbols[left].start, length));
        if (id == TokenTable::kNone)
            return;
        queue.push({left, right, table.score(id), length});
    };
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i)
        consider(i - 1, i);

    while (!queue.empty()) {
        const Candidate best = queue.top();
        queue.pop();
        Symbol& left = symbols[best.left];
        Symbol& right = symbols[best.right];
        // Stale: one side was merged elsewhere since this pair was queued.
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

    // Every merged symbol is a token by construction; a symbol still unknown is one character
    // the vocabulary lacks, so llama.cpp's re-segmentation through recorded merges never
    // applies and its bytes are emitted directly.
    for (int i = symbols.empty() ? -1 : 0; i != -1; i = symbols[i].next) {
        const Symbol& symbol = symbols[i];
        const std::string_view piece = text.substr(symbol.start, symbol.length);
        const std::int32_t id = table.find(piece);
        if (id != TokenTable::kNone) {
            out.push_back(id);
            continue;
        }
        for (const char byte : piece)
            if (const std::int32_t byteId = byteToken(table, static_cast<unsigned char>(byte), unknownId); byteId != TokenTable::kNone)
                out.push_back(byteId);
    }
}

}  // namespace gguf
