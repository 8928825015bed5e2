#pragma once
// Token ids for the commands that run a model (logits, kld): `--tokens 1,2,3` or a text file
// tokenized with the model's own tokenizer.

#include "gguf/Model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// "1,2,3" (spaces also separate) -> ids; nullopt after reporting a malformed list.
std::optional<std::vector<std::int32_t>> parseTokenListOrReport(const std::string& text);

// SEAM(issue-16-tok): the text of `path` tokenized with the model's tokenizer, BOS as the model
// asks (gguf::Tokenizer::fromModel(model) then encode(text, true, true), core/tokenize/Tokenizer.h,
// written by the tokenizer branch). Until that is merged this reports that text input needs the
// tokenizer and returns nullopt.
std::optional<std::vector<std::int32_t>> tokenizeTextFileOrReport(const gguf::Model& model, const std::string& path);
