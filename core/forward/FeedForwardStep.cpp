#include "core/forward/FeedForwardStep.h"

#include "core/forward/ExpertRouting.h"
#include "core/forward/ForwardOps.h"
#include "core/forward/GgmlDots.h"
#include "core/forward/MatmulInputObserver.h"

#include "core/base/RowRanges.h"
#include "core/gguf/Dequantize.h"

#include <array>
#include <cmath>
#include <limits>
#include <tuple>

namespace gguf {

void applyGatedActivation(FeedForwardActivation activation, float* gate, const float* up, std::int64_t rows, std::int64_t width, bool asGgml,
                          float limit)
{
    switch (activation) {
    case FeedForwardActivation::Silu:
        if (limit > 1e-6f)  // llama.cpp's eps for "no clamp"
            swigluClamped(gate, up, rows, width, limit, asGgml);
        else
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

// The layer's SwiGLU limit (swiglu_clamp_exp for the routed experts, swiglu_clamp_shexp for the
// shared expert and the dense FFN); 0 where the block reads none.
float swigluLimit(const ModelHyperparameters& h, std::int64_t layer, bool routed)
{
    const std::vector<float>& limits = routed ? h.swigluClampExperts : h.swigluClampShared;
    return limits.empty() ? 0.0f : limits[static_cast<std::size_t>(layer)];
}

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
    // Optional biases where the block has them (build_ffn's up_b, gate_b, down_b).
    const bool biases = h.block->denseFeedForward.allowsBiases;
    const auto bias = [&](const char* name, std::int64_t length) {
        return biases ? c.layerBias(layer, name, length) : Result<WeightMatrix>(WeightMatrix{});
    };
    auto gate = c.layerWeight(layer, names.gate, {width, ff, 1});
    auto up = c.layerWeight(layer, names.up, {width, ff, 1});
    auto gateBias = bias(names.gate, ff);
    auto upBias = bias(names.up, ff);
    for (const Result<WeightMatrix>* w : {&gate, &up, &gateBias, &upBias})
        if (!*w)
            return w->error();
    c.noteHeld(gate->heldBytes() + up->heldBytes());
    c.project(normed, c.tokens, *gate, *gateBias, g);
    c.project(normed, c.tokens, *up, *upBias, u);
    c.recycle({&gate, &up, &gateBias, &upBias});
    auto down = c.layerWeight(layer, names.down, {ff, width, 1});
    auto downBias = bias(names.down, width);
    for (const Result<WeightMatrix>* w : {&down, &downBias})
        if (!*w)
            return w->error();
    c.noteHeld(down->heldBytes());
    applyGatedActivation(h.block->activation, g.data(), u.data(), c.tokens, ff, c.options.emulatesLlamaCpp(), swigluLimit(h, layer, false));
    c.project(g, c.tokens, *down, *downBias, out);
    c.recycle({&down, &downBias});
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
    const std::int64_t ff = h.layerShape(layer).feedForwardLength;
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
    applyGatedActivation(h.block->activation, g.data(), u.data(), c.tokens, ff, c.options.emulatesLlamaCpp(), swigluLimit(h, layer, false));
    c.project(g, c.tokens, *down, WeightMatrix{}, out);
    c.recycle({&down});
    return Ok{};
}

namespace {

// One expert's product. ggml's MUL_MAT_ID sums an f32 or f16 expert row by row with the type's
// vec_dot (ggml_vec_dot_f32, or ggml_vec_dot_f16 of the activations rounded to f16), not with
// tinyBLAS as MUL_MAT does; that is followed when emulating llama.cpp's arithmetic. A last-bit
// difference there moves the next layer's router now and then (tiny-moe F16: 11 of 128
// positions) and turns into a whole f16 step through the f16 GELU table.
void expertProduct(const PassContext& c, const float* x, std::int64_t n, const WeightMatrix& w, float* y)
{
    const bool f32 = w.storedType == 0 && w.activationRounding == ActivationRounding::None;
    const bool f16 = w.storedType == 1 && w.activationRounding == ActivationRounding::F16;
    if (!c.options.emulatesLlamaCpp() || !(f32 || f16)) {
        multiplyWeights(x, n, w, c.accumulation, y);
        return;
    }
    std::vector<float> rounded;
    if (f16) {
        rounded.assign(x, x + n * w.columns);
        roundActivations(ActivationRounding::F16, rounded, w.columns);
        x = rounded.data();
    }
    // A deferred matrix is read a tile of rows at a time, as the other products read it.
    constexpr std::int64_t kTileRows = 64;
    std::vector<float> tile;
    for (std::int64_t first = 0; first < w.rows; first += kTileRows) {
        const std::int64_t count = std::min(kTileRows, w.rows - first);
        const float* rows = nullptr;
        if (w.deferred()) {
            tile.resize(static_cast<std::size_t>(count * w.columns));
            const auto begin = w.sourceRowBegin + static_cast<std::uint64_t>(first);
            if (!dequantizeRows(*w.source, begin, begin + static_cast<std::uint64_t>(count), tile, WeightValues::Stored))
                std::fill(tile.begin(), tile.end(), std::numeric_limits<float>::quiet_NaN());  // as MatrixProduct does
            rows = tile.data();
        } else {
            rows = w.data() + first * w.columns;
        }
        for (std::int64_t t = 0; t < n; ++t)
            for (std::int64_t r = 0; r < count; ++r)
                y[t * w.rows + first + r] = (f16 ? vecDotF16 : vecDotF32)(rows + r * w.columns, x + t * w.columns, w.columns);
    }
    applyOutputScale(w, n, y);
}

// An expert some tokens were routed to: its index and those slots (t * used + s).
struct RoutedExpert {
    std::int64_t index = 0;
    std::vector<std::int64_t> slots;
};

// Whether a matrix's products read its stored rows in place on the calling thread (a deferred
// lane product or integer product, MatrixProduct.h): no f32 copy is made, and nothing is shared
// with other tasks.
bool readsInPlace(const WeightMatrix& w)
{
    if (!w.deferred())
        return false;
    return w.integerProduct || w.columns % 8 == 0;
}

// The routed experts of one layer on `input`, given the router's choice: each expert's gated FFN
// (ffn_gate_exps + ffn_up_exps, or one fused ffn_gate_up_exps with the gate rows first), optional
// per-expert biases (gpt-oss) and output scales (ffn_down_exps.scale, gemma4), weighted and summed
// over the slots in ggml's order.
Status routedExperts(PassContext& c, std::int64_t layer, const std::vector<float>& input, const std::vector<std::int32_t>& selected,
                     const std::vector<float>& weights, std::vector<float>& out)
{
    const auto& h = c.h;
    const std::int64_t width = h.embeddingLength;
    const std::int64_t ff = h.expertFeedForwardLength;
    const std::int64_t experts = h.expertCount;
    const std::int64_t used = h.expertUsedCount;
    const bool weightsOnInput = h.block->experts.weightsOnInput;

    const std::string gateUpName = layerTensorName(layer, "ffn_gate_up_exps");
    const bool fused = c.loader.model().findTensor(gateUpName) != nullptr;
    const std::string gateName = layerTensorName(layer, "ffn_gate_exps");
    const std::string upName = layerTensorName(layer, "ffn_up_exps");
    const std::string downName = layerTensorName(layer, "ffn_down_exps");
    std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> shapes;
    if (fused)
        shapes = {{gateUpName, width, 2 * ff}, {downName, ff, width}};
    else
        shapes = {{gateName, width, ff}, {upName, width, ff}, {downName, ff, width}};
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
    // Scales per expert (gemma4's ffn_down_exps.scale, NVFP4's) are the loader's: each expert's
    // product is multiplied by its own (WeightMatrix::outputScale), before the bias.
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

    // Each expert's tokens gathered, its FFN run, and each (token, slot) output kept, so the
    // slots are summed in ggml's order (slot 0 + slot 1 + ...).
    std::vector<float> slotOut(static_cast<std::size_t>(c.tokens * used * width), 0.0f);
    std::vector<RoutedExpert> routed;
    for (std::int64_t e = 0; e < experts; ++e) {
        RoutedExpert expert{e, {}};
        for (std::int64_t i = 0; i < c.tokens * used; ++i)
            if (selected[static_cast<std::size_t>(i)] == e)
                expert.slots.push_back(i);
        if (!expert.slots.empty())
            routed.push_back(std::move(expert));
    }
    // An expert's gated hidden rows (its tokens gathered, gate and up, or the fused gate_up with
    // `up` null, biases, activation), then its down product weighted into its slots. Two steps,
    // so that one at a time the gate and up copies are recycled before down is loaded.
    const auto gatedHidden = [&](const RoutedExpert& expert, const WeightMatrix& gateOrBoth, const WeightMatrix* up) {
        const auto n = static_cast<std::int64_t>(expert.slots.size());
        std::vector<float> x(static_cast<std::size_t>(n * width));
        for (std::int64_t r = 0; r < n; ++r) {
            const std::int64_t slot = expert.slots[static_cast<std::size_t>(r)];
            std::copy_n(input.begin() + slot / used * width, width, x.begin() + r * width);
            if (weightsOnInput)  // ffn_moe_weighted: the repeated input times the slot's weight
                for (std::int64_t i = 0; i < width; ++i)
                    x[static_cast<std::size_t>(r * width + i)] *= weights[static_cast<std::size_t>(slot)];
        }
        std::vector<float> g(static_cast<std::size_t>(n * ff)), u(g.size());
        if (!up) {
            std::vector<float> both(static_cast<std::size_t>(n * 2 * ff));
            observeExpertProduct(c.options.matmulInputs, gateUpName, expert.index, experts, x.data(), expert.slots, used, width);
            expertProduct(c, x.data(), n, gateOrBoth, both.data());
            for (std::int64_t r = 0; r < n; ++r) {
                std::copy_n(both.begin() + r * 2 * ff, ff, g.begin() + r * ff);
                std::copy_n(both.begin() + r * 2 * ff + ff, ff, u.begin() + r * ff);
            }
        } else {
            observeExpertProduct(c.options.matmulInputs, gateName, expert.index, experts, x.data(), expert.slots, used, width);
            expertProduct(c, x.data(), n, gateOrBoth, g.data());
            observeExpertProduct(c.options.matmulInputs, upName, expert.index, experts, x.data(), expert.slots, used, width);
            expertProduct(c, x.data(), n, *up, u.data());
        }
        addBias(upBias, expert.index, u, n, ff);
        addBias(gateBias, expert.index, g, n, ff);
        applyGatedActivation(h.block->activation, g.data(), u.data(), n, ff, c.options.emulatesLlamaCpp(), swigluLimit(h, layer, true));
        return g;
    };
    const auto downIntoSlots = [&](const RoutedExpert& expert, const std::vector<float>& g, const WeightMatrix& down) {
        const std::int64_t e = expert.index;
        const auto n = static_cast<std::int64_t>(expert.slots.size());
        std::vector<float> d(static_cast<std::size_t>(n * width));
        observeExpertProduct(c.options.matmulInputs, downName, e, experts, g.data(), expert.slots, used, ff);
        expertProduct(c, g.data(), n, down, d.data());
        addBias(downBias, e, d, n, width);
        for (std::int64_t r = 0; r < n; ++r) {
            const std::int64_t slot = expert.slots[static_cast<std::size_t>(r)];
            const float w = weights[static_cast<std::size_t>(slot)];
            float* target = slotOut.data() + slot * width;
            for (std::int64_t i = 0; i < width; ++i)
                target[i] = weightsOnInput ? d[static_cast<std::size_t>(r * width + i)] : d[static_cast<std::size_t>(r * width + i)] * w;
        }
    };
    // An expert's matrices: m[0] gate (or the fused gate_up, m[1] then stays empty), m[1] up;
    // m[2] down.
    using ExpertMatrices = std::array<Result<WeightMatrix>, 3>;
    const auto noMatrices = [] { return ExpertMatrices{WeightMatrix{}, WeightMatrix{}, WeightMatrix{}}; };
    const auto loadGateUp = [&](std::int64_t e, ExpertMatrices& m) -> Status {
        const auto first = static_cast<std::uint64_t>(e);
        if (fused)
            m[0] = c.loader.loadRows(gateUpName, width, first * 2 * ff, (first + 1) * 2 * ff);
        else {
            m[0] = c.loader.loadRows(gateName, width, first * ff, (first + 1) * ff);
            m[1] = c.loader.loadRows(upName, width, first * ff, (first + 1) * ff);
        }
        return !m[0] ? Status{m[0].error()} : !m[1] ? Status{m[1].error()} : Status{Ok{}};
    };
    const auto loadDown = [&](std::int64_t e, ExpertMatrices& m) -> Status {
        const auto first = static_cast<std::uint64_t>(e);
        m[2] = c.loader.loadRows(downName, ff, first * width, (first + 1) * width);
        return !m[2] ? Status{m[2].error()} : Status{Ok{}};
    };
    const auto upOf = [&](ExpertMatrices& m) { return fused ? nullptr : &*m[1]; };

    // Experts side by side, one task each, when there are enough of them for the threads
    // (Qwen3-MoE routes 8 of 128 per token: about 8 tokens an expert at 128 tokens). Their
    // products are then too small to share out by rows, and waking the threads for each of an
    // expert's three products cost more than the products. Only for weights the tasks read in
    // place (deferred, no f32 copy made), so the memory stays one tile per thread; each product
    // sums in the same order either way.
    const auto threads = static_cast<std::size_t>(executorThreads(c.options.executor));
    bool sideBySide = threads > 1 && routed.size() >= 4 * threads && c.accumulation == Accumulation::Lanes;
    std::vector<ExpertMatrices> matrices;
    for (std::size_t i = 0; i < routed.size() && sideBySide; ++i) {
        matrices.push_back(noMatrices());
        if (Status loaded = loadGateUp(routed[i].index, matrices[i]); !loaded)
            return loaded;
        if (Status loaded = loadDown(routed[i].index, matrices[i]); !loaded)
            return loaded;
        for (Result<WeightMatrix>& w : matrices[i])
            if (w->present()) {
                sideBySide = sideBySide && readsInPlace(*w);
                w->executor = nullptr;  // the task's own thread
            }
    }
    if (sideBySide) {
        std::vector<RowRange> tasks;
        for (std::uint64_t i = 0; i < routed.size(); ++i)
            tasks.push_back({i, i + 1});
        forEachRange(c.options.executor, tasks, [&](RowRange task) {
            ExpertMatrices& m = matrices[task.begin];
            downIntoSlots(routed[task.begin], gatedHidden(routed[task.begin], *m[0], upOf(m)), *m[2]);
        });
    }
    for (ExpertMatrices& m : matrices)
        c.recycle({&m[0], &m[1], &m[2]});
    if (!sideBySide)
        for (const RoutedExpert& expert : routed) {
            if (c.cancelled())
                return Error{kForwardCancelled, Error::kNoOffset, {}};
            ExpertMatrices m = noMatrices();
            if (Status loaded = loadGateUp(expert.index, m); !loaded)
                return loaded;
            c.noteHeld(m[0]->heldBytes() + m[1]->heldBytes());
            const std::vector<float> g = gatedHidden(expert, *m[0], upOf(m));
            c.recycle({&m[0], &m[1]});
            if (Status loaded = loadDown(expert.index, m); !loaded)
                return loaded;
            c.noteHeld(m[2]->heldBytes());
            downIntoSlots(expert, g, *m[2]);
            c.recycle({&m[2]});
        }
    c.recycle({&gateBias, &upBias, &downBias});
    out.assign(input.size(), 0.0f);
    for (std::int64_t t = 0; t < c.tokens; ++t)
        for (std::int64_t s = 0; s < used; ++s) {
            const float* source = slotOut.data() + (t * used + s) * width;
            float* target = out.data() + t * width;
            for (std::int64_t i = 0; i < width; ++i)
                target[i] = s == 0 ? source[i] : target[i] + source[i];
        }
    return Ok{};
}

// gemma4's MoE layer: post_ffw_norm_1(dense(ffn_norm(x))) + post_ffw_norm_2(experts(pre_ffw_norm_2(x))),
// the router on rms_norm(x) / sqrt(n_embd) * ffn_gate_inp.scale.
Status runExpertsBesideDense(PassContext& c, std::int64_t layer, const std::vector<float>& residual, std::vector<float>& out,
                             std::vector<std::int32_t>& selected)
{
    const std::int64_t width = c.h.embeddingLength;
    auto denseInput = c.layerNormed(layer, "ffn_norm", residual);
    if (!denseInput)
        return denseInput.error();
    std::vector<float> dense;
    if (Status done = runDenseFeedForward(c, layer, *denseInput, dense); !done)
        return done;
    auto denseOut = c.layerNormed(layer, "post_ffw_norm_1", dense);
    if (!denseOut)
        return denseOut.error();

    auto inputScale = c.loader.load(layerTensorName(layer, "ffn_gate_inp", "scale"), {width, 1, 1});
    if (!inputScale)
        return inputScale.error();
    std::vector<float> routerInput(residual.size());
    rmsNormRows(residual.data(), c.tokens, width, {}, c.h.rmsEpsilon, routerInput.data());
    const float norm = 1.0f / std::sqrt(static_cast<float>(width));
    for (std::int64_t t = 0; t < c.tokens; ++t)
        for (std::int64_t i = 0; i < width; ++i) {
            float& x = routerInput[static_cast<std::size_t>(t * width + i)];
            x = (x * norm) * inputScale->data()[i];
        }
    c.recycle({&inputScale});
    std::vector<float> weights;
    if (Status routed = routeTokens(c, layer, routerInput, selected, weights); !routed)
        return routed;
    auto expertInput = c.layerNormed(layer, "pre_ffw_norm_2", residual);
    if (!expertInput)
        return expertInput.error();
    std::vector<float> moe;
    if (Status done = routedExperts(c, layer, *expertInput, selected, weights, moe); !done)
        return done;
    auto moeOut = c.layerNormed(layer, "post_ffw_norm_2", moe);
    if (!moeOut)
        return moeOut.error();
    out.resize(residual.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = (*denseOut)[i] + (*moeOut)[i];  // ffn_moe_combined
    return Ok{};
}

}  // namespace

Status runExpertFeedForward(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out,
                            std::vector<std::int32_t>& selected)
{
    std::vector<float> weights;
    if (Status routed = routeTokens(c, layer, normed, selected, weights); !routed)
        return routed;
    if (Status done = routedExperts(c, layer, normed, selected, weights, out); !done)
        return done;
    return addSharedExpert(c, layer, normed, out);
}

Status runFeedForwardBranch(PassContext& c, std::int64_t layer, const std::vector<float>& residual, std::vector<float>& out,
                            std::vector<std::int32_t>& selected)
{
    const BlockDescription& block = *c.h.block;
    if (block.expertsBesideDense && c.h.isExpertLayer(layer)) {
        // gemma4: a layer is MoE when it has a router (llama.cpp's is_moe_layer).
        if (c.loader.model().findTensor(layerTensorName(layer, "ffn_gate_inp")))
            return runExpertsBesideDense(c, layer, residual, out, selected);
        auto input = c.layerNormed(layer, "ffn_norm", residual);
        if (!input)
            return input.error();
        return runDenseFeedForward(c, layer, *input, out);
    }
    const std::string norm(block.feedForwardNorm);
    auto input = c.layerNormed(layer, norm.c_str(), residual);
    if (!input)
        return input.error();
    return c.h.isExpertLayer(layer) ? runExpertFeedForward(c, layer, *input, out, selected) : runDenseFeedForward(c, layer, *input, out);
}

}  // namespace gguf
