#include "core/estimate/ComputeBuffer.h"

#include <algorithm>

namespace gguf {

namespace {
constexpr std::uint64_t kF32 = 4;
constexpr std::uint64_t kF16 = 2;
// Token ids, positions and the cache row indices: a few small i32/i64 inputs per token.
constexpr std::uint64_t kInputBytesPerToken = 16;

constexpr std::uint64_t kSaturated = ~std::uint64_t{0};

// Products and sums that stop at kSaturated: a header can declare any size, and the caller
// reports a saturated figure instead of a wrapped one.
std::uint64_t mul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? kSaturated : product;
}

std::uint64_t mul(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d = 1)
{
    return mul(mul(a, b), mul(c, d));
}

std::uint64_t add(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? kSaturated : sum;
}

// The widest tensor a block computes besides the residual stream, in values per token.
std::uint64_t widestIntermediate(const EstimateShape& shape, const EstimateLayer& layer)
{
    std::uint64_t width = layer.widestActivation;
    if (!layer.recurrent) {
        // A gated Q projection yields [query, gate] per head, and the query is then copied out.
        width = std::max(width, mul(layer.heads, layer.keyLength, layer.gatedQuery ? 3 : 1));
        if (shape.mla)
            width = std::max(width, mul(2, layer.heads, shape.kvLoraRank));
    }
    return width;
}
}  // namespace

std::uint64_t estimateComputeBuffer(const EstimateShape& shape, const ComputeBufferInputs& inputs)
{
    const std::uint64_t t = inputs.tokens;
    std::uint64_t widest = 0;
    std::uint64_t scores = 0;  // f32 KQ of the largest attention layer, without flash attention
    for (const EstimateLayer& layer : shape.layers) {
        widest = std::max(widest, widestIntermediate(shape, layer));
        if (!layer.recurrent && layer.kvHeads) {
            const std::uint64_t cells = layer.slidingWindow ? inputs.slidingCells : inputs.fullCells;
            scores = std::max(scores, mul(cells, t, layer.heads, kF32));
        }
    }
    const std::uint64_t maskElement = inputs.flashAttention ? kF16 : kF32;
    std::uint64_t masks = 0;
    if (shape.hasFullLayers())
        masks = add(masks, mul(inputs.fullCells, t, maskElement));
    if (shape.hasSlidingLayers())
        masks = add(masks, mul(inputs.slidingCells, t, maskElement));

    const std::uint64_t embedding = mul(shape.embedding, t, kF32);
    const std::uint64_t block = mul(add(add(mul(3, shape.embedding), widest), shape.perLayerInputs), t, kF32);
    const std::uint64_t logits = mul(shape.vocabulary, t, kF32);
    const std::uint64_t output = std::max(add(logits, embedding), add(std::min(logits, block), block));
    const std::uint64_t peak = inputs.flashAttention ? output : std::max(add(scores, block), output);
    return add(add(mul(kInputBytesPerToken, t), masks), peak);
}

}  // namespace gguf
