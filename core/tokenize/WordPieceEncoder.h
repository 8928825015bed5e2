#pragma once
// BERT-style WordPiece as llama.cpp's llm_tokenizer_wpm: normalise (NFD and drop accents, and
// lowercase, both on unless the file says otherwise), split at whitespace and around every
// punctuation mark, ASCII symbol and CJK ideograph, then cover each word, prefixed with U+2581,
// by longest-first vocabulary matches; a word that cannot be covered is the unknown token.

#include "core/tokenize/TokenTable.h"

#include <string>
#include <string_view>
#include <vector>

namespace gguf {

struct WordPieceOptions {
    bool lowercase = true;
    bool stripAccents = true;
};

std::vector<std::string> wordPieceWords(std::string_view text, const WordPieceOptions& options);
void encodeWordPiece(const TokenTable& table, std::string_view text, const WordPieceOptions& options, std::int32_t unknownId,
                     std::vector<std::int32_t>& out);

}  // namespace gguf
