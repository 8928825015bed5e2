#include "forward/ForwardPass.h"

#include "forward/ForwardOps.h"
#include "forward/MatrixProduct.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <tuple>
#include <cmath>
#include <numeric>

namespace gguf {

std::span<const float> ForwardResult::logitsAt(std::int64_t position) const
{
    const auto width = static_cast<std::size_t>(hyperparameters.vocabularySize);
    return std::span<const float>(logits).subspan(static_cast<std::size_t>(position) * width, width);
}

std::span<const float> ForwardResult::hiddenAt(std::int64_t layer) const
{
    const auto size = static_cast<std::size_t>(tokenCount * hyperparameters.embeddingLength);
    return std::span<const float>(hidden).subspan(static_cast<std::size_t>(layer) * size, size);
}

namespace {

Error plainError(std::string message)
{
    return Error{std::move(message), Error::kNoOffset, {}};
}

Error cancelledError()
{
    return plainError(kForwardCancelled);
}

// Output rows dequantized at a time for the logits: bounds that matrix's f32 copy for large
// vocabularies (it is often the largest single tensor).
constexpr std::int64_t kOutputRowsPerChunk = 4096;

std::string layerTensor(std::int64_t layer, const char* name)
{
    return "blk." + std::to_string(layer) + "." + name + ".weight";
}

class PassRunner {
public:
    PassRunner(const Model& model, const ModelHyperparameters& h, const ForwardOptions& options)
        : m_h(h), m_options(options), m_loader(model, options.transform, options.emulateLlamaCppActivations),
          m_accumulation(options.accumulateInDouble ? Accumulation::Double : Accumulation::Float)
    {
    }

    Result<ForwardResult> run(std::span<const std::int32_t> tokens);

private:
    bool cancelled() const { return m_options.cancel && m_options.cancel->load(); }
    void noteHeld(std::uint64_t bytes) { m_peak = std::max(m_peak, bytes + m_loader.spareBytes()); }
    void recycle(std::initializer_list<Result<WeightMatrix>*> matrices)
    {
        for (Result<WeightMatrix>* m : matrices)
            if (*m)
                m_loader.recycle(std::move(m->value()));
    }
    static std::uint64_t bytesOf(const WeightMatrix& m) { return m.heldBytes(); }

    Status embed(std::span<const std::int32_t> tokens, std::vector<float>& residual);
    Status attention(std::int64_t layer, std::vector<float>& residual);
    Status denseFeedForward(std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out);
    Status expertFeedForward(std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out, std::vector<std::int32_t>& selected);
    Status feedForward(std::int64_t layer, std::vector<float>& residual, std::vector<std::int32_t>& selected);
    Status output(const std::vector<float>& residual, std::vector<float>& logits);

