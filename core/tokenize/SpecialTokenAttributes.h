#pragma once
// The attribute fixes llama.cpp's vocabulary loader makes after reading the token types
// (llama_vocab::impl::load): tokens whose text says "end of turn", "fill in the middle" or "end
// of generation" become control tokens even when the converter typed them normal, and a few
// model families get lstrip/rstrip on their special tokens. These decide which texts are cut out
// as special tokens, so the ids depend on them.

#include "core/gguf/Model.h"
#include "core/tokenize/TokenTable.h"

#include <vector>

namespace gguf {

// Before the special-token order is built.
void markControlLookingTokens(TokenTable& table, const Model& model);
// After: lstrip/rstrip by model name, tokenizer.ggml.pre and architecture.
void applyStripAttributes(TokenTable& table, const std::vector<std::int32_t>& specialOrder, const Model& model);

}  // namespace gguf
