#pragma once
// A scan's measured figures as the planner's costs: each (tensor, type) choice of an ErrorTable
// costs the mean KLD measured when only that tensor was quantized to that type, so the planner
// minimises the predicted KLD, the sum of the cells' KLD. A block the scan skipped (a layer
// stride) takes the mean of the measured blocks' same role and type. A choice nothing was
// measured for is dropped, except the tensor's stored type, which costs nothing. Each tensor's
// costs are then made a curve monotone in bytes with no step inside the cells' uncertainty
// (monotoneCosts, ScanCostCurve.h), so the planner does not choose from the probes' noise.

#include "core/recipe/ErrorTable.h"
#include "core/sensitivity/SensitivityScan.h"

namespace gguf {

struct ScanCostReport {
    std::size_t measured = 0;      // choices given a measured figure
    std::size_t interpolated = 0;  // choices given the mean of their role's measured blocks
    std::size_t dropped = 0;       // choices with no figure, left out
    std::size_t smoothed = 0;      // choices whose cost the monotone curve changed
};

// Fails when the scan is partial, is not of this model's tensors, or leaves a tensor no choice.
Result<ScanCostReport> applyScanCosts(ErrorTable& table, const ScanRecord& record);

}  // namespace gguf
