#include "core/forward/ForwardPass.h"

#include "core/forward/AttentionStep.h"
#include "core/forward/FeedForwardStep.h"
#include "core/forward/LatentAttentionStep.h"
#include "core/forward/MatmulInputObserver.h"
#include "core/forward/ForwardOps.h"
#include "core/forward/PassContext.h"
#include "core/forward/PerLayerInputStep.h"
#include "core/forward/RecurrentStep.h"
#include "core/forward/ShortConvStep.h"

#include <algorithm>
#include <cmath>

namespace gguf {

std::string attentionArithmeticName(const ForwardOptions& options)
{
    return options.emulatesLlamaCpp() ? kvCacheSettingsName(options.kvCache) : "K f32, V f32, plain f32 attention";
}

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

// Runs the steps of every layer in llama.cpp's order: attention branch (+ post-norm) added to
// the residual stream, then the FFN branch (+ post-norm) added to it.
class PassRunner {
public:
    PassRunner(const Model& model, const ModelHyperparameters& h, const ForwardOptions& options) : m_c(model, h, options) {}

    Result<ForwardResult> run(std::span<const std::int32_t> tokens);

private:
    Status embed(std::span<const std::int32_t> tokens, std::vector<float>& residual);
    Status layer(std::int64_t layer, std::vector<float>& residual, std::vector<std::int32_t>& selected);
    // The FFN branch, added, and the layer's end (finishLayer) on `rows` of the residual stream,
    // m_c.tokens of them, routing into `selected`.
    Status finishLayerRows(std::int64_t layer, std::vector<float>& rows, std::vector<std::int32_t>& selected);
    // finishLayerRows on the residual rows from `from` on.
    Status finishRowsFrom(std::int64_t layer, std::int64_t from, std::vector<float>& residual, std::vector<std::int32_t>& selected);
    Status output(const std::vector<float>& residual, std::vector<float>& logits);
    // residual += branch, the branch first post-normed with blk.<layer>.<postNorm> when named.
    Status addBranch(std::int64_t layer, const char* postNorm, std::vector<float>& branch, std::vector<float>& residual);

