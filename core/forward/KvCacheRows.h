#pragma once
// Keys or values as llama.cpp's KV cache holds them: each row (one token's head) rounded to the
// cache type the way ggml-cpu's set_rows stores an f32 row (the CPU from_float of the type: f16
// and bf16 round to nearest even, q8_0 as the AVX2 quantize_row_q8_0, q4_0 ... q5_1 as their
// reference quantizers, iq4_nl as quantize_row_iq4_nl_ref), kept in the two forms the attention
// reads: the values the type's to_float gives back, and for the quantized types each block's
// integers and scales, which the K·Q products multiply (KvDot.h).

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct CachedRows {
    std::uint32_t type = 0;
    std::int64_t rows = 0;
    std::int64_t width = 0;
    std::vector<float> values;  // [rows, width]: what ggml's to_float of the stored row gives
    // Quantized types only, per 32-value block. `levels` are the integers ggml's AVX2 vec_dot
    // multiplies: q8_0 q; q4_0 q - 8; q5_0 q - 16; q4_1 and q5_1 q (unsigned); iq4_nl the
    // codebook value. `scales` the block's d and `minimums` its m (q4_1, q5_1), as floats.
    std::vector<std::int8_t> levels;  // [rows, width]
    std::vector<float> scales;        // [rows, width / 32]
    std::vector<float> minimums;      // [rows, width / 32] or empty

    bool quantized() const { return !levels.empty(); }
    const float* valuesOf(std::int64_t row) const { return values.data() + row * width; }
    const std::int8_t* levelsOf(std::int64_t row) const { return levels.data() + row * width; }
    const float* scalesOf(std::int64_t row) const { return scales.data() + row * (width / 32); }
    const float* minimumsOf(std::int64_t row) const { return minimums.data() + row * (width / 32); }
};

// Rounds `rows` rows of `width` f32 values (a multiple of 32 for a quantized type) to the cache
// type `type` (isKvCacheType).
CachedRows cacheRows(std::uint32_t type, const float* x, std::int64_t rows, std::int64_t width);

// The query rounded to the K cache type's vec_dot_type before a product with quantized keys:
// q8_0 for q8_0, q4_0, q5_0 and iq4_nl keys, q8_1 for q4_1 and q5_1 (ggml-cpu's AVX2 quantizers:
// d = amax / 127, the multiplier 127 / amax, round half to even; q8_1 also keeps s = f16(d * the
// block's integer sum)). `sums` holds s as a float for q8_1, else it is empty.
struct QuantizedQuery {
    std::vector<std::int8_t> levels;
    std::vector<float> scales;
    std::vector<float> sums;
};
void quantizeQuery(std::uint32_t keyType, const float* x, std::int64_t width, QuantizedQuery& out);

// Why llama.cpp would not keep this head size in that cache type, or empty: a quantized cache
// needs whole 32-value blocks per head.
std::string cacheRowWidthProblem(std::uint32_t type, std::int64_t width, const char* what);

}  // namespace gguf
