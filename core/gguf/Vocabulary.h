#pragma once
// A model's tokenizer vocabulary (`tokenizer.ggml.tokens` with its scores and token types) with
// random access by token id. Tokens stay in the mapped file: the only thing built is the offset
// of each token string (8 bytes a token, ~2 MB for 256k tokens), because reaching token i of a
// string array otherwise means walking the i tokens before it. Immutable once built, so worker
// threads can search a shared_ptr<const Vocabulary> while the GUI reads it.

#include "core/gguf/Model.h"
#include "core/base/Result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

// llama.cpp's llama_token_type numbers as stored in `tokenizer.ggml.token_type`.
enum class TokenType : std::int32_t { Undefined = 0, Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

// "normal", "unknown", "control", "user-defined", "unused", "byte", "undefined", or "type N".
std::string tokenTypeName(std::int64_t type);

// A token as people read it: escapeForDisplay (control characters, backslash, invalid bytes) plus
// the invisible format characters (zero-width space and joiners, bidi controls, BOM, soft hyphen,
// C1 controls) as `\u{200b}`. U+2581 '▁', Ġ and byte tokens like `<0x0A>` stay as they are.
std::string tokenDisplayText(std::string_view text);

// One `tokenizer.ggml.*_token_id` key that the file sets.
struct SpecialToken {
    std::string role;  // "bos", "eos", "eot", "eom", "unk", "pad", "sep", "cls", "mask"
    std::string key;   // the metadata key
    std::int64_t id = 0;  // as stored; some converters write -1 for "none"
};

class Vocabulary {
public:
    static constexpr std::string_view kTokensKey = "tokenizer.ggml.tokens";
    static constexpr std::string_view kScoresKey = "tokenizer.ggml.scores";
    static constexpr std::string_view kTokenTypesKey = "tokenizer.ggml.token_type";

    // True when the model has a token list (what "has a tokenizer" means for the GUI).
    static bool hasTokens(const Model& model);

    // Indexes the tokens. Fails when the key is missing, is not an array of strings or holds more
    // tokens than a token id (int32) can name, and with "cancelled" once `cancelled` is true.
    // Linear in the size of the token array.
    static Result<Vocabulary> build(std::shared_ptr<const Model> model, const std::atomic<bool>* cancelled = nullptr);

    std::size_t size() const { return m_offsets.size(); }

    // Raw bytes of token `id` (< size()), maybe invalid UTF-8.
    std::string_view text(std::size_t id) const;
    std::string displayText(std::size_t id) const { return tokenDisplayText(text(id)); }
    // From the scores / token type arrays; nullopt when the array is absent, not numeric, or too
    // short for `id`.
    std::optional<double> score(std::size_t id) const;
    std::optional<std::int64_t> tokenType(std::size_t id) const;
    bool hasScores() const { return m_scores.has_value(); }
    // For formatting: an f32 score prints with fewer digits than an f64 one.
    bool scoresAreSinglePrecision() const { return m_scores && m_scores->elementType() == ValueType::F32; }
    bool hasTokenTypes() const { return m_types.has_value(); }

    // Ids whose display text satisfies `matches`, in increasing order. A filtering pass meant for
    // a worker thread; returns what it found so far when `cancelled` becomes true.
    std::vector<std::uint32_t> matchingIds(const std::function<bool(std::string_view displayText)>& matches,
                                           const std::atomic<bool>* cancelled = nullptr) const;
    // The same over the token's own bytes (text(id)), not its display: the `\t` the display
    // shows for a tab is not a backslash and a "t" of the token.
    std::vector<std::uint32_t> matchingTextIds(const std::function<bool(std::string_view text)>& matches,
                                               const std::atomic<bool>* cancelled = nullptr) const;

    // The `*_token_id` keys that are set, in the order of the role list above.
    static std::vector<SpecialToken> specialTokens(const Model& model);

private:
    Vocabulary() = default;

    std::shared_ptr<const Model> m_model;  // keeps the mapping the values point into alive
    MetadataValue m_tokens;
    std::vector<std::uint64_t> m_offsets;
    std::optional<MetadataValue> m_scores;  // numeric fixed-size arrays only
    std::optional<MetadataValue> m_types;
};

}  // namespace gguf
