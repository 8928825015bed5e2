#pragma once
// Whether a metadata value agrees with the tensors it describes: an edited
// `llama.embedding_length` of 16 on 512-wide tensors makes a file llama.cpp refuses to load.
// Only what the tensors decide is checked (widths, layer, vocabulary and expert counts); a key
// the tensors say nothing about is never a contradiction.

#include "core/gguf/Model.h"

#include <cstdint>
#include <string>
#include <string_view>

// What `key` = `value` contradicts in `model`'s tensors ("token_embd.weight is 512 wide"), or
// empty. `architecture` is the general.architecture the edited file will have. For the token
// list, `value` is its length.
std::string tensorContradiction(const gguf::Model& model, std::string_view architecture, std::string_view key, std::uint64_t value);
