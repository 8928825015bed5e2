#pragma once
// BPE merging of one pre-tokenized word, as llama.cpp's llm_tokenizer_bpe_session: start from
// its characters and repeatedly merge the adjacent pair with the lowest merge rank (leftmost on
// a tie). A final piece that is not a token falls back to its single bytes, each kept only when
// the vocabulary has it: as byte-level characters, or (SentencePiece-style BPE) as <0xNN>.
// Working memory is about 32 bytes per byte of the word.

#include "core/tokenize/TokenTable.h"

#include <string_view>
#include <vector>

namespace gguf {

enum class ByteFallback { ByteLevelCharacters, HexTokens };

// `ignoreMerges`: a word that is a token as a whole is that token (llama-3 style vocabularies).
void encodeBpeWord(const TokenTable& table, std::string_view word, bool ignoreMerges, ByteFallback fallback, std::vector<std::int32_t>& out);

// The <0xNN> token of `byte`, or TokenTable::kNone.
std::int32_t hexByteToken(const TokenTable& table, unsigned char byte);

}  // namespace gguf
