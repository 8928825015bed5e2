#pragma once
// The arithmetic of the commands that run forward passes (logits, kld, scan): which
// ActivationArithmetic the passes use (by default llama.cpp's; --f32-activations the exact
// mode, --q8-activations the faster mode with f32 attention) and, in llama.cpp's, its KV cache
// (--kv, --kv-k, --kv-v, --flash-attn; KvCacheOption.h). The activation flags exclude each
// other, and the cache options apply to llama.cpp's arithmetic only.

#include "CliArguments.h"
#include "core/forward/ActivationRounding.h"
#include "core/types/KvCacheSettings.h"

#include <optional>
#include <string>

struct PassArithmetic {
    gguf::ActivationArithmetic activations = gguf::ActivationArithmetic::LlamaCpp;
    gguf::KvCacheSettings kvCache;
};

// The arithmetic the flags ask for, or nothing after reporting flags that contradict each other.
std::optional<PassArithmetic> passArithmeticOrReport(const CliArguments& args);

// "activations: llama.cpp, attention: K f16, V f16, flash attention on" and the like, one line
// of text for the commands' reports.
std::string passArithmeticText(const PassArithmetic& arithmetic);

namespace gguf {
class JsonWriter;
}
// The same as members of the object being written: "activations", "attention" (the text),
// "kv_type_k", "kv_type_v" and "flash_attn" (as `estimate --json` names them).
void writePassArithmeticJson(gguf::JsonWriter& json, const PassArithmetic& arithmetic);