    PassContext m_c;
};

Status PassRunner::embed(std::span<const std::int32_t> tokens, std::vector<float>& residual)
{
    const std::int64_t width = m_c.h.embeddingLength;
    residual.assign(static_cast<std::size_t>(m_c.tokens * width), 0.0f);
    for (std::int64_t t = 0; t < m_c.tokens; ++t) {
        const auto id = static_cast<std::uint64_t>(tokens[static_cast<std::size_t>(t)]);
        auto row = m_c.loader.loadRows("token_embd.weight", width, id, id + 1);
        if (!row)
            return row.error();
        std::copy_n(row->data(), width, residual.begin() + t * width);
        m_c.loader.recycle(std::move(*row));
    }
    if (m_c.h.block->embeddingScaled) {
        const float scale = std::sqrt(static_cast<float>(width));  // ggml_scale(inpL, sqrtf(n_embd))
        for (float& x : residual)
            x *= scale;
    }
    return preparePerLayerInputs(m_c, tokens, residual);
}

Status PassRunner::addBranch(std::int64_t layer, const char* postNorm, std::vector<float>& branch, std::vector<float>& residual)
{
    if (postNorm) {
        auto normed = m_c.layerNormed(layer, postNorm, branch);
        if (!normed)
            return normed.error();
        branch = std::move(*normed);
    }
    for (std::size_t i = 0; i < residual.size(); ++i)
        residual[i] = branch[i] + residual[i];
    return Ok{};
}

Status PassRunner::layer(std::int64_t layer, std::vector<float>& residual, std::vector<std::int32_t>& selected)
{
    const BlockDescription& block = *m_c.h.block;
    auto attentionInput = m_c.layerNormed(layer, "attn_norm", residual);
    if (!attentionInput)
        return attentionInput.error();
    const std::int64_t from = m_c.rowsReachingLogitsFrom(layer);
    std::vector<float> branch;
    const bool shortConv = block.hybrid.recurrentMixer == RecurrentMixer::ShortConv;
    Status mixed = m_c.h.isRecurrentLayer(layer) && shortConv ? runShortConv(m_c, layer, *attentionInput, from, branch)
                 : m_c.h.isRecurrentLayer(layer)           ? runGatedDeltaNet(m_c, layer, *attentionInput, from, branch)
                 : block.multiHeadLatentAttention ? runLatentAttention(m_c, layer, *attentionInput, from, branch)
                                                  : runAttention(m_c, layer, *attentionInput, from, branch);
    if (!mixed)
        return mixed;
    if (Status done = addBranch(layer, block.postNorms ? "post_attention_norm" : nullptr, branch, residual); !done)
        return done;
    if (m_c.cancelled())
        return cancelledError();

    std::fill(selected.begin(), selected.end(), -1);  // a leading dense layer of an MoE model routes nothing
    // Positions before `from` reach no logit (PassContext::rowsReachingLogitsFrom): the mixing
    // step left their branch rows zero, and the FFN skips them. On a 2-layer 7B-shaped stack the
    // last layer's FFN is a seventh of a KLD pass's products.
    if (from > 0)
        return finishRowsFrom(layer, from, residual, selected);
    return finishLayerRows(layer, residual, selected);
}

Status PassRunner::finishLayerRows(std::int64_t layer, std::vector<float>& rows, std::vector<std::int32_t>& selected)
{
    std::vector<float> branch;
    if (Status done = runFeedForwardBranch(m_c, layer, rows, branch, selected); !done)
        return done;
    if (Status done = addBranch(layer, m_c.h.block->postNorms ? "post_ffw_norm" : nullptr, branch, rows); !done)
        return done;
    return finishLayer(m_c, layer, rows);
}

Status PassRunner::finishRowsFrom(std::int64_t layer, std::int64_t from, std::vector<float>& residual, std::vector<std::int32_t>& selected)
{
    // Everything after the attention works on each position alone, so the rows from `from` on
    // come out as in a whole pass, bit for bit (the products' sums do not depend on the rows
    // around them).
    const std::int64_t width = m_c.h.embeddingLength;
    const std::int64_t used = m_c.h.expertUsedCount;
    const std::int64_t allTokens = m_c.tokens;
    std::vector<float> rows(residual.begin() + from * width, residual.end());
    std::vector<std::int32_t> rowsSelected(static_cast<std::size_t>((allTokens - from) * used), -1);
    m_c.tokens = allTokens - from;
    const Status done = finishLayerRows(layer, rows, rowsSelected);
    m_c.tokens = allTokens;
    if (!done)
        return done;
    std::copy(rows.begin(), rows.end(), residual.begin() + from * width);
    std::copy(rowsSelected.begin(), rowsSelected.end(), selected.begin() + from * used);
    return Ok{};
}

Status PassRunner::output(const std::vector<float>& residual, std::vector<float>& logits)
{
    const auto& h = m_c.h;
    const std::int64_t width = h.embeddingLength;
    auto norm = m_c.loader.load(std::string(h.block->hybrid.outputNorm) + ".weight", {width, 1, 1});
    if (!norm)
        return norm.error();
    const std::vector<float> normed = m_c.rmsNormed(residual, width, *norm);
    m_c.recycle({&norm});
    const std::string name = h.tiedOutput ? "token_embd.weight" : "output.weight";
    auto rows = m_c.loader.matrixRows(name, width);
    if (!rows)
        return rows.error();
    if (*rows != h.vocabularySize)
        return forwardError(m_c, name + " must have " + std::to_string(h.vocabularySize) + " rows (the vocabulary)");
    const std::int64_t vocabulary = h.vocabularySize;
    logits.assign(static_cast<std::size_t>(m_c.tokens * vocabulary), 0.0f);
    const std::int64_t skipped = m_c.options.firstLogitPosition;
    const float* input = normed.data() + skipped * width;
    float* const outputRows = logits.data() + skipped * vocabulary;
    observeProduct(m_c.options.matmulInputs, name, input, m_c.tokens - skipped, width);
    for (std::int64_t first = 0; first < vocabulary; first += kOutputRowsPerChunk) {
        if (m_c.cancelled())
            return cancelledError();
        const std::int64_t last = std::min(vocabulary, first + kOutputRowsPerChunk);
        auto chunk = m_c.loader.loadRows(name, width, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(last));
        if (!chunk)
            return chunk.error();
        m_c.noteHeld(chunk->heldBytes());
        multiplyWeights(input, m_c.tokens - skipped, *chunk, m_c.accumulation, outputRows + first, vocabulary);
        m_c.recycle({&chunk});
    }
    if (h.finalSoftcap > 0.0f)
        softcap(logits.data(), logits.size(), h.finalSoftcap);
    return Ok{};
}

Result<ForwardResult> PassRunner::run(std::span<const std::int32_t> tokens)
{
    const auto& h = m_c.h;
    m_c.tokens = static_cast<std::int64_t>(tokens.size());
    ForwardResult result;
    result.hyperparameters = h;
    result.tokenCount = m_c.tokens;
    const std::int64_t steps = h.layerCount + 1;
    std::vector<float> residual;
    const std::int64_t firstLayer = m_c.options.firstLayer;
    if (firstLayer > 0)
        residual.assign(m_c.options.startResidual.begin(), m_c.options.startResidual.end());
    else if (Status done = embed(tokens, residual); !done)
        return done.error();
    if (m_c.options.keepHiddenStates)
        result.hidden.reserve(static_cast<std::size_t>(h.layerCount - firstLayer) * residual.size());
    std::vector<std::int32_t> selected(static_cast<std::size_t>(m_c.tokens * h.expertUsedCount));
    for (std::int64_t il = firstLayer; il < h.layerCount; ++il) {
        if (m_c.cancelled())
            return cancelledError();
        if (Status done = layer(il, residual, selected); !done)
            return done.error();
        if (m_c.options.keepHiddenStates)
            result.hidden.insert(result.hidden.end(), residual.begin(), residual.end());
        if (h.isMixtureOfExperts())
            result.selectedExperts.insert(result.selectedExperts.end(), selected.begin(), selected.end());
        if (m_c.options.progress)
            m_c.options.progress(il + 1, steps);
    }
    if (Status done = output(residual, result.logits); !done)
        return done.error();
    if (m_c.options.progress)
        m_c.options.progress(steps, steps);
    result.peakWeightBytes = m_c.peakBytes;
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
    if (options.firstLayer < 0 || options.firstLayer > h->layerCount)
        return plainError("cannot start at layer " + std::to_string(options.firstLayer) + " of a model with " + std::to_string(h->layerCount)
                          + " layers");
    if (options.firstLayer > 0 && options.startResidual.size() != tokens.size() * static_cast<std::size_t>(h->embeddingLength))
        return plainError("the residual stream to start layer " + std::to_string(options.firstLayer) + " from has "
                          + std::to_string(options.startResidual.size()) + " values, not tokens x embedding = "
                          + std::to_string(tokens.size() * static_cast<std::size_t>(h->embeddingLength)));
    if (options.firstLogitPosition < 0 || options.firstLogitPosition >= static_cast<std::int64_t>(tokens.size()))
        return plainError("the first position with logits (" + std::to_string(options.firstLogitPosition) + ") must be one of the "
                          + std::to_string(tokens.size()) + " positions");
    PassRunner runner(model, *h, options);
    return runner.run(tokens);
}

}  // namespace gguf
