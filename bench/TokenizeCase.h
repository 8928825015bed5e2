#pragma once
// Tokenizer throughput: each vocabulary of llama.cpp's test set (fixtures llama.cpp/vocab/)
// encodes a large text (GPL-3 repeated, plus its own multilingual test strings) on one thread;
// rows give tokens/s and MB/s of input, and the time to build the tokenizer from the file.

#include "Report.h"

#include <string>

namespace bench {

// `vocabDir` holds the ggml-vocab-*.gguf files (none: a message, and the case is skipped);
// false after a message when one cannot be read.
bool runTokenizeCases(const std::string& vocabDir, bool quick, Report& report);

}  // namespace bench
