#pragma once
// Hand-written equivalents of the two pre-tokenizer expressions most models use, as llama.cpp
// runs them instead of std::regex (unicode_regex_split_custom_gpt2 / _llama3): same fragments,
// far faster. Input and output are fragment lengths in code points over `codePoints`.
//
//   gpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
//   llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+

#include <cstddef>
#include <vector>

namespace gguf {

std::vector<std::size_t> splitGpt2(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitLlama3(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);

}  // namespace gguf
