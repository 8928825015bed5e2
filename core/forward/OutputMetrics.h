#pragma once
// Output-level error of one model run against a reference run over the same tokens: per
// position the KL divergence of the next-token distribution, whether the top token is the same,
// the change in probability of the reference's top token and of the actual next token, and each
// run's log-likelihood of that token (so perplexity); per layer the residual stream's relative
// RMSE and cosine; for MoE per layer how many tokens were routed to another set of experts and
// how often each expert was chosen. Sequences are added one at a time (chunks), so nothing
// larger than one run's outputs is held.

#include "core/forward/ForwardPass.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gguf {

struct PositionMetrics {
    std::int64_t position = 0;    // in the whole token list
    std::int32_t nextToken = 0;   // the token this position predicts
    double kld = 0.0;             // KL(reference || other), nats
    std::int32_t referenceTop = 0;
    std::int32_t otherTop = 0;
    double referenceTopProbability = 0.0;       // p_ref(referenceTop)
    double referenceTopProbabilityOther = 0.0;  // p_other(referenceTop)
    double nextTokenProbability = 0.0;          // p_ref(nextToken)
    double nextTokenProbabilityOther = 0.0;     // p_other(nextToken)
    bool sameTop() const { return referenceTop == otherTop; }
};

struct Summary {
    std::size_t count = 0;
    double mean = 0.0;
    double meanError = 0.0;  // standard error of the mean
    double minimum = 0.0;
    double median = 0.0;
    double p90 = 0.0;
    double p99 = 0.0;
    double maximum = 0.0;
};

// Percentiles by linear interpolation between the sorted values (numpy's default).
Summary summarize(std::vector<double> values);

struct LayerDrift {
    double relativeRmse = 0.0;  // sqrt(sum (o - r)^2 / sum r^2) over the positions counted (addSequence)
    double meanCosine = 0.0;    // mean over positions of cos(r_t, o_t)
    double minCosine = 1.0;
    // MoE: tokens whose selected expert set differs from the reference's / tokens.
    double routingChangedFraction = 0.0;
    // MoE: both models route this layer's tokens; false for a layer dense in either (no router
    // to compare), where routingChangedFraction is 0 and routingChanged empty.
    bool routingCompared = false;
};

struct OutputComparison {
    std::vector<PositionMetrics> positions;
    Summary kld;
    Summary deltaTopProbability;   // p_other - p_ref of the reference's top token
    Summary deltaNextProbability;  // the same for the actual next token (llama-perplexity's delta p)
    double sameTopFraction = 0.0;
    double perplexityReference = 0.0;
    double perplexityOther = 0.0;
    std::vector<LayerDrift> layers;
    // MoE: [layer][expert] how many (token, slot) choices went to the expert, in each run.
    std::vector<std::vector<std::int64_t>> expertCountsReference;
    std::vector<std::vector<std::int64_t>> expertCountsOther;
    // MoE: [layer][token] 1 where the expert set differs (every evaluated token, in order);
    // empty for the layers whose routing is not compared.
    std::vector<std::vector<std::uint8_t>> routingChanged;
    bool mixtureOfExperts = false;  // both models route to the same number of experts, top-k alike
    // Why routing is compared on fewer layers than the reference routes, or not at all: the two
    // models' MoE layouts differ (expert count, top-k, which layers are dense). Empty otherwise.
    std::string routingNote;
};

class OutputComparisonBuilder {
public:
    // Adds one sequence both models ran: `tokens` as run, positions [firstScored, endScored) are
    // scored (each must have a next token: endScored <= tokens.size() - 1), `firstPosition` is
    // where the sequence starts in the whole token list. Hidden states and routing count the
    // positions from firstScored on (the scored ones and the last): the same positions as the
    // KLD, and the only ones whose last layer a pass with ForwardOptions::firstLogitPosition
    // completes. Fails when the runs do not fit each other (sizes, vocabulary).
    Status addSequence(const ForwardResult& reference, const ForwardResult& other, std::span<const std::int32_t> tokens,
                       std::int64_t firstScored, std::int64_t endScored, std::int64_t firstPosition = 0);
    OutputComparison finish() const;

private:
    struct LayerSums {
        double squaredDifference = 0.0;
        double squaredReference = 0.0;
        double cosineSum = 0.0;
        double minCosine = 1.0;
        std::int64_t positions = 0;
        std::int64_t routedTokens = 0;
        std::int64_t changedTokens = 0;
        bool routedInOneOnly = false;  // dense in one model, routed in the other
    };
    // Adds one layer's routing of tokens [first, n) when both runs route it.
    void addRouting(const ForwardResult& reference, const ForwardResult& other, std::int64_t layer, std::int64_t first, std::int64_t n);
    OutputComparison m_result;
    std::vector<LayerSums> m_layers;
    double m_nllReference = 0.0;
    double m_nllOther = 0.0;
};

}  // namespace gguf
