#include "core/forward/RecurrentStep.h"

#include "core/forward/ForwardOps.h"
#include "core/forward/GgmlVectorMath.h"

#include <cmath>
#include <string_view>

namespace gguf {

namespace {

// ggml_ssm_conv then ggml_silu: channel c at position t is sum_i in[t - (K-1) + i][c] * w[c][i]
// (summed in float in that order, zeros before the sequence), then SiLU (ggml's vector SiLU on
// groups of 8 of each row).
std::vector<float> convolveAndActivate(const std::vector<float>& in, std::int64_t tokens, std::int64_t channels, const float* kernel,
                                       std::int64_t width)
{
    std::vector<float> out(in.size());
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t ch = 0; ch < channels; ++ch) {
            float sum = 0.0f;
            for (std::int64_t i = 0; i < width; ++i) {
                const std::int64_t source = t - (width - 1) + i;
                const float x = source >= 0 ? in[static_cast<std::size_t>(source * channels + ch)] : 0.0f;
                sum += x * kernel[ch * width + i];
            }
            out[static_cast<std::size_t>(t * channels + ch)] = sum;
        }
    const std::int64_t vectorWidth = channels / 8 * 8;
    for (std::int64_t t = 0; t < tokens; ++t) {
        float* row = out.data() + t * channels;
        for (std::int64_t i = 0; i < vectorWidth; ++i)
            row[i] = ggmlSilu(row[i]);
        for (std::int64_t i = vectorWidth; i < channels; ++i)
            row[i] = row[i] / (1.0f + std::exp(-row[i]));
    }
    return out;
}

// ggml_l2_norm of each `size` values: x / max(sqrt(sum x^2), eps), the squares summed in double.
void l2NormRows(float* x, std::int64_t rows, std::int64_t size, float epsilon)
{
    for (std::int64_t r = 0; r < rows; ++r) {
        float* row = x + r * size;
        double sum = 0.0;
        for (std::int64_t i = 0; i < size; ++i)
            sum += static_cast<double>(row[i] * row[i]);
        const float scale = 1.0f / std::fmax(std::sqrt(static_cast<float>(sum)), epsilon);
        for (std::int64_t i = 0; i < size; ++i)
            row[i] *= scale;
    }
}

// Qwen3-Next's ssm_ba product [T, 2 x value heads], per key head g its value heads' betas then
// their alphas, into beta and alpha [T, value heads] (value head g * r + i, r = value / key heads).
void splitBetaAlpha(std::vector<float>& fused, std::int64_t tokens, std::int64_t keyHeads, std::int64_t valueHeads, std::vector<float>& alpha)
{
    const std::int64_t r = valueHeads / keyHeads;
    std::vector<float> beta(static_cast<std::size_t>(tokens * valueHeads));
    alpha.assign(beta.size(), 0.0f);
    for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t g = 0; g < keyHeads; ++g)
            for (std::int64_t i = 0; i < r; ++i) {
                const auto to = static_cast<std::size_t>(t * valueHeads + g * r + i);
                beta[to] = fused[static_cast<std::size_t>(t * 2 * valueHeads + g * 2 * r + i)];
                alpha[to] = fused[static_cast<std::size_t>(t * 2 * valueHeads + g * 2 * r + r + i)];
            }
    fused = std::move(beta);
}

}  // namespace

