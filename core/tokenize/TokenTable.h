#pragma once
// The vocabulary as the encoders need it: token text to id, each token's score and llama.cpp
// attributes, and (byte-level BPE) the merge ranks. Owns copies of the strings, so a Tokenizer
// outlives the model it was read from.

#include "core/base/Result.h"
#include "core/gguf/Model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gguf {

// llama_token_attr bits.
enum TokenAttribute : std::uint32_t {
    AttrUnknown = 1u << 0,
    AttrUnused = 1u << 1,
    AttrNormal = 1u << 2,
    AttrControl = 1u << 3,
    AttrUserDefined = 1u << 4,
    AttrByte = 1u << 5,
    AttrNormalized = 1u << 6,
    AttrLstrip = 1u << 7,
    AttrRstrip = 1u << 8,
};

class TokenTable {
public:
    static constexpr std::int32_t kNone = -1;

    // Reads tokenizer.ggml.tokens (through Vocabulary), .scores, .token_type and, when
    // `withMerges`, .merges. Fails like llama.cpp's loader: a duplicate token, a score or type
    // array shorter than the token list, a merges key that is not an array of strings.
    static Result<TokenTable> read(const Model& model, bool withMerges);

    std::size_t size() const { return m_scores.size(); }
    std::string_view text(std::int32_t id) const;
    float score(std::int32_t id) const { return m_scores[static_cast<std::size_t>(id)]; }
    std::uint32_t attributes(std::int32_t id) const { return m_attributes[static_cast<std::size_t>(id)]; }
    void setAttributes(std::int32_t id, std::uint32_t attributes) { m_attributes[static_cast<std::size_t>(id)] = attributes; }
    std::int32_t find(std::string_view text) const;
    std::size_t maxTokenLength() const { return m_maxTokenLength; }
    bool hasMerges() const { return !m_ranks.empty(); }
    // Rank of the merge "left right", or -1.
    int mergeRank(std::string_view left, std::string_view right) const;
    // Calls visit(left, right) for every merge, in no particular order.
    template <typename Visit>
    void visitMerges(Visit visit) const
    {
        for (const auto& [pair, rank] : m_ranks)
            visit(pair.first, pair.second);
    }

private:
    struct PairHash {
        std::size_t operator()(const std::pair<std::string_view, std::string_view>& pair) const noexcept;
    };

    // Shared so the views into them survive moves (a short std::string moves by copying).
    std::shared_ptr<std::string> m_textArena = std::make_shared<std::string>();
    std::vector<std::size_t> m_offsets;  // token i is m_textArena[m_offsets[i], m_offsets[i + 1])
    std::vector<float> m_scores;
    std::vector<std::uint32_t> m_attributes;
    std::unordered_map<std::string_view, std::int32_t> m_ids;
    std::size_t m_maxTokenLength = 0;
    std::shared_ptr<std::string> m_mergeArena = std::make_shared<std::string>();
    std::unordered_map<std::pair<std::string_view, std::string_view>, int, PairHash> m_ranks;
};

}  // namespace gguf
