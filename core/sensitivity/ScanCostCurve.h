#pragma once
// A group's measured costs made into a curve the planner can trust: never higher for a type of
// more bytes than for one of fewer (a probe's cells are noisy, and on MoE models one or two
// positions where the router picked another expert can make q5_K look worse than q4_K), and
// never a step between two types smaller than the cells' uncertainty (the planner would pay bytes
// for noise).
//
// The fit is isotonic regression (pool-adjacent-violators) from the most bytes down, with
// "violation" widened to "not worse by more than the combined standard error": a cell of fewer
// bytes that is not significantly worse than the pooled cells above it joins them, and the pool
// takes their plain mean and the standard error of that mean. (Weighting by 1 / SE^2 was
// measured and dropped: on the MoE fixture a cell's SE is about half its mean, so the weights
// pulled pools to their lowest cell and the plans got worse on held-out text.) Unlike a running minimum from the high end, a pooled level is not biased low by
// picking the luckiest noisy cell. When every cell has a trimmed mean, a step also needs the
// trimmed means to agree that the cell of fewer bytes is worse (a few outlying positions cannot
// make the step alone).

#include <cstdint>
#include <optional>
#include <vector>

namespace gguf {

struct CostCell {
    std::uint64_t bytes = 0;
    double cost = 0.0;                 // mean KLD
    double standardError = 0.0;        // of the cost
    std::optional<double> trimmed;     // trimmed mean KLD, when measured
};

// The fitted costs, in the order of `cells`.
std::vector<double> monotoneCosts(const std::vector<CostCell>& cells);

}  // namespace gguf
