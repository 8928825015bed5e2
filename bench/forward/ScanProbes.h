#pragma once
// The sensitivity scan's cost on the forward bench's file: the reference pass a scan prepares
// (one whole pass keeping the residual stream) and the time of a sample of its probes, each of
// which quantizes one tensor and reruns the layers from it on (core/sensitivity).

#include "core/gguf/Model.h"

#include <cstdint>
#include <span>
#include <string>

namespace forwardbench {

// Prints the preparation, `probes` probes spread evenly over the scan's probe list (their
// group, type, layers rerun and seconds) and the mean probe's cost relative to one whole pass.
// Returns an error's text, or empty.
std::string timeScanProbes(const gguf::Model& model, std::span<const std::int32_t> tokens, std::int64_t probes);

}  // namespace forwardbench
