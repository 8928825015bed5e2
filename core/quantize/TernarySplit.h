#pragma once
// IQ1_S's exact scale search (ggml's quantize_row_iq1_s_impl): over every split 0 <= i1 <= i2 <= n
// of the block's values in sorted order into levels -1, 0, +1 (each shifted by +delta, then by
// -delta), the fit sumqx^2 / sumq2 from the prefix sums, the first best split kept. The AVX2 form
// scores 8 values of i2 per instruction, each lane with ggml's operations in ggml's order, and
// walks a vector lane by lane (first wins) only when some lane beats the best so far.

namespace gguf::quantize {

struct TernarySplit {
    int i1 = -1;
    int i2 = -1;
    int shift = 0;  // 1: levels plus[], -1: levels minus[]; 0 when no split fits
    float scale = 0.0f;
};

// sumx / sumw: prefix sums of w x and w over the sorted values, n + 1 entries followed by at least
// 8 readable floats. `scale` is returned unchanged when no split fits.
TernarySplit bestTernarySplit(const float* sumx, const float* sumw, int n, float scale, const float* plus, const float* minus);
TernarySplit bestTernarySplitScalar(const float* sumx, const float* sumw, int n, float scale, const float* plus,
                                    const float* minus);

}  // namespace gguf::quantize
