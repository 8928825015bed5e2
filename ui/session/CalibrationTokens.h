#pragma once
// The tokens of a calibration text as `scan --text-file` and llama-perplexity -f make them: the
// whole file (at most 256 MiB: a wrong pick, a model file, must not fill memory), BOS as the
// model asks, special-token text parsed (the Output tab reads its text files the same way, as
// kld --text-file). Runs on a job thread (file I/O).

#include "core/base/Result.h"
#include "core/gguf/Model.h"

#include <cstdint>
#include <string>
#include <vector>

gguf::Result<std::vector<std::int32_t>> calibrationTokens(const gguf::Model& model, const std::string& textFile);
