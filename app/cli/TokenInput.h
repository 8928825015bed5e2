#pragma once
// Token ids for the commands that run a model (logits, kld): `--tokens 1,2,3` or a text file
// tokenized with the model's own tokenizer.

#include "core/gguf/Model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// "1,2,3" (spaces also separate) -> ids; nullopt after reporting a malformed list.
std::optional<std::vector<std::int32_t>> parseTokenListOrReport(const std::string& text);

// The text of `path` tokenized with the model's own tokenizer, BOS as the model asks and special-
// token text parsed unless `parseSpecial` is false (llama-perplexity parses it, llama-imatrix
// only with --parse-special); nullopt after reporting why not.
std::optional<std::vector<std::int32_t>> tokenizeTextFileOrReport(const gguf::Model& model, const std::string& path,
                                                                  bool parseSpecial = true);
