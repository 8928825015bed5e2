#include "core/sensitivity/HeldOutCheck.h"

#include "core/forward/OutputComparisonRun.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace gguf {

namespace {

Error heldOutError(const std::string& message)
{
    return Error{message, Error::kNoOffset, {}};
}

// Per scored position: whether any compared layer routed its token to another expert set than
// the reference did. The routing lists hold, per chunk, the tokens from the first scored one to
// the chunk's end (OutputComparisonBuilder::addSequence), the positions those up to the last.
std::vector<bool> flippedPositions(const OutputComparison& comparison, std::int64_t chunkSize)
{
    std::vector<bool> flipped(comparison.positions.size(), false);
    if (chunkSize <= 0)
        return flipped;
    const std::int64_t firstScored = chunkSize / 2;
    const std::int64_t perChunk = chunkSize - firstScored;
    for (const std::vector<std::uint8_t>& layer : comparison.routingChanged)
        for (std::size_t p = 0; p < comparison.positions.size(); ++p) {
            const std::int64_t position = comparison.positions[p].position;
            const std::int64_t index = position / chunkSize * perChunk + position % chunkSize - firstScored;
            if (index >= 0 && std::size_t(index) < layer.size() && layer[std::size_t(index)])
                flipped[p] = true;
        }
    return flipped;
}

}  // namespace

Result<std::vector<std::int32_t>> heldOutTokens(std::span<const std::int32_t> tokens, std::int64_t scanTokens, std::int64_t chunkSize,
                                                 std::int64_t most)
{
    if (scanTokens < 0)
        return heldOutError("the scan's token count " + std::to_string(scanTokens) + " is negative");
    if (chunkSize < 4)
        return heldOutError("the scan's chunk size " + std::to_string(chunkSize) + " is too small to measure on");
    const auto total = static_cast<std::int64_t>(tokens.size());
    std::int64_t left = scanTokens < total ? total - scanTokens : 0;
    if (most > 0)
        left = std::min(left, most);
    left -= left % chunkSize;
    if (left < chunkSize)
        return heldOutError("the text has " + std::to_string(total) + " tokens: no chunk of " + std::to_string(chunkSize)
                            + " is left past the scan's " + std::to_string(scanTokens) + " to measure the plan on (give a longer text)");
    return std::vector<std::int32_t>(tokens.begin() + scanTokens, tokens.begin() + scanTokens + left);
}

Result<HeldOutResult> measureHeldOut(const Model& reference, const std::vector<MixToMeasure>& mixes, std::span<const std::int32_t> tokens,
                                     const HeldOutOptions& options)
{
    if (mixes.size() < 2)
        return heldOutError("nothing to measure the plan against: no preset fits the budget");
    std::vector<OutputCandidate> candidates;
    for (const MixToMeasure& mix : mixes) {
        OutputCandidate candidate;
        candidate.label = mix.label;
        candidate.simulation.recipeTypes = std::make_shared<const std::unordered_map<std::string, std::uint32_t>>(mix.types);
        candidate.simulation.importance = options.importance;
        candidates.push_back(std::move(candidate));
    }
    OutputRunOptions run;
    run.chunkSize = options.chunkSize;
    run.bosToken = options.bosToken;
    run.activations = options.activations;
    run.executor = options.executor;
    run.cancel = options.cancel;
    run.progress = options.progress;
    auto measured = compareModelOutputs(reference, candidates, tokens, run);
    if (!measured)
        return measured.error();

    HeldOutResult result;
    result.tokens = static_cast<std::int64_t>(tokens.size());
    result.positions = measured->scoredPositions;
    const auto& plan = measured->comparisons.front().positions;
    const std::vector<bool> planFlipped = flippedPositions(measured->comparisons.front(), options.chunkSize);
    result.routed = measured->comparisons.front().mixtureOfExperts;
    for (std::size_t m = 0; m < mixes.size(); ++m) {
        const OutputComparison& c = measured->comparisons[m];
        MeasuredMix figures;
        figures.label = mixes[m].label;
        figures.meanKld = c.kld.mean;
        figures.meanError = c.kld.meanError;
        figures.medianKld = c.kld.median;
        const std::vector<bool> flipped = flippedPositions(c, options.chunkSize);
        std::vector<double> steady, steadyDifferences;
        for (std::size_t p = 0; p < c.positions.size(); ++p) {
            figures.flippedPositions += flipped[p];
            if (!flipped[p])
                steady.push_back(c.positions[p].kld);
            if (m > 0 && p < plan.size() && !flipped[p] && !planFlipped[p])
                steadyDifferences.push_back(c.positions[p].kld - plan[p].kld);
        }
        figures.steadyKld = summarize(std::move(steady)).mean;
        figures.steadyPairs = std::int64_t(steadyDifferences.size());
        const Summary steadyDifference = summarize(std::move(steadyDifferences));
        figures.steadyDifferenceMean = steadyDifference.mean;
        figures.steadyDifferenceError = steadyDifference.meanError;
        if (m > 0) {
            // Paired by position: the same tokens in both runs, so the text's own difficulty cancels.
            std::vector<double> differences;
            for (std::size_t p = 0; p < c.positions.size() && p < plan.size(); ++p)
                differences.push_back(c.positions[p].kld - plan[p].kld);
            const Summary d = summarize(std::move(differences));
            figures.differenceMean = d.mean;
            figures.differenceError = d.meanError;
            figures.differenceMedian = d.median;
            if (result.bestPreset == 0 || figures.meanKld < result.mixes[result.bestPreset].meanKld)
                result.bestPreset = m;
        }
        result.mixes.push_back(std::move(figures));
    }
    result.planWins = planBeatsPreset(result.mixes.front(), result.mixes[result.bestPreset], result.routed, &result.wonOnSteadyError);
    return result;
}

bool planBeatsPreset(const MeasuredMix& plan, const MeasuredMix& preset, bool routed, bool* steady)
{
    const bool medianAgrees = preset.differenceMedian > 0.0;
    const bool overall = preset.differenceMean > 2.0 * preset.differenceError && medianAgrees;
    const bool onSteadyError = !overall && routed && preset.steadyDifferenceMean > 2.0 * preset.steadyDifferenceError
                            && plan.flippedPositions <= preset.flippedPositions && preset.differenceMean >= 0.0 && medianAgrees;
    if (steady)
        *steady = onSteadyError;
    return overall || onSteadyError;
}

}  // namespace gguf
