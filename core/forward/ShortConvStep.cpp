#include "core/forward/ShortConvStep.h"


#include <cmath>

namespace gguf {

Status runShortConv(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::int64_t from, std::vector<float>& out)
{
    const std::int64_t width = c.h.embeddingLength;
    const std::int64_t taps = c.h.shortConvCache;
    auto inProjection = c.layerWeight(layer, "shortconv.in_proj", {width, 3 * width, 1});
    if (!inProjection)
        return inProjection.error();
    auto kernel = c.layerWeight(layer, "shortconv.conv", {taps, width, 1});
    if (!kernel)
        return kernel.error();
    c.noteHeld(inProjection->heldBytes() + kernel->heldBytes());
    std::vector<float> bcx;
    c.project(normed, c.tokens, *inProjection, WeightMatrix{}, bcx);
    c.recycle({&inProjection});

    // bx with the zero conv state (taps - 1 positions) before position 0.
    const std::int64_t stateRows = taps - 1;
    std::vector<float> padded(static_cast<std::size_t>((c.tokens + stateRows) * width), 0.0f);
    for (std::int64_t t = 0; t < c.tokens; ++t)
        for (std::int64_t i = 0; i < width; ++i) {
            const float* row = bcx.data() + t * 3 * width;
            padded[static_cast<std::size_t>((t + stateRows) * width + i)] = row[i] * row[2 * width + i];
        }
    // ggml_ssm_conv: each channel's taps summed in order from 0.0f; llama.cpp's build contracts
    // the multiply-add into one fused step.
    const bool fused = c.options.emulatesLlamaCpp();
    const float* w = kernel->data();
    std::vector<float> mixed(static_cast<std::size_t>(c.tokens * width), 0.0f);
    for (std::int64_t t = from; t < c.tokens; ++t)
        for (std::int64_t i = 0; i < width; ++i) {
            float sum = 0.0f;
            for (std::int64_t k = 0; k < taps; ++k) {
                const float a = padded[static_cast<std::size_t>((t + k) * width + i)];
                const float b = w[i * taps + k];
                sum = fused ? std::fma(a, b, sum) : sum + a * b;
            }
            mixed[static_cast<std::size_t>(t * width + i)] = bcx[static_cast<std::size_t>(t * 3 * width + width + i)] * sum;
        }
    c.recycle({&kernel});
    auto outProjection = c.layerWeight(layer, "shortconv.out_proj", {width, width, 1});
    if (!outProjection)
        return outProjection.error();
    c.noteHeld(outProjection->heldBytes());
    c.projectRowsFrom(mixed, from, *outProjection, WeightMatrix{}, out);
    c.recycle({&outProjection});
    return Ok{};
}

}  // namespace gguf