    const ModelHyperparameters& m_h;
    const ForwardOptions& m_options;
    WeightLoader m_loader;
    Accumulation m_accumulation;
    std::int64_t m_tokens = 0;
    std::uint64_t m_peak = 0;
};

Status PassRunner::embed(std::span<const std::int32_t> tokens, std::vector<float>& residual)
{
    const std::int64_t width = m_h.embeddingLength;
    residual.assign(static_cast<std::size_t>(m_tokens * width), 0.0f);
    for (std::int64_t t = 0; t < m_tokens; ++t) {
        const auto id = static_cast<std::uint64_t>(tokens[static_cast<std::size_t>(t)]);
        auto row = m_loader.loadRows("token_embd.weight", width, id, id + 1);
        if (!row)
            return row.error();
        std::copy_n(row->data(), width, residual.begin() + t * width);
        m_loader.recycle(std::move(*row));
    }
    return Ok{};
}

Status PassRunner::attention(std::int64_t layer, std::vector<float>& residual)
{
    const std::int64_t width = m_h.embeddingLength;
    const std::int64_t qWidth = m_h.headCount * m_h.headDimension;
    const std::int64_t kvWidth = m_h.headCountKv * m_h.headDimension;
    auto norm = m_loader.load(layerTensor(layer, "attn_norm"), {width, 1, 1});
    auto wq = m_loader.load(layerTensor(layer, "attn_q"), {width, qWidth, 1});
    auto wk = m_loader.load(layerTensor(layer, "attn_k"), {width, kvWidth, 1});
    auto wv = m_loader.load(layerTensor(layer, "attn_v"), {width, kvWidth, 1});
    auto wo = m_loader.load(layerTensor(layer, "attn_output"), {qWidth, width, 1});
    for (const Result<WeightMatrix>* w : {&norm, &wq, &wk, &wv, &wo})
        if (!*w)
            return w->error();
    auto freqs = m_loader.load("rope_freqs.weight", {m_h.ropeDimensions / 2, 1, 1}, false);
    if (!freqs)
        return freqs.error();
    noteHeld(bytesOf(*norm) + bytesOf(*wq) + bytesOf(*wk) + bytesOf(*wv) + bytesOf(*wo) + bytesOf(*freqs));

    std::vector<float> normed(residual.size());
    rmsNormRows(residual.data(), m_tokens, width, norm->view(), m_h.rmsEpsilon, normed.data());
    std::vector<float> q(static_cast<std::size_t>(m_tokens * qWidth)), k(static_cast<std::size_t>(m_tokens * kvWidth)), v(k.size());
    multiplyWeights(normed.data(), m_tokens, *wq, m_accumulation, q.data());
    multiplyWeights(normed.data(), m_tokens, *wk, m_accumulation, k.data());
    multiplyWeights(normed.data(), m_tokens, *wv, m_accumulation, v.data());
    const RopeParameters rope{m_h.block->rope, m_h.ropeDimensions, m_h.ropeFreqBase, m_h.ropeFreqScale, freqs->view()};
    applyRope(q.data(), m_tokens, m_h.headCount, m_h.headDimension, rope);
    applyRope(k.data(), m_tokens, m_h.headCountKv, m_h.headDimension, rope);
    const float scale = m_h.attentionScale != 0.0f ? m_h.attentionScale : 1.0f / std::sqrt(static_cast<float>(m_h.headDimension));
    std::vector<float> mixed(q.size());
    causalAttention(q.data(), k.data(), v.data(), m_tokens, m_h.headCount, m_h.headCountKv, m_h.headDimension, scale, mixed.data());
    std::vector<float> projected(residual.size());
    multiplyWeights(mixed.data(), m_tokens, *wo, m_accumulation, projected.data());
    for (std::size_t i = 0; i < residual.size(); ++i)
        residual[i] = projected[i] + residual[i];  // ffn_inp = attn_out + inpSA
    recycle({&norm, &wq, &wk, &wv, &wo, &freqs});
    return Ok{};
}

Status PassRunner::denseFeedForward(std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out)
{
    const std::int64_t width = m_h.embeddingLength;
    const std::int64_t ff = m_h.feedForwardLength;
    auto gate = m_loader.load(layerTensor(layer, "ffn_gate"), {width, ff, 1});
    auto up = m_loader.load(layerTensor(layer, "ffn_up"), {width, ff, 1});
    auto down = m_loader.load(layerTensor(layer, "ffn_down"), {ff, width, 1});
    for (const Result<WeightMatrix>* w : {&gate, &up, &down})
        if (!*w)
            return w->error();
    noteHeld(bytesOf(*gate) + bytesOf(*up) + bytesOf(*down));
    std::vector<float> g(static_cast<std::size_t>(m_tokens * ff)), u(g.size());
    multiplyWeights(normed.data(), m_tokens, *gate, m_accumulation, g.data());
    multiplyWeights(normed.data(), m_tokens, *up, m_accumulation, u.data());
    swiglu(g.data(), u.data(), m_tokens, ff);
    out.assign(normed.size(), 0.0f);
    multiplyWeights(g.data(), m_tokens, *down, m_accumulation, out.data());
    recycle({&gate, &up, &down});
    return Ok{};
}

Status PassRunner::expertFeedForward(std::int64_t layer, const std::vector<float>& normed, std::vector<float>& out,
                                     std::vector<std::int32_t>& selected)
{
    const std::int64_t width = m_h.embeddingLength;
    const std::int64_t ff = m_h.feedForwardLength;
    const std::int64_t experts = m_h.expertCount;
    const std::int64_t used = m_h.expertUsedCount;
    auto router = m_loader.load(layerTensor(layer, "ffn_gate_inp"), {width, experts, 1});
    if (!router)
        return router.error();
    std::vector<float> probs(static_cast<std::size_t>(m_tokens * experts));
    multiplyWeights(normed.data(), m_tokens, *router, m_accumulation, probs.data());
    softmaxRows(probs.data(), m_tokens, experts);

    // Top-k by probability (ggml_argsort descending, then the first k), weights renormalised.
    std::vector<float> weights(static_cast<std::size_t>(m_tokens * used));
    std::vector<std::int64_t> order(static_cast<std::size_t>(experts));
    for (std::int64_t t = 0; t < m_tokens; ++t) {
        const float* p = probs.data() + t * experts;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return p[a] > p[b]; });
        float sum = 0.0f;
        for (std::int64_t s = 0; s < used; ++s) {
            selected[static_cast<std::size_t>(t * used + s)] = static_cast<std::int32_t>(order[static_cast<std::size_t>(s)]);
            weights[static_cast<std::size_t>(t * used + s)] = p[order[static_cast<std::size_t>(s)]];
            sum += p[order[static_cast<std::size_t>(s)]];
        }
        if (m_h.block->normalizeExpertWeights)
            for (std::int64_t s = 0; s < used; ++s)
                weights[static_cast<std::size_t>(t * used + s)] /= std::max(sum, 6.103515625e-5f);
        if (m_h.expertWeightsScale != 0.0f)
            for (std::int64_t s = 0; s < used; ++s)
                weights[static_cast<std::size_t>(t * used + s)] *= m_h.expertWeightsScale;
    }

