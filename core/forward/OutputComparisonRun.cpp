#include "core/forward/OutputComparisonRun.h"

#include "core/forward/SimulatedQuantization.h"

#include <algorithm>

namespace gguf {

namespace {

WeightTransform simulatedQuantizationOf(const OutputCandidate& candidate, TaskExecutor* executor)
{
    SimulationSpec spec = candidate.simulation;
    spec.targetType = candidate.simulatedType;
    return simulatedQuantization(std::move(spec), executor);
}

// Another file can only be compared with the reference when it is the same network: the same
// tensors by name and shape (their types may differ). A dense model against an MoE one of the
// same vocabulary would otherwise run and report drift that means nothing.
std::string mismatchWithReference(const Model& reference, const Model& other)
{
    std::vector<std::string> extra, missing, reshaped;
    for (const TensorInfo& tensor : other.tensors()) {
        const TensorInfo* mine = reference.findTensor(tensor.name);
        if (!mine)
            extra.emplace_back(tensor.name);
        else if (mine->ne != tensor.ne)
            reshaped.emplace_back(tensor.name);
    }
    for (const TensorInfo& tensor : reference.tensors())
        if (!other.findTensor(tensor.name))
            missing.emplace_back(tensor.name);
    const auto listed = [](const std::vector<std::string>& names) {
        std::string text;
        for (std::size_t i = 0; i < names.size() && i < 3; ++i)
            text += (i ? ", " : "") + names[i];
        return names.size() > 3 ? text + ", ..." : text;
    };
    std::string problems;
    const auto add = [&](const std::vector<std::string>& names, const std::string& what) {
        if (!names.empty())
            problems += (problems.empty() ? "" : "; ") + std::to_string(names.size()) + " tensor(s) " + what + " (" + listed(names) + ")";
    };
    add(extra, "not in the reference");
    add(missing, "of the reference missing");
    add(reshaped, "with another shape");
    return problems;
}

}  // namespace

std::int64_t llamaPerplexityUbatch(std::int64_t chunkSize, std::int64_t index, std::int64_t chunks)
{
    constexpr std::int64_t kBatch = 2048, kUbatch = 512;
    const std::int64_t perBatch = std::max<std::int64_t>(1, kBatch / std::max<std::int64_t>(1, chunkSize));
    const std::int64_t together = std::min(perBatch, chunks - index / perBatch * perBatch);
    return std::max<std::int64_t>(1, kUbatch / std::max<std::int64_t>(1, together));
}

Result<OutputRunResult> compareModelOutputs(const Model& reference, const std::vector<OutputCandidate>& candidates,
                                            std::span<const std::int32_t> tokens, const OutputRunOptions& options)
{
    const auto total = static_cast<std::int64_t>(tokens.size());
    const std::int64_t chunk = options.chunkSize > 0 ? options.chunkSize : total;
    if (chunk < 2 || total < chunk)
        return Error{options.chunkSize > 0 ? "need at least one chunk of " + std::to_string(chunk) + " tokens (got " + std::to_string(total) + ")"
                                           : std::string("need at least 2 tokens"),
                     Error::kNoOffset, {}};
    const std::int64_t chunks = total / chunk;
    const std::int64_t firstScored = options.chunkSize > 0 ? chunk / 2 : 0;

    for (const OutputCandidate& candidate : candidates)
        if (candidate.model)
            if (const std::string problems = mismatchWithReference(reference, *candidate.model); !problems.empty())
                return Error{candidate.label + " does not fit the reference, it is another network: " + problems, Error::kNoOffset, {}};

    OutputRunResult result;
    std::vector<OutputComparisonBuilder> builders(candidates.size());
    const std::int64_t passes = chunks * static_cast<std::int64_t>(candidates.size() + 1);
    std::int64_t done = 0;
    std::int64_t ubatch = 512;
    const auto base = [&](const WeightTransform& transform) {
        ForwardOptions forward;
        forward.ubatchQueries = ubatch;
        forward.accumulateInDouble = options.accumulateInDouble;
        forward.accumulateWithBlas = options.accumulateWithBlas;
        forward.activations = options.activations;
        forward.kvCache = options.kvCache;
        forward.cancel = options.cancel;
        forward.transform = transform;
        forward.executor = options.executor;
        forward.firstLogitPosition = firstScored;  // addSequence reads no logits before it
        return forward;
    };
    for (std::int64_t c = 0; c < chunks; ++c) {
        std::vector<std::int32_t> sequence(tokens.begin() + c * chunk, tokens.begin() + (c + 1) * chunk);
        if (options.chunkSize > 0 && options.bosToken >= 0)
            sequence.front() = options.bosToken;
        ubatch = options.chunkSize > 0 ? llamaPerplexityUbatch(chunk, c, chunks) : 512;
        auto referenceRun = runForward(reference, sequence, base({}));
        if (!referenceRun)
            return referenceRun.error();
        result.peakWeightBytes = std::max(result.peakWeightBytes, referenceRun->peakWeightBytes);
        if (options.progress)
            options.progress(++done, passes);
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const OutputCandidate& candidate = candidates[i];
            const Model& model = candidate.model ? *candidate.model : reference;
            auto run = runForward(model, sequence, base(candidate.model ? WeightTransform{} : simulatedQuantizationOf(candidate, options.executor)));
            if (!run) {
                Error error = run.error();
                if (error.message != kForwardCancelled && error.path != candidate.label)  // no "X: X: ..."
                    error.message = candidate.label + ": " + error.message;
                return error;
            }
            result.peakWeightBytes = std::max(result.peakWeightBytes, run->peakWeightBytes);
            if (Status added = builders[i].addSequence(*referenceRun, *run, sequence, firstScored, chunk - 1, c * chunk); !added)
                return Error{candidate.label + ": " + added.error().message, Error::kNoOffset, {}};
            if (options.progress)
                options.progress(++done, passes);
        }
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        result.labels.push_back(candidates[i].label);
        result.comparisons.push_back(builders[i].finish());
    }
    result.scoredPositions = chunks * (chunk - 1 - firstScored);
    return result;
}

}  // namespace gguf
