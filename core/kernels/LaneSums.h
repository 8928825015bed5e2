#pragma once
// What ggml's x86 kernels and ours share about sums: the horizontal sum of 8 float lanes, and
// Q4_K's packed scales and minimums.

#include <cstdint>

namespace gguf::qdot {

// ggml's hsum_float_8: ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)).
inline float sumLanes8(const float* l)
{
    return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

// Q4_K's 6-bit scale and minimum of sub-block j (0..7) from its 12 packed bytes.
inline void q4kScaleMin(const std::uint8_t* packed, int j, int& scale, int& min)
{
    if (j < 4) {
        scale = packed[j] & 63;
        min = packed[j + 4] & 63;
    } else {
        scale = (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4);
        min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
    }
}

}  // namespace gguf::qdot
