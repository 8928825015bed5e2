#pragma once
// The words of one text through encodeBpeWord. Running text repeats its words, so each distinct
// short word is merged once per text and its ids copied after that. SentencePiece-style BPE
// (gemma4) gets whole lines as words; a line is merged in pieces cut before each "▁" that no
// merge can join to the character before it, which gives the line's ids (see SpaceMarkJoins).

#include "core/tokenize/BpeEncoder.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gguf {

// The characters c for which some merge "A B" has A ending in c (not "▁") and B starting with
// "▁". Only after one of these (or another "▁") can a merge reach across the start of a "▁":
// by induction no symbol ever holds "c▁" for any other c.
class SpaceMarkJoins {
public:
    static SpaceMarkJoins fromMerges(const TokenTable& table);
    // True when a merge may join the "▁" at `at` to what precedes it in `text`.
    bool mayJoin(std::string_view text, std::size_t at) const;

private:
    std::unordered_set<std::string> m_characters;
};

class BpeWordEncoder {
public:
    BpeWordEncoder(const TokenTable& table, bool ignoreMerges, ByteFallback fallback) : m_table(table), m_ignoreMerges(ignoreMerges), m_fallback(fallback) {}

    void encode(std::string_view word, std::vector<std::int32_t>& out);
    void encodeLine(std::string_view line, const SpaceMarkJoins& joins, std::vector<std::int32_t>& out);

private:
    const TokenTable& m_table;
    bool m_ignoreMerges;
    ByteFallback m_fallback;
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> m_seen;  // word -> its ids in the output
};

}  // namespace gguf