    // One expert at a time: gather its tokens, run its FFN, keep each (token, slot) output so
    // the slots are summed in ggml's order (slot 0 + slot 1 + ...).
    std::vector<float> slotOut(static_cast<std::size_t>(m_tokens * used * width), 0.0f);
    const std::string gateName = layerTensor(layer, "ffn_gate_exps");
    const std::string upName = layerTensor(layer, "ffn_up_exps");
    const std::string downName = layerTensor(layer, "ffn_down_exps");
    const std::array<std::tuple<const std::string&, std::int64_t, std::int64_t>, 3> shapes{
        {{gateName, width, ff}, {upName, width, ff}, {downName, ff, width}}};
    for (const auto& [name, columns, rows] : shapes) {
        const TensorInfo* tensor = m_loader.model().findTensor(name);
        if (!tensor)
            return Error{"the forward pass needs tensor " + name, Error::kNoOffset, m_loader.model().primary().path()};
        if (tensor->ne[0] != columns || tensor->ne[1] != rows || tensor->ne[2] != experts || tensor->ne[3] != 1)
            return Error{"tensor " + name + " must have shape [" + std::to_string(columns) + ", " + std::to_string(rows) + ", "
                             + std::to_string(experts) + "]",
                         tensor->infoOffset, m_loader.model().primary().path()};
    }
    for (std::int64_t e = 0; e < experts; ++e) {
        if (cancelled())
            return cancelledError();
        std::vector<std::int64_t> slots;  // t * used + s for every slot routed to e
        for (std::int64_t i = 0; i < m_tokens * used; ++i)
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
        auto gate = m_loader.loadRows(gateName, width, first * ff, (first + 1) * ff);
        auto up = m_loader.loadRows(upName, width, first * ff, (first + 1) * ff);
        auto down = m_loader.loadRows(downName, ff, first * width, (first + 1) * width);
        for (const Result<WeightMatrix>* w : {&gate, &up, &down})
            if (!*w)
                return w->error();
        noteHeld(bytesOf(*router) + bytesOf(*gate) + bytesOf(*up) + bytesOf(*down));
        std::vector<float> g(static_cast<std::size_t>(n * ff)), u(g.size()), d(x.size());
        multiplyWeights(x.data(), n, *gate, m_accumulation, g.data());
        multiplyWeights(x.data(), n, *up, m_accumulation, u.data());
        swiglu(g.data(), u.data(), n, ff);
        multiplyWeights(g.data(), n, *down, m_accumulation, d.data());
        for (std::int64_t r = 0; r < n; ++r) {
            const std::int64_t slot = slots[static_cast<std::size_t>(r)];
            const float w = weights[static_cast<std::size_t>(slot)];
            float* target = slotOut.data() + slot * width;
            for (std::int64_t i = 0; i < width; ++i)
                target[i] = d[static_cast<std::size_t>(r * width + i)] * w;
        }
        recycle({&gate, &up, &down});
    }
    recycle({&router});
    out.assign(normed.size(), 0.0f);
    for (std::int64_t t = 0; t < m_tokens; ++t)
        for (std::int64_t s = 0; s < used; ++s) {
            const float* source = slotOut.data() + (t * used + s) * width;
            float* target = out.data() + t * width;
            for (std::int64_t i = 0; i < width; ++i)
                target[i] = s == 0 ? source[i] : target[i] + source[i];
        }
    return Ok{};
}

