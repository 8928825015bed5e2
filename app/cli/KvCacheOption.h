#pragma once
// --kv, --kv-k, --kv-v and --flash-attn, llama.cpp's -ctk, -ctv and -fa: read the same way by
// `estimate` (the memory of the cache) and by the commands that run forward passes (logits,
// kld, scan: the cache their attention rounds to and sums as), from the same rows of the
// command table.

#include "CliArguments.h"
#include "core/types/KvCacheSettings.h"

#include <optional>

// The settings the options ask for (llama.cpp's defaults for those not given: f16, flash
// attention auto), or nothing after reporting an unknown type or mode.
std::optional<gguf::KvCacheSettings> kvCacheSettingsOrReport(const CliArguments& args);

// Whether any of the four options was given.
bool hasKvCacheOption(const CliArguments& args);
