#include "core/tokenize/BpeWordEncoder.h"

namespace gguf {

namespace {
constexpr std::string_view kSpaceMark = "\xE2\x96\x81";
constexpr std::size_t kLongestCachedWord = 64;
constexpr std::size_t kMostCachedWords = 200000;

// The UTF-8 character that ends text[0, at) (at most three continuation bytes are taken).
std::string_view lastCharacterBefore(std::string_view text, std::size_t at)
{
    std::size_t start = at;
    while (start > 0 && (static_cast<unsigned char>(text[start - 1]) & 0xC0) == 0x80 && at - start < 3)
        --start;
    if (start > 0)
        --start;
    return text.substr(start, at - start);
}
}  // namespace

SpaceMarkJoins SpaceMarkJoins::fromMerges(const TokenTable& table)
{
    SpaceMarkJoins joins;
    table.visitMerges([&](std::string_view left, std::string_view right) {
        if (right.starts_with(kSpaceMark) && !left.empty() && !left.ends_with(kSpaceMark))
            joins.m_characters.emplace(lastCharacterBefore(left, left.size()));
    });
    return joins;
}

bool SpaceMarkJoins::mayJoin(std::string_view text, std::size_t at) const
{
    const std::string_view before = lastCharacterBefore(text, at);
    return before == kSpaceMark || m_characters.contains(std::string(before));
}

void BpeWordEncoder::encode(std::string_view word, std::vector<std::int32_t>& out)
{
    const bool cacheable = word.size() <= kLongestCachedWord && m_seen.size() < kMostCachedWords;
    std::string key;
    if (cacheable) {
        key = word;
        if (const auto it = m_seen.find(key); it != m_seen.end()) {
            const auto [first, count] = it->second;
            for (std::size_t i = 0; i < count; ++i)
                out.push_back(out[first + i]);
            return;
        }
    }
    const std::size_t first = out.size();
    encodeBpeWord(m_table, word, m_ignoreMerges, m_fallback, out);
    if (cacheable)
        m_seen.emplace(std::move(key), std::make_pair(first, out.size() - first));
}

void BpeWordEncoder::encodeLine(std::string_view line, const SpaceMarkJoins& joins, std::vector<std::int32_t>& out)
{
    std::size_t pieceStart = 0;
    for (std::size_t at = line.find(kSpaceMark, 1); at != std::string_view::npos; at = line.find(kSpaceMark, at + 1)) {
        if (joins.mayJoin(line, at))
            continue;
        encode(line.substr(pieceStart, at - pieceStart), out);
        pieceStart = at;
    }
    encode(line.substr(pieceStart), out);
}

}  // namespace gguf