Status runGatedDeltaNet(PassContext& c, std::int64_t layer, const std::vector<float>& normed, std::int64_t from, std::vector<float>& out)
{
    const auto& h = c.h;
    const std::int64_t width = h.embeddingLength;
    const std::int64_t S = h.ssmStateSize;
    const std::int64_t keyHeads = h.ssmGroupCount;
    const std::int64_t valueHeads = h.ssmTimeStepRank;
    const std::int64_t inner = h.ssmInnerSize;
    const std::int64_t keyWidth = keyHeads * S;
    const std::int64_t channels = 2 * keyWidth + inner;
    const std::int64_t T = c.tokens;

    const bool grouped = h.block->hybrid.deltaNetGroupedHeads;
    auto wqkv = c.layerWeight(layer, "attn_qkv", {width, channels, 1});
    auto wgate = c.layerWeight(layer, "attn_gate", {width, inner, 1});
    // Qwen3-Next's one ssm_ba, or Qwen3.5's ssm_beta and ssm_alpha.
    auto wbeta = c.layerWeight(layer, grouped ? "ssm_ba" : "ssm_beta", {width, grouped ? 2 * valueHeads : valueHeads, 1});
    auto walpha = grouped ? Result<WeightMatrix>(WeightMatrix{}) : c.layerWeight(layer, "ssm_alpha", {width, valueHeads, 1});
    auto dtBias = c.loader.load(layerTensorName(layer, "ssm_dt", "bias"), {valueHeads, 1, 1});
    auto decay = c.loader.load("blk." + std::to_string(layer) + ".ssm_a", {valueHeads, 1, 1});
    auto kernel = c.layerWeight(layer, "ssm_conv1d", {h.ssmConvKernel, channels, 1});
    for (const Result<WeightMatrix>* w : {&wqkv, &wgate, &wbeta, &walpha, &dtBias, &decay, &kernel})
        if (!*w)
            return w->error();
    c.noteHeld(wqkv->heldBytes() + wgate->heldBytes() + wbeta->heldBytes() + walpha->heldBytes() + kernel->heldBytes());
    std::vector<float> mixed, z, beta, alpha;
    c.project(normed, T, *wqkv, WeightMatrix{}, mixed);
    c.projectRowsFrom(normed, from, *wgate, WeightMatrix{}, z);  // the output gate: only the rows kept
    c.project(normed, T, *wbeta, WeightMatrix{}, beta);
    if (grouped)
        splitBetaAlpha(beta, T, keyHeads, valueHeads, alpha);
    else
        c.project(normed, T, *walpha, WeightMatrix{}, alpha);
    sigmoid(beta.data(), beta.size());
    // g = softplus(alpha + dt_bias) * ssm_a (ssm_a = -exp(A_log)); softplus is ggml's:
    // x > 20 ? x : log(1 + exp(x)).
    for (std::int64_t t = 0; t < T; ++t)
        for (std::int64_t head = 0; head < valueHeads; ++head) {
            float& g = alpha[static_cast<std::size_t>(t * valueHeads + head)];
            const float x = g + dtBias->data()[head];
            g = (x > 20.0f ? x : std::log(1.0f + std::exp(x))) * decay->data()[head];
        }
    const std::vector<float> activated = convolveAndActivate(mixed, T, channels, kernel->data(), h.ssmConvKernel);
    c.recycle({&wqkv, &wgate, &wbeta, &walpha, &dtBias, &decay, &kernel});

    std::vector<float> q(static_cast<std::size_t>(T * keyWidth)), k(q.size()), v(static_cast<std::size_t>(T * inner));
    for (std::int64_t t = 0; t < T; ++t) {
        const auto row = activated.begin() + t * channels;
        std::copy_n(row, keyWidth, q.begin() + t * keyWidth);
        std::copy_n(row + keyWidth, keyWidth, k.begin() + t * keyWidth);
        std::copy_n(row + 2 * keyWidth, inner, v.begin() + t * inner);
    }
    l2NormRows(q.data(), T * keyHeads, S, h.rmsEpsilon);
    l2NormRows(k.data(), T * keyHeads, S, h.rmsEpsilon);

    // The gated delta rule per value head (ggml_gated_delta_net), its state M stored as ggml's
    // transposed [S_v rows j][S_k columns i], starting at zero:
    //   M *= exp(g); delta_j = (v_j - M_j . k) * beta; M_j += delta_j k; out_j = (M_j . q) / sqrt(S).
    std::vector<float> attention(static_cast<std::size_t>(T * inner));
    const float scale = 1.0f / std::sqrt(static_cast<float>(S));
    std::vector<float> state(static_cast<std::size_t>(S * S)), delta(static_cast<std::size_t>(S));
    for (std::int64_t head = 0; head < valueHeads; ++head) {
        const std::int64_t keyHead = grouped ? head / (valueHeads / keyHeads) : head % keyHeads;
        std::fill(state.begin(), state.end(), 0.0f);
        for (std::int64_t t = 0; t < T; ++t) {
            const float* qt = q.data() + (t * keyHeads + keyHead) * S;
            const float* kt = k.data() + (t * keyHeads + keyHead) * S;
            const float* vt = v.data() + (t * valueHeads + head) * S;
            const float b = beta[static_cast<std::size_t>(t * valueHeads + head)];
            const float factor = std::exp(alpha[static_cast<std::size_t>(t * valueHeads + head)]);
            for (float& m : state)
                m *= factor;
            for (std::int64_t j = 0; j < S; ++j) {
                double dot = 0.0;
                for (std::int64_t i = 0; i < S; ++i)
                    dot += static_cast<double>(state[static_cast<std::size_t>(j * S + i)]) * kt[i];
                delta[static_cast<std::size_t>(j)] = (vt[j] - static_cast<float>(dot)) * b;
            }
            for (std::int64_t j = 0; j < S; ++j)
                for (std::int64_t i = 0; i < S; ++i) {
                    float& m = state[static_cast<std::size_t>(j * S + i)];
                    m = std::fma(kt[i], delta[static_cast<std::size_t>(j)], m);
                }
            float* o = attention.data() + (t * valueHeads + head) * S;
            for (std::int64_t j = 0; j < S; ++j) {
                double dot = 0.0;
                for (std::int64_t i = 0; i < S; ++i)
                    dot += static_cast<double>(state[static_cast<std::size_t>(j * S + i)]) * qt[i];
                o[j] = static_cast<float>(dot) * scale;
            }
        }
    }

    // RMSNorm per value head (ssm_norm [S]) times SiLU(z), then ssm_out.
    auto norm = c.layerWeight(layer, "ssm_norm", {S, 1, 1});
    auto wout = c.layerWeight(layer, "ssm_out", {inner, width, 1});
    for (const Result<WeightMatrix>* w : {&norm, &wout})
        if (!*w)
            return w->error();
    c.noteHeld(wout->heldBytes());
    rmsNormRows(attention.data(), T * valueHeads, S, norm->view(), h.rmsEpsilon, attention.data());
    const std::int64_t vectorWidth = inner / 8 * 8;
    for (std::int64_t t = 0; t < T; ++t)
        for (std::int64_t i = 0; i < inner; ++i) {
            const float zi = z[static_cast<std::size_t>(t * inner + i)];
            const float silu = i < vectorWidth ? ggmlSilu(zi) : zi / (1.0f + std::exp(-zi));
            attention[static_cast<std::size_t>(t * inner + i)] *= silu;
        }
    c.projectRowsFrom(attention, from, *wout, WeightMatrix{}, out);
    c.recycle({&norm, &wout});
    return Ok{};
}

}  // namespace gguf
