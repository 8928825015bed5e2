#include "forward/FeedForwardStep.h"

#include "forward/ExpertRouting.h"
#include "forward/ForwardOps.h"

#include <array>
#include <tuple>

namespace gguf {

void applyGatedActivation(FeedForwardActivation activation, float* gate, const float* up, std::int64_t rows, std::int64_t width, bool asGgml)
{
    switch (activation) {
    case FeedForwardActivation::Silu:
        swiglu(gate, up, rows, width, asGgml);
        return;
    case FeedForwardActivation::Gelu:
        geglu(gate, up, static_cast<std::size_t>(rows * width));
        return;
    case FeedForwardActivation::SwigluOai:
        swigluOai(gate, up, static_cast<std::size_t>(rows * width));
        return;
    }
}

namespace {

struct GatedFfnNames {
    const char* gate;
    const char* up;
    const char* down;
};

// down(act(gate x) * up x) with blk.<layer>.<names> of width ff.
Status gatedFeedForward(PassContext& c, std::int64_t layer, const GatedFfnNames& names, std::int64_t ff, const std::vector<float>& normed,
                        std::vector<float>& out)
{
    const auto& h = c.h;
    const std::int64_t width = h.embeddingLength;
    std::vector<float> g, u;
    auto gate = c.layerWeight(layer, names.gate, {width, ff, 1});
    auto up = c.layerWeight(layer, names.up, {width, ff, 1});
    for (const Result<WeightMatrix>* w : {&gate, &up})
        if (!*w)
            return w->error();
    c.noteHeld(gate->heldBytes() + up->heldBytes());
    c.project(normed, c.tokens, *gate, WeightMatrix{}, g);
    c.project(normed, c.tokens, *up, WeightMatrix{}, u);
    c.recycle({&gate, &up});
    auto down = c.layerWeight(layer, names.down, {ff, width, 1});
    if (!down)
        return down.error();
    c.noteHeld(down->heldBytes());
    applyGatedActivation(h.block->activation, g.data(), u.data(), c.tokens, ff, c.options.emulateLlamaCppActivations);
    c.project(g, c.tokens, *down, WeightMatrix{}, out);
    c.recycle({&down});
    return Ok{};
}

// The shared expert beside routed ones (ffn_*_shexp), when the file has it: added to `out`,
// first multiplied by sigmoid(ffn_gate_inp_shexp . x) when that gate exists.
Status addSharedExpert(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out)
{
    if (!c.loader.model().findTensor(layerTensorName(layer, "ffn_up_shexp")))
        return Ok{};
    std::vector<float> shared;
    if (Status done = gatedFeedForward(c, layer, {"ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp"}, c.h.sharedExpertFeedForwardLength,
                                       normed, shared);
        !done)
        return done;
    const std::int64_t width = c.h.embeddingLength;
    auto gate = c.layerWeight(layer, "ffn_gate_inp_shexp", {width, 1, 1}, false);
    if (!gate)
        return gate.error();
    if (gate->present()) {
        std::vector<float> g;
        c.project(normed, c.tokens, *gate, WeightMatrix{}, g);
        sigmoid(g.data(), g.size());
        for (std::int64_t t = 0; t < c.tokens; ++t)
            for (std::int64_t i = 0; i < width; ++i)
                shared[static_cast<std::size_t>(t * width + i)] *= g[static_cast<std::size_t>(t)];
    }
    c.recycle({&gate});
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = out[i] + shared[i];  // moe_out + ffn_shexp
    return Ok{};
}

}  // namespace

Status runDenseFeedForward(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out)
{
    const auto& h = c.h;
    const std::int64_t width = h.embeddingLength;
    const std::int64_t ff = h.feedForwardLength;
    if (!h.block->fusedGateUp)
        return gatedFeedForward(c, layer, {"ffn_gate", "ffn_up", "ffn_down"}, ff, normed, out);
    // Fused gate/up: ffn_up holds the gate rows, then the up rows.
    auto up = c.layerWeight(layer, "ffn_up", {width, 2 * ff, 1});
    if (!up)
        return up.error();
    c.noteHeld(up->heldBytes());
    std::vector<float> fused;
    c.project(normed, c.tokens, *up, WeightMatrix{}, fused);
    c.recycle({&up});
    std::vector<float> g(static_cast<std::size_t>(c.tokens * ff)), u(g.size());
    for (std::int64_t t = 0; t < c.tokens; ++t) {
        std::copy_n(fused.begin() + t * 2 * ff, ff, g.begin() + t * ff);
        std::copy_n(fused.begin() + t * 2 * ff + ff, ff, u.begin() + t * ff);
    }
    auto down = c.layerWeight(layer, "ffn_down", {ff, width, 1});
    if (!down)
        return down.error();
    c.noteHeld(down->heldBytes());
    applyGatedActivation(h.block->activation, g.data(), u.data(), c.tokens, ff, c.options.emulateLlamaCppActivations);
    c.project(g, c.tokens, *down, WeightMatrix{}, out);
    c.recycle({&down});
    return Ok{};
}

Status runExpertFeedForward(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out,
                            std::vector<std::int32_t>& selected)
{
    const auto& h = c.h;
    const std::int64_t width = h.embeddingLength;
    const std::int64_t ff = h.expertFeedForwardLength;
    const std::int64_t experts = h.expertCount;
    const std::int64_t used = h.expertUsedCount;
    std::vector<float> weights;
    if (Status routed = routeTokens(c, layer, normed, selected, weights); !routed)
        return routed;

    const std::string gateName = layerTensorName(layer, "ffn_gate_exps");
    const std::string upName = layerTensorName(layer, "ffn_up_exps");
    const std::string downName = layerTensorName(layer, "ffn_down_exps");
    const std::array<std::tuple<const std::string&, std::int64_t, std::int64_t>, 3> shapes{
        {{gateName, width, ff}, {upName, width, ff}, {downName, ff, width}}};
    for (const auto& [name, columns, rows] : shapes) {
        const TensorInfo* tensor = c.loader.model().findTensor(name);
        if (!tensor)
            return forwardError(c, "the forward pass needs tensor " + name);
        if (tensor->ne[0] != columns || tensor->ne[1] != rows || tensor->ne[2] != experts || tensor->ne[3] != 1)
            return Error{"tensor " + name + " must have shape [" + std::to_string(columns) + ", " + std::to_string(rows) + ", "
                             + std::to_string(experts) + "]",
                         tensor->infoOffset, c.loader.model().primary().path()};
    }
    // Expert biases (gpt-oss): [ff or width, experts], added after each product (ggml_add_id).
    auto gateBias = c.loader.load(layerTensorName(layer, "ffn_gate_exps", "bias"), {ff, experts, 1}, false);
    auto upBias = c.loader.load(layerTensorName(layer, "ffn_up_exps", "bias"), {ff, experts, 1}, false);
    auto downBias = c.loader.load(layerTensorName(layer, "ffn_down_exps", "bias"), {width, experts, 1}, false);
    for (const Result<WeightMatrix>* w : {&gateBias, &upBias, &downBias})
        if (!*w)
            return w->error();
    const auto addBias = [](const Result<WeightMatrix>& bias, std::int64_t expert, std::vector<float>& y, std::int64_t rows, std::int64_t n) {
        if (!bias->present())
            return;
        const float* b = bias->data() + expert * n;
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t i = 0; i < n; ++i)
                y[static_cast<std::size_t>(r * n + i)] += b[i];
    };

