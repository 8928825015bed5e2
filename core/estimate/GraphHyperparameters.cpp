#include "core/estimate/GraphHyperparameters.h"

#include <algorithm>

namespace gguf {

namespace {
// Bounds no real model comes near, like EstimateShape's: they keep the graph's products far
// below 2^63 whatever a header says.
constexpr std::uint64_t kMaxExperts = 1 << 12;
constexpr std::uint64_t kMaxWidth = 1 << 24;

std::int64_t number(const Model& model, const std::string& key, std::uint64_t fallback = 0, std::uint64_t maximum = kMaxWidth)
{
    const auto value = model.metadataUInt(key);
    return static_cast<std::int64_t>(value && *value <= maximum ? *value : fallback);
}

// A per-layer key (get_key_or_arr) read as its largest value, or a scalar.
std::int64_t largest(const Model& model, const std::string& key, std::uint64_t maximum)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry)
        return 0;
    if (!entry->value.isArray())
        return number(model, key, 0, maximum);
    std::uint64_t best = 0;
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(entry->value.arrayLength(), 1 << 16); ++i) {
        const auto value = entry->value.element(i).toUInt();
        if (value && *value <= maximum)
            best = std::max(best, *value);
    }
    return static_cast<std::int64_t>(best);
}

std::optional<double> real(const Model& model, const std::string& key)
{
    const MetadataEntry* entry = model.findMetadata(key);
    return entry ? entry->value.toDouble() : std::nullopt;
}

// A per-layer f32 key (get_key_or_arr) as one value per layer; empty when absent.
std::vector<float> reals(const Model& model, const std::string& key, std::size_t layers)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry)
        return {};
    std::vector<float> values(layers, 0.0f);
    for (std::size_t il = 0; il < layers; ++il) {
        const auto value = entry->value.isArray() ? (il < entry->value.arrayLength() ? entry->value.element(il).toDouble() : std::nullopt)
                                                  : entry->value.toDouble();
        values[il] = static_cast<float>(value.value_or(0.0));
    }
    return values;
}
}  // namespace

GraphHyperparameters readGraphHyperparameters(const Model& model, const EstimateShape& shape)
{
    const std::string& arch = shape.architecture;
    const std::string p = arch + ".";
    GraphHyperparameters hp;
    const auto layers = static_cast<std::int64_t>(shape.layers.size());
    hp.graphLayers = layers - std::min(layers, number(model, p + "nextn_predict_layers"));

    hp.experts = number(model, p + "expert_count", 0, kMaxExperts);
    hp.expertsUsed = std::min(hp.experts, largest(model, p + "expert_used_count", kMaxExperts));
    hp.expertGroups = number(model, p + "expert_group_count", 0, kMaxExperts);
    hp.expertGroupsUsed = number(model, p + "expert_group_used_count", 0, kMaxExperts);
    // (step35 and mimo2 tell dense layers by their missing router and read no such key.)
    hp.denseLeadingLayers = arch == "step35" || arch == "mimo2" ? 0 : number(model, p + "leading_dense_block_count", 0, 1 << 20);

    // Routing: llama.cpp's defaults per architecture, then what the file says.
    const std::int64_t gating = number(model, p + "expert_gating_func", 0, 8);
    if (arch == "gpt-oss")
        hp.gating = ExpertGating::SoftmaxWeight;
    else if (gating == 2 || (gating == 0 && (arch == "glm4moe" || arch == "hy_v3")) || arch == "llama4" || arch == "mimo2")
        hp.gating = ExpertGating::Sigmoid;
    else if (gating == 3)
        hp.gating = ExpertGating::SoftmaxWeight;
    const auto normalize = model.findMetadata(p + "expert_weights_norm");
    const bool alwaysNormalized = arch == "llama" || arch == "qwen3moe" || arch == "qwen35moe" || arch == "phi3" || arch == "gemma4"
                                  || arch == "ernie4_5-moe" || arch == "minimax-m2" || arch == "mimo2" || arch == "qwen3next";
    hp.normalizeExpertWeights = alwaysNormalized || (normalize && normalize->value.toBool().value_or(false));
    const double scale = real(model, p + "expert_weights_scale").value_or(0.0);
    // (mimo2's loader does not read the scale: llama.cpp runs it as 0.)
    hp.scaleExpertWeights = arch != "gemma4" && arch != "llama4" && arch != "mimo2" && arch != "qwen3next" && scale != 0.0 && scale != 1.0;
    hp.weightsBeforeExperts = arch == "llama4";

    hp.attentionSoftcap = arch == "gemma2";
    hp.finalSoftcap = arch == "gemma2" || real(model, p + "final_logit_softcapping").value_or(0.0) != 0.0;
    // llama4 builds its temperature input whatever the file says (its chunked form, the one run).
    hp.attentionTemperature = arch == "llama4" || ((arch == "deepseek2" || arch == "mistral3") && real(model, p + "attention.temperature_scale").value_or(0.0) != 0.0);

    const double valueScale = real(model, p + "attention.value_scale").value_or(0.0);
    hp.attentionValueScale = arch == "mimo2" && valueScale != 0.0 && valueScale != 1.0;

    const MetadataEntry* sections = model.findMetadata(p + "rope.dimension_sections");
    const bool multiSection = sections && sections->value.isArray() && sections->value.arrayLength() >= 2
                              && sections->value.element(0).toUInt().value_or(0) > 0 && sections->value.element(1).toUInt().value_or(0) > 0;
    hp.positionsPerToken = arch == "qwen35" || arch == "qwen35moe" || (arch == "glm4moe" && multiSection) ? 4 : 1;

    const std::uint64_t keyLength = shape.layers.empty() ? 0 : shape.layers.front().keyLength;
    const std::uint64_t valueLength = shape.layers.empty() ? 0 : shape.layers.front().valueLength;
    hp.ropeDimensions = number(model, p + "rope.dimension_count", keyLength);
    hp.mlaKeyLength = number(model, p + "attention.key_length_mla", keyLength);
    hp.mlaValueLength = number(model, p + "attention.value_length_mla", valueLength);

    hp.ssmInner = number(model, p + "ssm.inner_size");
    hp.ssmState = number(model, p + "ssm.state_size", 0, 1 << 16);
    hp.ssmGroups = number(model, p + "ssm.group_count", 0, 1 << 16);
    hp.ssmValueHeads = number(model, p + "ssm.time_step_rank", 0, 1 << 16);
    hp.ssmConvKernel = number(model, p + "ssm.conv_kernel", 0, 1 << 10);
    hp.embeddingPerLayer = number(model, p + "embedding_length_per_layer_input");
    if (arch == "step35") {
        hp.swigluClampExperts = reals(model, p + "swiglu_clamp_exp", shape.layers.size());
        hp.swigluClampShared = reals(model, p + "swiglu_clamp_shexp", shape.layers.size());
    }
    return hp;
}

}  // namespace gguf
