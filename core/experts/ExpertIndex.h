#pragma once
// Where a Mixture-of-Experts model keeps its experts: per layer, the 3-D expert tensors
// (ffn_gate_exps, ffn_up_exps, ffn_down_exps, ffn_gate_up_exps; ne = [n_in, n_out, n_expert]),
// the router (ffn_gate_inp, ne = [n_embd, n_expert]) and any shared experts (*_shexp).

#include "core/gguf/Model.h"

#include <optional>
#include <string>
#include <vector>

namespace gguf {

enum class ExpertProjection { Gate, Up, Down, GateUp };

const char* projectionName(ExpertProjection projection);  // "gate", "up", "down", "gate_up"

struct ExpertTensor {
    ExpertProjection projection;
    const TensorInfo* tensor;
};

struct ExpertLayer {
    std::uint32_t layer = 0;
    std::vector<ExpertTensor> experts;         // in projection order gate, up, down, gate_up
    const TensorInfo* router = nullptr;        // blk.N.ffn_gate_inp.weight
    std::vector<const TensorInfo*> shared;     // blk.N.*_shexp.weight / .bias (and the shared gate ffn_gate_inp_shexp)
    // Biases and scales beside the experts: per-expert biases (ffn_*_exps.bias, [n_out, n_expert]),
    // per-expert output scales (ffn_down_exps.scale, [n_expert]), the selection bias
    // (exp_probs_b.bias, [n_expert]), the router's bias (ffn_gate_inp.bias) and input scale
    // (ffn_gate_inp.scale, [n_embd]).
    std::vector<const TensorInfo*> biases;

    const TensorInfo* find(ExpertProjection projection) const;
};

class ExpertIndex {
public:
    static ExpertIndex build(const Model& model);

    bool hasExperts() const { return !m_layers.empty(); }
    // `<arch>.expert_count` when present, else ne[2] of the expert tensors.
    std::uint64_t expertCount() const { return m_expertCount; }
    std::optional<std::uint64_t> expertsUsedPerToken() const { return m_expertUsedCount; }
    const std::vector<ExpertLayer>& layers() const { return m_layers; }
    const ExpertLayer* findLayer(std::uint32_t layer) const;
    // Expert tensors whose ne[2] disagrees with expert_count, named for the user.
    const std::vector<std::string>& inconsistencies() const { return m_inconsistencies; }

private:
    std::uint64_t m_expertCount = 0;
    std::optional<std::uint64_t> m_expertUsedCount;
    std::vector<ExpertLayer> m_layers;
    std::vector<std::string> m_inconsistencies;
};

// Which axis of a bias or scale tensor counts experts: the last stored axis when it holds
// `expertCount` values (ne[0] of a [n_expert] vector, ne[1] of a [n_out, n_expert] bias); nullopt
// for one that is not per expert (the router's input scale).
std::optional<std::uint32_t> expertAxisOf(const TensorInfo& tensor, std::uint64_t expertCount);

// What a tensor of ExpertLayer::shared or ::biases is, for the user ("selection bias", "bias of
// each expert's down projection", "shared expert up projection", ...).
std::string expertExtraRole(std::string_view name);

// Parses "blk.12.ffn_up_exps.weight" into layer 12; nullopt for names outside a layer.
std::optional<std::uint32_t> layerOfTensorName(std::string_view name);

}  // namespace gguf
