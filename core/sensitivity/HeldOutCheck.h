#pragma once
// A plan is measured before it is offered: the planned mix and the best presets within the same
// budget, each quantized in memory as its file would hold it, run against the reference on text
// the scan did not see (the calibration text past the scan's tokens), in the scan's chunks, as
// `kld` measures a written file. The plan is offered only when it beats the best of those
// presets by more than the difference's uncertainty: the per-position KLD differences (the same
// positions in both) give a mean and its standard error, and the plan must win by more than
// twice that error (the median of the differences, a statistic a few outlying positions cannot
// move, must agree in sign). Otherwise the preset is the better choice.

#include "core/base/Result.h"
#include "core/base/TaskExecutor.h"
#include "core/forward/ActivationRounding.h"
#include "core/gguf/Model.h"
#include "core/recipe/RecipeConversion.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace gguf {

struct MixToMeasure {
    std::string label;
    std::unordered_map<std::string, std::uint32_t> types;  // tensor name -> type
};

struct MeasuredMix {
    std::string label;
    double meanKld = 0.0;
    double meanError = 0.0;    // standard error of the mean
    double medianKld = 0.0;
    double differenceMean = 0.0;    // against the first mix (the plan): this mix's KLD minus the plan's, per position
    double differenceError = 0.0;   // its standard error
    double differenceMedian = 0.0;
    // MoE: the scored positions where some layer chose another set of experts than the
    // reference (a routing flip), and the figures of the others, the steady error. Against the
    // plan: the difference over the positions steady in both mixes.
    std::int64_t flippedPositions = 0;
    double steadyKld = 0.0;
    double steadyDifferenceMean = 0.0;
    double steadyDifferenceError = 0.0;
    std::int64_t steadyPairs = 0;  // positions steady in both this mix and the plan
};

struct HeldOutOptions {
    std::int64_t chunkSize = 128;
    std::int32_t bosToken = -1;
    ActivationArithmetic activations = ActivationArithmetic::QuantizedAsLlamaCpp;
    ImportanceLookup importance;  // the scan's matrix: the mixes quantized with it
    TaskExecutor* executor = nullptr;
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::int64_t done, std::int64_t total)> progress;  // forward passes done / total
};

struct HeldOutResult {
    std::vector<MeasuredMix> mixes;   // the plan first, then the presets
    std::int64_t firstToken = 0;      // where the held-out tokens begin in the text (past the scan's, or 0)
    std::int64_t tokens = 0;
    std::int64_t positions = 0;
    std::size_t bestPreset = 0;       // index into mixes (>= 1) of the lowest measured mean KLD
    bool planWins = false;            // planBeatsPreset against the best preset
    bool wonOnSteadyError = false;    // ... by its second rule (an MoE's steady error)
    bool routed = false;              // an MoE whose routing was compared: the flip figures are filled
};

// Whether the plan beats `preset` (its differences to the plan filled) beyond the noise:
// - by more than twice the standard error of the per-position difference, the median agreeing; or
// - on an MoE (`routed`), where a few routing flips make that error as large as the difference:
//   by more than twice the standard error of the difference over the positions neither mix
//   flipped, with no more flipped positions than the preset and, over all positions, a mean
//   difference no worse and the median agreeing.
// `steady` says the second rule decided.
bool planBeatsPreset(const MeasuredMix& plan, const MeasuredMix& preset, bool routed, bool* steady = nullptr);

// The held-out tokens: whole chunks of `tokens` past the first `scanTokens`, at most `most`
// tokens (0: all). Fails when not one chunk is left.
Result<std::vector<std::int32_t>> heldOutTokens(std::span<const std::int32_t> tokens, std::int64_t scanTokens, std::int64_t chunkSize,
                                                 std::int64_t most);

// `mixes[0]` is the plan, the others presets (at least one).
Result<HeldOutResult> measureHeldOut(const Model& reference, const std::vector<MixToMeasure>& mixes, std::span<const std::int32_t> tokens,
                                     const HeldOutOptions& options);

}  // namespace gguf
