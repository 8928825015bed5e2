#include "core/imatrix/ImatrixComputation.h"

#include "core/forward/ForwardPass.h"
#include "core/imatrix/ImatrixCollector.h"
#include "core/tokenize/Tokenizer.h"

#include <algorithm>
#include <cmath>

namespace gguf {

namespace {

// llama.cpp's default ubatch (-ub 512): a chunk of more tokens is decoded in pieces of this many.
constexpr std::int64_t kLlamaUbatch = 512;

Error runError(std::string message) { return Error{std::move(message), Error::kNoOffset, {}}; }

// -log p(next) from one position's logits, as llama-imatrix's log_softmax (a float maximum, the
// exponentials summed in double).
double negativeLogLikelihood(std::span<const float> logits, std::int32_t next)
{
    const float largest = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (float l : logits)
        sum += std::exp(l - largest);
    return -(static_cast<double>(logits[static_cast<std::size_t>(next)] - largest) - std::log(sum));
}

}  // namespace

Result<ImatrixRunResult> computeImatrix(const Model& model, std::span<const std::int32_t> tokens, const ImatrixRunOptions& options)
{
    const std::int64_t chunk = options.chunkSize;
    if (chunk < 2 || chunk > kMaxForwardTokens)
        return runError("the chunk size must be from 2 to " + std::to_string(kMaxForwardTokens) + " tokens");
    const auto total = static_cast<std::int64_t>(tokens.size());
    if (total < 2 * chunk)  // llama-imatrix's own refusal
        return runError("the text gives " + std::to_string(total) + " tokens; chunks of " + std::to_string(chunk) + " need at least "
                        + std::to_string(2 * chunk) + " (as llama-imatrix asks)");
    std::int64_t chunks = total / chunk;
    if (options.chunkLimit >= 0)
        chunks = std::min(chunks, options.chunkLimit);
    if (chunks < 1)
        return runError("no chunk to run (--chunks 0)");

    ImatrixCollector collector(options.processOutput, kLlamaUbatch);
    ForwardOptions forward;
    forward.activations = options.activations;
    forward.kvCache = options.kvCache;
    forward.ubatchQueries = std::min(chunk, kLlamaUbatch);  // one sequence per batch (-b = -c)
    forward.keepHiddenStates = false;
    forward.executor = options.executor;
    forward.cancel = options.cancel;
    forward.matmulInputs = &collector;
    // Only the scored half's logits are read; the layers still run every row for the collector
    // (ForwardOptions::matmulInputs), and the output head too when it is collected.
    forward.firstLogitPosition = options.processOutput ? 0 : chunk / 2;

    ImatrixRunResult result;
    result.chunkSize = chunk;
    double nll = 0.0;
    std::int64_t scored = 0;
    std::vector<std::int32_t> sequence;
    for (std::int64_t c = 0; c < chunks; ++c) {
        sequence.assign(tokens.begin() + c * chunk, tokens.begin() + (c + 1) * chunk);
        if (options.bosToken >= 0)
            sequence.front() = options.bosToken;
        auto run = runForward(model, sequence, forward);
        if (!run)
            return run.error();
        if (Status collected = collector.status(); !collected)
            return collected.error();
        result.peakWeightBytes = std::max(result.peakWeightBytes, run->peakWeightBytes);
        // llama-imatrix scores positions [chunk/2, chunk-1) of each chunk against the original
        // tokens (not the BOS put first).
        for (std::int64_t j = chunk / 2; j < chunk - 1; ++j, ++scored)
            nll += negativeLogLikelihood(run->logitsAt(j), tokens[static_cast<std::size_t>(c * chunk + j + 1)]);
        if (options.progress)
            options.progress(c + 1, chunks);
    }
    result.chunks = chunks;
    result.perplexity = scored > 0 ? std::exp(nll / static_cast<double>(scored)) : 0.0;
    result.sums = collector.takeSums();
    if (!options.dataset.empty())
        result.sums.datasets.push_back(options.dataset);
    return result;
}

std::int32_t imatrixChunkBos(const Model& model)
{
    const auto bos = model.metadataUInt("tokenizer.ggml.bos_token_id");
    auto tokenizer = Tokenizer::fromModel(model);
    if (!bos || *bos > 0x7FFFFFFF || !tokenizer)
        return -1;
    // Whether the tokenizer adds BOS shows in what it makes of no text.
    const std::vector<std::int32_t> empty = tokenizer->encode("", true, false);
    return !empty.empty() && empty.front() == static_cast<std::int32_t>(*bos) ? static_cast<std::int32_t>(*bos) : -1;
}

Result<ImatrixRunResult> computeImatrixFromText(const Model& model, std::string_view text, bool parseSpecial, ImatrixRunOptions options)
{
    if (text.size() > Tokenizer::kMaxTextBytes)
        return runError("the text holds " + std::to_string(text.size() >> 20) + " MiB; at most "
                        + std::to_string(Tokenizer::kMaxTextBytes >> 20) + " MiB are tokenized at once");
    auto tokenizer = Tokenizer::fromModel(model);
    if (!tokenizer)
        return tokenizer.error();
    const std::vector<std::int32_t> tokens = tokenizer->encode(text, true, parseSpecial);
    options.bosToken = imatrixChunkBos(model);
    return computeImatrix(model, tokens, options);
}

std::vector<UnderRoutedExpert> underRoutedExperts(const ImatrixSums& sums, std::int64_t fewest)
{
    std::vector<UnderRoutedExpert> found;
    for (const auto& [name, entry] : sums.entries) {
        if (entry.counts.size() < 2)
            continue;
        for (std::size_t e = 0; e < entry.counts.size(); ++e)
            if (entry.counts[e] < fewest)
                found.push_back({name, static_cast<std::int64_t>(e), entry.counts[e]});
    }
    return found;
}

}  // namespace gguf
