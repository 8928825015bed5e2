#pragma once
// Byte-level BPE pre-tokenization: `tokenizer.ggml.pre` picks a list of expressions (as
// llama.cpp's llm_tokenizer_bpe does); each one cuts every fragment the previous ones left into
// smaller ones, and each resulting word is returned in GPT-2's byte-to-character encoding, the
// alphabet the vocabulary and the merges are written in.

#include "core/base/Result.h"
#include "core/tokenize/RegexSplit.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

// What a `tokenizer.ggml.pre` name means for encoding.
struct PreTokenizerRecipe {
    std::string family;                    // the llama.cpp pre-tokenizer type it maps to, e.g. "llama3"
    std::vector<std::string> expressions;  // in the order they are applied
    bool ignoreMerges = false;             // a word that is itself a token is not merged
    bool addBosByDefault = false;          // before tokenizer.ggml.add_bos_token decides
    bool noBosToken = false;               // the family has no BOS token (chatglm)
    // SentencePiece-style BPE (gemma4): spaces become "▁" before splitting, words stay raw UTF-8
    // (no byte-level alphabet), a word of newlines that is itself a token is not merged, and BOS
    // is added whatever tokenizer.ggml.add_bos_token says.
    bool spaceMarks = false;
};

// The recipe for a pre-tokenizer name; an empty name is llama.cpp's "default". nullopt for a
// name llama.cpp does not know (or whose splitter this project lacks).
std::optional<PreTokenizerRecipe> preTokenizerRecipe(std::string_view name);

class PreTokenizer {
public:
    // `byteLevel`: words come out in GPT-2's byte-to-character encoding, else as plain UTF-8.
    static Result<PreTokenizer> create(const std::vector<std::string>& expressions, bool byteLevel = true);

    // The words of `text` (UTF-8, invalid bytes read as U+FFFD), byte-level encoded if so made.
    std::vector<std::string> split(std::string_view text) const;

private:
    enum class Kind { Gpt2, Llama3, Qwen2, Qwen35, NewlineRuns, TrailingWhitespace, DigitTriples, Regex };
    struct Step {
        Kind kind;
        std::shared_ptr<const RegexSplit> regex;
    };
    std::vector<Step> m_steps;
    bool m_needsCollapsed = false;
    bool m_needsWide = false;
    bool m_byteLevel = true;
};

// GPT-2's bytes_to_unicode: the UTF-8 of the character that stands for `byte`.
std::string_view byteLevelCharacter(unsigned char byte);

}  // namespace gguf
