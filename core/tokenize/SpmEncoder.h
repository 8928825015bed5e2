#pragma once
// SentencePiece-style BPE as llama.cpp's llm_tokenizer_spm: start from single UTF-8 characters
// and repeatedly merge the adjacent pair whose concatenation is the highest-scoring token (the
// leftmost pair on a tie); what stays unknown is written as byte tokens <0xNN>.

#include "core/tokenize/TokenTable.h"

#include <string_view>
#include <vector>

namespace gguf {

// `text` must already have its spaces replaced by U+2581. `unknownId` stands in for a byte that
// has no byte token (llama.cpp would throw there), or the byte is dropped when it is kNone.
void encodeSentencePiece(const TokenTable& table, std::string_view text, std::int32_t unknownId, std::vector<std::int32_t>& out);

}  // namespace gguf
