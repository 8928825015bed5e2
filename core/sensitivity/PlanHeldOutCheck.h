#pragma once
// The held-out check of a scan plan, as `plan --scan --text-file` and the app's planner run it:
// which tokens are held out, which presets the plan is measured against (the two largest that
// fit the budget, whatever types the scan measured), and the measurement (measureHeldOut). One
// function for both, so the CLI and the app give the same figures and the same verdict.

#include "core/base/Result.h"
#include "core/recipe/MixPlanner.h"
#include "core/sensitivity/HeldOutCheck.h"
#include "core/sensitivity/SensitivityScan.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace gguf {

// Where the held-out tokens are taken from.
enum class HeldOutSource {
    PastTheScan,  // the scan's own text: the tokens after the scan's (refused when its first tokens are not the scan's)
    OwnText,      // a text of its own: all of it (refused when it begins with the scan's tokens: those are not held out)
    Either,       // past the scan's tokens when the text begins with them, else all of it (the app: any text the user gives)
};

struct PlanHeldOutRequest {
    HeldOutSource source = HeldOutSource::PastTheScan;
    std::int64_t most = 2048;  // held-out tokens at most (whole chunks of the scan's size); 0: all
    ImportanceLookup importance;  // the scan's matrix: the mixes quantized with it
    TaskExecutor* executor = nullptr;
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::int64_t done, std::int64_t total)> progress;  // forward passes
};

// `table` is the model's error table (its tensors, in the order of the mixes' types), `plan` the
// planned mix and `presets` evaluated on the weight table (evaluatePresets before the scan's
// costs replace its figures). The result's mixes: "plan" first, then the presets.
Result<HeldOutResult> measurePlanOnHeldOutText(const Model& model, const ScanRecord& scan, std::span<const std::int32_t> text, const ErrorTable& table,
                                               const Mix& plan, const std::vector<PresetOnFrontier>& presets, const Budget& budget,
                                               const PlanHeldOutRequest& request);

}  // namespace gguf
