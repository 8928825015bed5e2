#pragma once
// Cutting special tokens out of the text before the encoder sees it, as llama.cpp's
// tokenizer_st_partition: every control, user-defined and unknown token, longest first, is found
// in the raw text and becomes a fragment of its own. Without parseSpecial only user-defined
// tokens are cut (Hugging Face does the same for "added tokens"). A token marked lstrip/rstrip
// also eats the ASCII whitespace before/after it.

#include "core/tokenize/TokenTable.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gguf {

struct TextFragment {
    std::int32_t token = TokenTable::kNone;  // kNone: raw text
    std::size_t offset = 0;                  // raw text: its bytes in the input
    std::size_t length = 0;
    bool isToken() const { return token != TokenTable::kNone; }
};

// Ids of the control, user-defined and unknown tokens, longest text first (std::sort of the
// ascending ids, as llama.cpp, so tokens of equal length come in the same order).
std::vector<std::int32_t> specialTokenOrder(const TokenTable& table);

std::vector<TextFragment> splitSpecialTokens(const TokenTable& table, const std::vector<std::int32_t>& specialOrder, std::string_view text,
                                             bool parseSpecial);

}  // namespace gguf
