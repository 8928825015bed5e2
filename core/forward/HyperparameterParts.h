#pragma once
// The parts of readHyperparameters (ModelHyperparameters.cpp), one file each: rope and YaRN, the
// experts, the sliding window and per-layer shapes. Each reads exactly the keys llama.cpp reads
// for the architecture (its BlockDescription says which), through one HyperparameterReader whose
// first refusal sticks; the caller checks it after each part.

#include "core/forward/ModelHyperparameters.h"
#include "core/gguf/HyperparameterReader.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gguf {

// A get_key_or_arr key the pass runs with one value for every layer: one value, or an array of
// equal ones (different values per layer are refused). Absent: `fallback`, or refused as missing.
std::int64_t oneForAllLayers(HyperparameterReader& r, std::string_view name, std::int64_t layers, std::optional<std::int64_t> fallback,
                             std::int64_t minimum, std::int64_t maximum = HyperparameterReader::kMaxCount);

// The vocabulary size some load_arch_hparams read to tell models apart: vocab_size, else the
// length of tokenizer.ggml.tokens (llama.cpp's get_key || get_arr_n); 0 when neither is there.
std::int64_t declaredVocabularySize(HyperparameterReader& r, const Model& model);

// rope.* (llama_model_base::load_hparams) and what llama_context makes of them: the frequency
// scale, YaRN's attention factor and correction context, deepseek2's log multiplier. Needs
// h.contextLength and h.block.
void readRopeKeys(HyperparameterReader& r, ModelHyperparameters& h);

// expert_used_count, the expert groups and the architecture's MoE keys (expert widths, leading
// dense layers, weights scale and norm, gating), with llama.cpp's checks. Needs the layer counts,
// h.feedForwardLength and h.expertCount.
void readExpertKeys(HyperparameterReader& r, const Model& model, std::int64_t allLayers, ModelHyperparameters& h);

// The sliding window, its period or per-layer flags and the sliding layers' rope base, as
// BlockDescription::slidingWindows says. Needs h.layerCount, the rope and head sizes.
void readSlidingWindowKeys(HyperparameterReader& r, ModelHyperparameters& h);

// Gated DeltaNet hybrids: the ssm.* sizes and which layers are recurrent.
void readRecurrentKeys(HyperparameterReader& r, std::int64_t allLayers, ModelHyperparameters& h);

// h.layers: one shape per layer. Blocks with perLayerShapes (gemma4) take head counts and FFN
// widths per layer, head and rope sizes per layer type and KV shared by the last layers; the
// others the single values, with the sliding layers' _swa sizes required to equal them.
void readLayerShapes(HyperparameterReader& r, const std::vector<std::int64_t>& heads, const std::vector<std::int64_t>& kvHeads,
                     const std::vector<std::int64_t>& feedForward, ModelHyperparameters& h);

}  // namespace gguf
