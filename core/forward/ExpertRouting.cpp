#include "core/forward/ExpertRouting.h"

#include "core/forward/ForwardOps.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

namespace gguf {

namespace {

// build_moe_ffn's expert groups: a group's score is the sum of its two best choice values; the
// experts outside the `used` best groups are set to -inf before the top-k.
void keepBestGroups(std::vector<float>& choice, std::int64_t groups, std::int64_t used)
{
    const auto perGroup = static_cast<std::int64_t>(choice.size()) / groups;
    std::vector<float> scores(static_cast<std::size_t>(groups));
    std::vector<float> members(static_cast<std::size_t>(perGroup));
    for (std::int64_t g = 0; g < groups; ++g) {
        std::copy_n(choice.begin() + g * perGroup, perGroup, members.begin());
        std::partial_sort(members.begin(), members.begin() + 2, members.end(), std::greater<float>());
        scores[static_cast<std::size_t>(g)] = static_cast<float>(static_cast<double>(members[0]) + static_cast<double>(members[1]));
    }
    std::vector<std::int64_t> order(static_cast<std::size_t>(groups));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return scores[static_cast<std::size_t>(a)] > scores[static_cast<std::size_t>(b)];
    });
    for (std::int64_t r = used; r < groups; ++r) {
        const std::int64_t g = order[static_cast<std::size_t>(r)];
        std::fill(choice.begin() + g * perGroup, choice.begin() + (g + 1) * perGroup, -std::numeric_limits<float>::infinity());
    }
}

}  // namespace

Status routeTokens(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::vector<std::int32_t>& selected,
                   std::vector<float>& weights)
{
    const auto& h = c.h;
    const std::int64_t experts = h.expertCount;
    const std::int64_t used = h.expertUsedCount;
    auto router = c.layerWeight(layer, "ffn_gate_inp", {h.embeddingLength, experts, 1});
    if (!router)
        return router.error();
    auto routerBias = c.layerBias(layer, "ffn_gate_inp", experts);
    if (!routerBias)
        return routerBias.error();
    const std::string choiceBiasName = h.block->experts.bareSelectionBias ? "blk." + std::to_string(layer) + ".exp_probs_b"
                                                                           : layerTensorName(layer, "exp_probs_b", "bias");
    auto choiceBias = c.loader.load(choiceBiasName, {experts, 1, 1}, false);
    if (!choiceBias)
        return choiceBias.error();
    c.noteHeld(router->heldBytes());
    std::vector<float> probs;
    c.project(normed, c.tokens, *router, *routerBias, probs);
    std::vector<float> rawLogits;
    if (h.block->experts.weightsOnInput)
        rawLogits = probs;
    if (h.expertGating == ExpertGating::Softmax)
        softmaxRows(probs.data(), c.tokens, experts);
    else if (h.expertGating == ExpertGating::Sigmoid)
        sigmoid(probs.data(), probs.size());

    selected.assign(static_cast<std::size_t>(c.tokens * used), 0);
    weights.assign(selected.size(), 0.0f);
    std::vector<std::int64_t> order(static_cast<std::size_t>(experts));
    std::vector<float> choice(static_cast<std::size_t>(experts));
    for (std::int64_t t = 0; t < c.tokens; ++t) {
        const float* p = probs.data() + t * experts;
        // Only llama4 keeps the raw logits (rawLogits is empty otherwise: no offset into it).
        const float* logits = h.block->experts.weightsOnInput ? rawLogits.data() + t * experts : nullptr;
        for (std::int64_t e = 0; e < experts; ++e)
            choice[static_cast<std::size_t>(e)] = logits ? logits[e]  // llama4 chooses on the logits
                                                 : choiceBias->present()          ? p[e] + choiceBias->data()[e]
                                                                                  : p[e];
        if (h.expertGroupCount > 1)
            keepBestGroups(choice, h.expertGroupCount, h.expertGroupUsedCount);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
            return choice[static_cast<std::size_t>(a)] > choice[static_cast<std::size_t>(b)];
        });
        float* w = weights.data() + t * used;
        for (std::int64_t s = 0; s < used; ++s) {
            selected[static_cast<std::size_t>(t * used + s)] = static_cast<std::int32_t>(order[static_cast<std::size_t>(s)]);
            w[s] = p[order[static_cast<std::size_t>(s)]];
        }
        if (h.expertGating == ExpertGating::SoftmaxSelected)
            softmaxRows(w, 1, used);
        if (h.normalizeExpertWeights) {
            double sum = 0.0;  // ggml_sum_rows sums in double
            for (std::int64_t s = 0; s < used; ++s)
                sum += static_cast<double>(w[s]);
            const float total = std::max(static_cast<float>(sum), 6.103515625e-5f);
            for (std::int64_t s = 0; s < used; ++s)
                w[s] /= total;
        }
        if (h.expertWeightsScale != 0.0f)
            for (std::int64_t s = 0; s < used; ++s)
                w[s] *= h.expertWeightsScale;
    }
    c.recycle({&router, &routerBias, &choiceBias});
    return Ok{};
}

}  // namespace gguf
