#pragma once
// Hand-written equivalents of the pre-tokenizer expressions most models use. llama.cpp runs the
// first two this way instead of std::regex (unicode_regex_split_custom_gpt2 / _llama3); qwen2's
// expression it runs with std::regex, so splitQwen2 is checked against that engine on random
// text (tst_tokenizer_splitters). Input and output are fragment lengths in code points.
//
//   gpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
//   llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   qwen2:  the same with \p{N} for \p{N}{1,3}
//   newline runs (gemma4): [^\n]+|[\n]+

#include <cstddef>
#include <vector>

namespace gguf {

std::vector<std::size_t> splitGpt2(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitLlama3(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitQwen2(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitNewlineRuns(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);

}  // namespace gguf
