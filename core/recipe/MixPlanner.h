#pragma once
// A budget planner over an ErrorTable: per-tensor types that minimise the total estimated error
// within a size budget (file bytes, or bits per weight of the tensor data as llama-quantize
// reports it), never above the budget and never worse than the best llama-quantize preset that
// fits it; the size/error frontier with the presets on it; and the chosen mix as --tensor-type
// rules over a base preset, checked to reproduce the mix through the recipe rules.

#include "core/recipe/ErrorTable.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/recipe/RecipeConversion.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

// One assignment of types to the table's tensors (kept tensors stay as they are).
struct Mix {
    std::vector<std::uint32_t> types;  // per ErrorTable::tensors entry
    std::uint64_t dataBytes = 0;       // all tensors, unpadded (llama-quantize's "quant size")
    std::uint64_t fileBytes = 0;       // the whole output file
    double error = 0.0;                // sum of the chosen choices' costs (TypeChoice::cost)
    double bitsPerWeight = 0.0;        // dataBytes * 8 / all elements
};

struct PresetOnFrontier {
    const QuantPreset* preset = nullptr;
    bool evaluated = false;
    std::string why;  // when not evaluated: refused, or a type the table has no figure for
    Mix mix;
};

struct PlanContext {
    const Model* model = nullptr;
    const ErrorTable* table = nullptr;
    RecipeFileLayout layout;
    bool hasImatrix = false;
};

// `hasImatrix`: llama-quantize's recipe rules as with --imatrix. `imatrixKeys`: the
// quantize.imatrix.* keys the output will carry (imatrixProvenanceOf with the path as it will be
// given), counted in the header so that every predicted size is the size `convert` writes; none
// when the output will have none (a recipe shown "with an imatrix" but converted without one).
Result<PlanContext> makePlanContext(const Model& model, const ErrorTable& table, bool hasImatrix,
                                    const std::optional<ImatrixProvenance>& imatrixKeys = std::nullopt);

// The figures of a given assignment.
Mix evaluateMix(const PlanContext& context, std::vector<std::uint32_t> types);

// Every preset of quantPresets() (aliases skipped) as llama-quantize would make it here.
std::vector<PresetOnFrontier> evaluatePresets(const PlanContext& context);

// The lower convex frontier of (file bytes, error): from the smallest mix to the most precise,
// each point one tensor moved up one step.
std::vector<Mix> computeFrontier(const PlanContext& context);

struct Budget {
    enum class Kind { FileBytes, BitsPerWeight };
    Kind kind = Kind::FileBytes;
    double value = 0.0;
};
// "4.2GB", "3.9GiB", "800MB", "1200000" (bytes), "4.5bpw": decimal units are powers of 1000,
// binary ones (KiB, MiB, GiB, TiB) of 1024.
Result<Budget> parseBudget(std::string_view text);
bool fitsBudget(const Mix& mix, const Budget& budget, std::uint64_t totalElements);

struct PlanResult {
    Mix mix;
    const QuantPreset* bestPresetWithin = nullptr;  // the best evaluated preset that fits, if any
    double bestPresetError = 0.0;
    std::string startedFrom;                        // "frontier" or a preset name
};

// Fails when even the smallest mix is above the budget.
Result<PlanResult> planMix(const PlanContext& context, const std::vector<PresetOnFrontier>& presets, const Budget& budget);

struct PlanRules {
    const QuantPreset* basePreset = nullptr;
    std::vector<TensorTypeRule> rules;  // applied over basePreset, they give exactly the mix
};

// The base preset (the evaluated one agreeing with most tensors) and the fewest exact-name
// rules found that make computeRecipe reproduce the mix.
Result<PlanRules> rulesForMix(const PlanContext& context, const std::vector<PresetOnFrontier>& presets, const Mix& mix);

}  // namespace gguf
