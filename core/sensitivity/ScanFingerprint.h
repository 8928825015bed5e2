#pragma once
// What a scan's figures depend on, hashed: the whole fingerprint a scan file carries (resume and
// merge compare it) and its parts (ScanFingerprintParts), which let a comparison name what
// differs, and let `plan --scan` check a scan against the model and importance matrix it is
// given. Each is a SHA-256 in lowercase hex.

#include "core/gguf/Model.h"
#include "core/sensitivity/SensitivityScan.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

// Every tensor's name and shape, in the file's order.
std::string tensorShapesFingerprint(const Model& model);
// Every tensor's name, type, shape and offset: another file of the same tensors differs here.
std::string tensorIndexFingerprint(const Model& model);
std::string tokensFingerprint(std::span<const std::int32_t> tokens, std::int32_t bosToken);
// Per group whether `importance` has weights for its tensor, and the weights of each expert.
// Every group must name a tensor of `model`.
std::string importanceFingerprint(const Model& model, const std::vector<ScanGroup>& groups, const ImportanceLookup& importance);
std::string arithmeticFingerprint(std::string_view activations, std::string_view attention, bool accumulateInDouble);

// The whole fingerprint: the model's tensor index, the settings, the tokens evaluated, the probes
// and the importance weights, as every scan file since the first has hashed them.
std::string scanFingerprint(const Model& model, const ScanOptions& options, const ScanIdentity& identity, std::span<const std::int32_t> tokens,
                            const std::vector<ScanGroup>& groups, const std::vector<ProbeKey>& probes);

}  // namespace gguf