Status PassRunner::feedForward(std::int64_t layer, std::vector<float>& residual, std::vector<std::int32_t>& selected)
{
    auto norm = m_loader.load(layerTensor(layer, "ffn_norm"), {m_h.embeddingLength, 1, 1});
    if (!norm)
        return norm.error();
    std::vector<float> normed(residual.size());
    rmsNormRows(residual.data(), m_tokens, m_h.embeddingLength, norm->view(), m_h.rmsEpsilon, normed.data());
    std::vector<float> out;
    recycle({&norm});
    Status done = m_h.isMixtureOfExperts() ? expertFeedForward(layer, normed, out, selected) : denseFeedForward(layer, normed, out);
    if (!done)
        return done;
    for (std::size_t i = 0; i < residual.size(); ++i)
        residual[i] = out[i] + residual[i];  // l_out = ffn_out + ffn_inp
    return Ok{};
}

Status PassRunner::output(const std::vector<float>& residual, std::vector<float>& logits)
{
    const std::int64_t width = m_h.embeddingLength;
    auto norm = m_loader.load("output_norm.weight", {width, 1, 1});
    if (!norm)
        return norm.error();
    std::vector<float> normed(residual.size());
    rmsNormRows(residual.data(), m_tokens, width, norm->view(), m_h.rmsEpsilon, normed.data());
    recycle({&norm});
    const std::string name = m_h.tiedOutput ? "token_embd.weight" : "output.weight";
    auto rows = m_loader.matrixRows(name, width);
    if (!rows)
        return rows.error();
    if (*rows != m_h.vocabularySize)
        return Error{name + " must have " + std::to_string(m_h.vocabularySize) + " rows (the vocabulary)", Error::kNoOffset,
                     m_loader.model().primary().path()};
    const std::int64_t vocabulary = m_h.vocabularySize;
    logits.assign(static_cast<std::size_t>(m_tokens * vocabulary), 0.0f);
    for (std::int64_t first = 0; first < vocabulary; first += kOutputRowsPerChunk) {
        if (cancelled())
            return cancelledError();
        const std::int64_t last = std::min(vocabulary, first + kOutputRowsPerChunk);
        auto chunk = m_loader.loadRows(name, width, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(last));
        if (!chunk)
            return chunk.error();
        noteHeld(bytesOf(*chunk));
        multiplyWeights(normed.data(), m_tokens, chunk->data(), chunk->rows, width, chunk->activationRounding, m_accumulation,
                        logits.data() + first, vocabulary);
        recycle({&chunk});
    }
    return Ok{};
}

Result<ForwardResult> PassRunner::run(std::span<const std::int32_t> tokens)
{
    m_tokens = static_cast<std::int64_t>(tokens.size());
    ForwardResult result;
    result.hyperparameters = m_h;
    result.tokenCount = m_tokens;
    const std::int64_t steps = m_h.layerCount + 1;
    std::vector<float> residual;
    if (Status done = embed(tokens, residual); !done)
        return done.error();
    if (m_options.keepHiddenStates)
        result.hidden.reserve(static_cast<std::size_t>(m_h.layerCount) * residual.size());
    std::vector<std::int32_t> selected(static_cast<std::size_t>(m_tokens * m_h.expertUsedCount));
    for (std::int64_t layer = 0; layer < m_h.layerCount; ++layer) {
        if (cancelled())
            return cancelledError();
        if (Status done = attention(layer, residual); !done)
            return done.error();
        if (cancelled())
            return cancelledError();
        if (Status done = feedForward(layer, residual, selected); !done)
            return done.error();
        if (m_options.keepHiddenStates)
            result.hidden.insert(result.hidden.end(), residual.begin(), residual.end());
        if (m_h.isMixtureOfExperts())
            result.selectedExperts.insert(result.selectedExperts.end(), selected.begin(), selected.end());
        if (m_options.progress)
            m_options.progress(layer + 1, steps);
    }
    if (Status done = output(residual, result.logits); !done)
        return done.error();
    if (m_options.progress)
        m_options.progress(steps, steps);
    result.peakWeightBytes = m_peak;
    return result;
}

}  // namespace

Result<ForwardResult> runForward(const Model& model, std::span<const std::int32_t> tokens, const ForwardOptions& options)
{
    auto h = readHyperparameters(model);
    if (!h)
        return h.error();
    if (tokens.empty())
        return plainError("no tokens to run");
    if (static_cast<std::int64_t>(tokens.size()) > kMaxForwardTokens)
        return plainError("at most " + std::to_string(kMaxForwardTokens) + " tokens per pass (got " + std::to_string(tokens.size()) + ")");
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i] < 0 || tokens[i] >= h->vocabularySize)
            return plainError("token " + std::to_string(tokens[i]) + " at position " + std::to_string(i) + " is outside the vocabulary (0.."
                         + std::to_string(h->vocabularySize - 1) + ")");
    PassRunner runner(model, *h, options);
    return runner.run(tokens);
}

}  // namespace gguf
