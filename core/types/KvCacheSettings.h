#pragma once
// llama.cpp's KV cache settings (-ctk, -ctv, -fa): the types the K and V caches are kept in and
// whether attention runs as flash attention. The memory estimate sizes the cache by them and the
// forward pass rounds its keys and values and sums its attention by them, so both read this one
// definition (and the CLI one option table, KvCacheOption.h).

#include <cstdint>
#include <string>

namespace gguf {

enum class FlashAttention { Auto, On, Off };  // llama.cpp's --flash-attn; auto enables it where the device supports it

struct KvCacheSettings {
    std::uint32_t keyType = 1;  // ggml type ids: f16 by default, as llama.cpp
    std::uint32_t valueType = 1;
    FlashAttention flashAttention = FlashAttention::Auto;

    // On the CPU, auto is on: ggml-cpu runs flash attention for every model llama.cpp runs there.
    bool flashAttentionOn() const { return flashAttention != FlashAttention::Off; }
    bool operator==(const KvCacheSettings&) const = default;
};

// The cache types llama.cpp accepts for --cache-type-k/-v (f32, f16, bf16, q8_0, q4_0, q4_1,
// iq4_nl, q5_0, q5_1).
bool isKvCacheType(std::uint32_t typeId);
// Those names, comma-separated, for messages.
const char* kvCacheTypeNames();

// "K f16, V f16, flash attention on": what a result names as the attention it was computed with.
std::string kvCacheSettingsName(const KvCacheSettings& settings);

}  // namespace gguf
