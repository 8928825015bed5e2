#pragma once
// Hand-written equivalents of the pre-tokenizer expressions most models use. llama.cpp runs the
// first two this way instead of std::regex (unicode_regex_split_custom_gpt2 / _llama3); the
// others it runs with std::regex, so they are checked against that engine on random text
// (tst_tokenizer_splitters). Unlike the engine they need no stack per character of a match.
// Input and output are fragment lengths in code points.
//
//   gpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
//   llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   qwen2:  the same with \p{N} for \p{N}{1,3}
//   qwen35: qwen2's with [\p{L}\p{M}]+ for \p{L}+ and [^\s\p{L}\p{M}\p{N}]+ for [^\s\p{L}\p{N}]+
//   newline runs (gemma4): [^\n]+|[\n]+
//   trailing whitespace (deepseek-llm): \s+$ (the engine backtracks quadratically on long runs)
//   digit triples (superbpe): (?=(\d{3})+(?!\d)), empty matches, likewise quadratic

#include <cstddef>
#include <vector>

namespace gguf {

std::vector<std::size_t> splitGpt2(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitLlama3(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitQwen2(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitQwen35(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitTrailingWhitespace(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitDigitTriples(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);
std::vector<std::size_t> splitNewlineRuns(const std::vector<char32_t>& codePoints, const std::vector<std::size_t>& fragments);

}  // namespace gguf