    // One expert at a time: gather its tokens, run its FFN, keep each (token, slot) output so
    // the slots are summed in ggml's order (slot 0 + slot 1 + ...).
    std::vector<float> slotOut(static_cast<std::size_t>(c.tokens * used * width), 0.0f);
    for (std::int64_t e = 0; e < experts; ++e) {
        if (c.cancelled())
            return Error{kForwardCancelled, Error::kNoOffset, {}};
        std::vector<std::int64_t> slots;  // t * used + s for every slot routed to e
        for (std::int64_t i = 0; i < c.tokens * used; ++i)
            if (selected[static_cast<std::size_t>(i)] == e)
                slots.push_back(i);
        if (slots.empty())
            continue;
        const auto n = static_cast<std::int64_t>(slots.size());
        std::vector<float> x(static_cast<std::size_t>(n * width));
        for (std::int64_t r = 0; r < n; ++r) {
            const std::int64_t t = slots[static_cast<std::size_t>(r)] / used;
            std::copy_n(normed.begin() + t * width, width, x.begin() + r * width);
        }
        const auto first = static_cast<std::uint64_t>(e);
        auto gate = c.loader.loadRows(gateName, width, first * ff, (first + 1) * ff);
        auto up = c.loader.loadRows(upName, width, first * ff, (first + 1) * ff);
        auto down = c.loader.loadRows(downName, ff, first * width, (first + 1) * width);
        for (const Result<WeightMatrix>* w : {&gate, &up, &down})
            if (!*w)
                return w->error();
        c.noteHeld(gate->heldBytes() + up->heldBytes() + down->heldBytes());
        std::vector<float> g(static_cast<std::size_t>(n * ff)), u(g.size()), d(x.size());
        multiplyWeights(x.data(), n, *gate, c.accumulation, g.data());
        multiplyWeights(x.data(), n, *up, c.accumulation, u.data());
        addBias(upBias, e, u, n, ff);
        addBias(gateBias, e, g, n, ff);
        applyGatedActivation(h.block->activation, g.data(), u.data(), n, ff, c.options.emulateLlamaCppActivations);
        multiplyWeights(g.data(), n, *down, c.accumulation, d.data());
        addBias(downBias, e, d, n, width);
        for (std::int64_t r = 0; r < n; ++r) {
            const std::int64_t slot = slots[static_cast<std::size_t>(r)];
            const float w = weights[static_cast<std::size_t>(slot)];
            float* target = slotOut.data() + slot * width;
            for (std::int64_t i = 0; i < width; ++i)
                target[i] = d[static_cast<std::size_t>(r * width + i)] * w;
        }
        c.recycle({&gate, &up, &down});
    }
    c.recycle({&gateBias, &upBias, &downBias});
    out.assign(normed.size(), 0.0f);
    for (std::int64_t t = 0; t < c.tokens; ++t)
        for (std::int64_t s = 0; s < used; ++s) {
            const float* source = slotOut.data() + (t * used + s) * width;
            float* target = out.data() + t * width;
            for (std::int64_t i = 0; i < width; ++i)
                target[i] = s == 0 ? source[i] : target[i] + source[i];
        }
    return addSharedExpert(c, layer, normed, out);
}

}  // namespace gguf
