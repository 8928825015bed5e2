#include "core/forward/ModelHyperparameters.h"

#include <cmath>
#include <optional>

namespace gguf {

namespace {

Error modelError(const Model& model, std::string message)
{
    return Error{std::move(message), Error::kNoOffset, model.primary().path()};
}

std::optional<double> metadataNumber(const Model& model, const std::string& key)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry || entry->value.isArray())
        return std::nullopt;
    return entry->value.toDouble();
}

// A positive whole number (as llama.cpp's get_key would read it), or an error naming the key.
Result<std::int64_t> requiredCount(const Model& model, const std::string& key)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry)
        return modelError(model, "the forward pass needs metadata key " + key);
    if (entry->value.isArray())
        return modelError(model, key + " is an array (per-layer values are not supported)");
    const auto value = entry->value.toUInt();
    if (!value || *value == 0 || *value > (std::uint64_t{1} << 31))
        return modelError(model, key + " must be a positive whole number");
    return static_cast<std::int64_t>(*value);
}

std::int64_t optionalCount(const Model& model, const std::string& key, std::int64_t fallback)
{
    const auto value = model.metadataUInt(key);
    return value && *value <= (std::uint64_t{1} << 31) ? static_cast<std::int64_t>(*value) : fallback;
}

// The keys the pass reads as one value for every layer: a per-layer array there (gemma4's
// head_count_kv, sliding_window_pattern) would otherwise be read as absent. Blocks with
// perLayerShapes read head counts, FFN widths and the sliding pattern per layer.
Status rejectPerLayerArrays(const Model& model, const std::string& prefix, bool perLayerShapes)
{
    for (const char* key : {"attention.head_count_kv", "attention.key_length", "attention.value_length", "expert_feed_forward_length",
                            "attention.sliding_window", "attention.sliding_window_pattern", "expert_shared_feed_forward_length",
                            "rope.dimension_count", "full_attention_interval", "attention.key_length_swa", "attention.value_length_swa",
                            "rope.dimension_count_swa", "attention.shared_kv_layers", "embedding_length_per_layer_input"}) {
        const std::string name(key);
        if (perLayerShapes && (name == "attention.head_count_kv" || name == "attention.sliding_window_pattern"))
            continue;
        if (const MetadataEntry* entry = model.findMetadata(prefix + key); entry && entry->value.isArray())
            return modelError(model, prefix + key + " is an array (per-layer values are not supported)");
    }
    return Ok{};
}

// One positive whole number per layer: an array of exactly `layers` values, or one value for
// all of them; absent: `fallback` when given, else an error naming the key.
Result<std::vector<std::int64_t>> perLayerCounts(const Model& model, const std::string& key, std::int64_t layers,
                                                 const std::vector<std::int64_t>* fallback)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry) {
        if (fallback)
            return *fallback;
        return modelError(model, "the forward pass needs metadata key " + key);
    }
    if (!entry->value.isArray()) {
        auto one = requiredCount(model, key);
        if (!one)
            return one.error();
        return std::vector<std::int64_t>(static_cast<std::size_t>(layers), *one);
    }
    if (entry->value.arrayLength() != static_cast<std::uint64_t>(layers))
        return modelError(model, key + " has " + std::to_string(entry->value.arrayLength()) + " values for " + std::to_string(layers)
                                     + " layers");
    std::vector<std::int64_t> values(static_cast<std::size_t>(layers));
    for (std::int64_t il = 0; il < layers; ++il) {
        const auto value = entry->value.element(static_cast<std::uint64_t>(il)).toUInt();
        if (!value || *value == 0 || *value > (std::uint64_t{1} << 31))
            return modelError(model, key + "[" + std::to_string(il) + "] must be a positive whole number");
        values[static_cast<std::size_t>(il)] = static_cast<std::int64_t>(*value);
    }
    return values;
}

// gemma4's per-layer shapes: sliding pattern (a bool per layer, or the usual period), head
// counts and FFN widths per layer, head and rope sizes per layer type, KV shared by the last
// attention.shared_kv_layers layers, per-layer inputs.
Status readPerLayerShapes(const Model& model, const std::string& prefix, const std::vector<std::int64_t>& heads,
                          const std::vector<std::int64_t>& feedForward, ModelHyperparameters& h)
{
    const std::int64_t layers = h.layerCount;
    if (const MetadataEntry* pattern = model.findMetadata(prefix + "attention.sliding_window_pattern"); pattern && pattern->value.isArray()) {
        if (pattern->value.arrayLength() < static_cast<std::uint64_t>(layers))
            return modelError(model, prefix + "attention.sliding_window_pattern has " + std::to_string(pattern->value.arrayLength())
                                         + " values for " + std::to_string(layers) + " layers");
        h.slidingLayers.assign(static_cast<std::size_t>(layers), 0);
        for (std::int64_t il = 0; il < layers; ++il) {
            const MetadataValue value = pattern->value.element(static_cast<std::uint64_t>(il));
            const auto flag = value.toBool();
            const auto number = value.toUInt();
            if (!flag && !number)
                return modelError(model, prefix + "attention.sliding_window_pattern[" + std::to_string(il) + "] is not a bool");
            h.slidingLayers[static_cast<std::size_t>(il)] = flag ? *flag : *number != 0;
        }
    }
    auto kvHeads = perLayerCounts(model, prefix + "attention.head_count_kv", layers, &heads);
    if (!kvHeads)
        return kvHeads.error();
    const std::int64_t keyFull = h.headDimension;
    const std::int64_t valueFull = h.valueDimension;
    const std::int64_t keySliding = optionalCount(model, prefix + "attention.key_length_swa", keyFull);
    const std::int64_t valueSliding = optionalCount(model, prefix + "attention.value_length_swa", keySliding);
    const std::int64_t ropeFull = h.ropeDimensions;
    const std::int64_t ropeSliding = optionalCount(model, prefix + "rope.dimension_count_swa", keySliding);
    if (keySliding <= 0 || keySliding % 2 != 0 || valueSliding != keySliding || valueFull != keyFull)
        return modelError(model, prefix + "attention.key_length(_swa) must be positive, even and equal to value_length(_swa)");
    if (ropeSliding <= 0 || ropeSliding > keySliding || ropeSliding % 2 != 0)
        return modelError(model, prefix + "rope.dimension_count_swa must be even and at most key_length_swa");
    h.layers.resize(static_cast<std::size_t>(layers));
    for (std::int64_t il = 0; il < layers; ++il) {
        const auto i = static_cast<std::size_t>(il);
        LayerShape& shape = h.layers[i];
        shape.sliding = h.isSlidingLayer(il);
        shape.headCount = heads[i];
        shape.headCountKv = (*kvHeads)[i];
        if (shape.headCount % shape.headCountKv != 0)
            return modelError(model, prefix + "attention.head_count_kv of layer " + std::to_string(il) + " must divide its head_count");
        shape.keyLength = shape.sliding ? keySliding : keyFull;
        shape.valueLength = shape.sliding ? valueSliding : valueFull;
        shape.ropeDimensions = shape.sliding ? ropeSliding : ropeFull;
        shape.feedForwardLength = feedForward[i];
        shape.kvSource = il;
    }
    if (h.block->allowsSharedKv) {
        h.sharedKvLayers = optionalCount(model, prefix + "attention.shared_kv_layers", 0);
        if (h.sharedKvLayers >= layers)
            return modelError(model, prefix + "attention.shared_kv_layers must be smaller than block_count");
        // llama.cpp: a shared layer reads the last sliding layer (first_shared - 2) or the last
        // full layer (first_shared - 1) before the shared ones.
        const std::int64_t firstShared = layers - h.sharedKvLayers;
        for (std::int64_t il = firstShared; il < layers; ++il) {
            LayerShape& shape = h.layers[static_cast<std::size_t>(il)];
            const std::int64_t source = firstShared - (shape.sliding ? 2 : 1);
            const LayerShape* from = source >= 0 ? &h.layers[static_cast<std::size_t>(source)] : nullptr;
            if (!from || from->sliding != shape.sliding || from->headCountKv != shape.headCountKv || from->keyLength != shape.keyLength)
                return modelError(model, "layer " + std::to_string(il) + " shares the KV of layer " + std::to_string(source)
                                             + " (attention.shared_kv_layers), which is not a layer of the same kind and shape");
            shape.kvSource = source;
        }
    }
    if (h.block->allowsPerLayerInputs)
        h.perLayerInputLength = optionalCount(model, prefix + "embedding_length_per_layer_input", 0);
    return Ok{};
}

}  // namespace

Result<ModelHyperparameters> readHyperparameters(const Model& model)
{
    ModelHyperparameters h;
    h.architecture = model.metadataString("general.architecture");
    h.block = findBlockDescription(h.architecture);
    if (!h.block) {
        std::string supported;
        for (auto name : supportedArchitectures())
            supported += (supported.empty() ? "" : ", ") + std::string(name);
        return modelError(model, "no forward pass for architecture '" + h.architecture + "' (supported: " + supported + ")");
    }
    const std::string prefix = h.architecture + ".";
    const bool perLayerShapes = h.block->perLayerShapes;
    if (Status flat = rejectPerLayerArrays(model, prefix, perLayerShapes); !flat)
        return flat.error();

    auto embedding = requiredCount(model, prefix + "embedding_length");
    auto layers = requiredCount(model, prefix + "block_count");
    for (const Result<std::int64_t>* r : {&embedding, &layers})
        if (!*r)
            return r->error();
    // Per-layer head counts and FFN widths (gemma4) are read for every stored block; the first
    // layer's value stands for the model where one number is needed.
    std::vector<std::int64_t> layerHeads, layerFeedForward;
    if (perLayerShapes) {
        if (static_cast<std::uint64_t>(*layers) > model.tensors().size())  // before anything is sized by it
            return modelError(model, prefix + "block_count is " + std::to_string(*layers) + " but the file has only "
                                         + std::to_string(model.tensors().size()) + " tensors");
        auto heads = perLayerCounts(model, prefix + "attention.head_count", *layers, nullptr);
        if (!heads)
            return heads.error();
        auto feedForward = perLayerCounts(model, prefix + "feed_forward_length", *layers, nullptr);
        if (!feedForward)
            return feedForward.error();
        layerHeads = std::move(*heads);
        layerFeedForward = std::move(*feedForward);
    }
    auto heads = perLayerShapes ? Result<std::int64_t>(layerHeads.front()) : requiredCount(model, prefix + "attention.head_count");
    auto feedForward = perLayerShapes ? Result<std::int64_t>(layerFeedForward.front()) : requiredCount(model, prefix + "feed_forward_length");
    for (const Result<std::int64_t>* r : {&heads, &feedForward})
        if (!*r)
            return r->error();
    h.embeddingLength = *embedding;
    // NextN / MTP blocks (nextn_predict_layers, GLM-4.5) are stored after the trunk and are not
    // run for the logits: llama_hparams::n_layer() = block_count - nextn_predict_layers.
    const std::int64_t nextn = optionalCount(model, prefix + "nextn_predict_layers", 0);
    if (nextn >= *layers)
        return modelError(model, prefix + "nextn_predict_layers must be smaller than block_count");
    h.layerCount = *layers - nextn;
    h.headCount = *heads;
    h.feedForwardLength = *feedForward;
    // Buffers are sized by the layer count (the hidden states keep every layer), so it is held
    // against the tensors first: every layer has an attention norm, and no file has more layers
    // than tensors.
    const std::string lastNorm = "blk." + std::to_string(h.layerCount - 1) + ".attn_norm.weight";
    if (static_cast<std::uint64_t>(h.layerCount) > model.tensors().size() || !model.findTensor(lastNorm))
        return modelError(model, prefix + "block_count is " + std::to_string(h.layerCount) + " but the file has no tensor " + lastNorm);
    h.headCountKv = optionalCount(model, prefix + "attention.head_count_kv", h.headCount);
    if (perLayerShapes)
        h.headCountKv = 1;  // checked per layer (readPerLayerShapes)
    if (h.headCountKv <= 0 || h.headCount % h.headCountKv != 0)
        return modelError(model, prefix + "attention.head_count_kv must divide attention.head_count");
    h.headDimension = optionalCount(model, prefix + "attention.key_length", h.embeddingLength / h.headCount);
    h.valueDimension = optionalCount(model, prefix + "attention.value_length", h.headDimension);
    if (h.valueDimension != h.headDimension && !h.block->multiHeadLatentAttention)
        return modelError(model, "attention.value_length different from attention.key_length is not supported");
    if (h.headDimension <= 0 || h.headDimension % 2 != 0)
        return modelError(model, prefix + "attention.key_length must be a positive even number");
    h.ropeDimensions = optionalCount(model, prefix + "rope.dimension_count", h.headDimension);
    if (h.block->multiHeadLatentAttention) {
        // The file's key/value_length are the absorbed sizes (kv_lora + rope, kv_lora) of one
        // latent head; the real per-head sizes are the _mla keys.
        h.qLoraRank = optionalCount(model, prefix + "attention.q_lora_rank", 0);
        auto kvLora = requiredCount(model, prefix + "attention.kv_lora_rank");
        if (!kvLora)
            return kvLora.error();
        h.kvLoraRank = *kvLora;
        h.mlaKeyLength = optionalCount(model, prefix + "attention.key_length_mla", h.headDimension);
        h.mlaValueLength = optionalCount(model, prefix + "attention.value_length_mla", h.valueDimension);
        if (h.headCountKv != 1 || h.headDimension != h.kvLoraRank + h.ropeDimensions || h.valueDimension != h.kvLoraRank
            || h.mlaKeyLength <= h.ropeDimensions || h.mlaValueLength <= 0)
            return modelError(model, "multi-head latent attention needs head_count_kv 1, key_length = kv_lora_rank + rope.dimension_count, "
                                     "value_length = kv_lora_rank and key_length_mla > rope.dimension_count");
    }
    if (h.ropeDimensions <= 0 || h.ropeDimensions > h.headDimension || h.ropeDimensions % 2 != 0)
        return modelError(model, prefix + "rope.dimension_count must be even and at most the head size");

    h.ropeFreqBase = static_cast<float>(metadataNumber(model, prefix + "rope.freq_base").value_or(10000.0));
    // llama_model::load_hparams: the factor applies whatever the type (absent type = linear).
    const std::string scaling = model.metadataString(prefix + "rope.scaling.type");
    if (!scaling.empty() && scaling != "none" && scaling != "linear" && scaling != "yarn")
        return modelError(model, "rope scaling '" + scaling + "' is not supported (only none, linear and yarn)");
    const auto factor = static_cast<float>(metadataNumber(model, prefix + "rope.scaling.factor").value_or(0.0));
    if (factor < 0.0f)
        return modelError(model, prefix + "rope.scaling.factor must not be negative");
    if (scaling != "none")
        h.ropeFreqScale = factor == 0.0f ? 1.0f : 1.0f / factor;
    if (scaling == "yarn" && h.ropeFreqScale != 1.0f) {
        h.ropeYarn = true;
        const float scale = 1.0f / h.ropeFreqScale;
        // llama_context: get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dims) with
        // the log multiplier, else get_mscale(factor, 1); then * 1 / (1 + 0.1 ln factor).
        const auto getMscale = [](float s, float mscale) { return s <= 1.0f ? 1.0f : (0.1f * mscale * std::log(s) + 1.0f); };
        float logMultiplier = static_cast<float>(metadataNumber(model, prefix + "rope.scaling.yarn_log_multiplier").value_or(0.0));
        if (h.block->yarnLogMultiplierInTenths)
            logMultiplier /= 0.1f;
        if (logMultiplier != 0.0f) {
            const float mscale = h.block->yarnLogMultiplierInTenths && logMultiplier != 1.0f ? logMultiplier : 1.0f;
            h.yarnAttnFactor = getMscale(scale, mscale) / getMscale(scale, logMultiplier);
        } else {
            h.yarnAttnFactor = getMscale(scale, 1.0f);
        }
        h.yarnAttnFactor *= 1.0f / (1.0f + 0.1f * std::log(scale));
        h.yarnAttnFactor *= static_cast<float>(metadataNumber(model, prefix + "rope.scaling.attn_factor").value_or(1.0));
        h.yarnLogMultiplier = logMultiplier;
        h.yarnBetaFast = static_cast<float>(metadataNumber(model, prefix + "rope.scaling.yarn_beta_fast").value_or(32.0));
        h.yarnBetaSlow = static_cast<float>(metadataNumber(model, prefix + "rope.scaling.yarn_beta_slow").value_or(1.0));
        h.yarnOriginalContext = optionalCount(model, prefix + "rope.scaling.original_context_length",
                                              optionalCount(model, prefix + "context_length", 0));
        if (h.yarnOriginalContext <= 0)
            return modelError(model, "YaRN rope scaling needs " + prefix + "rope.scaling.original_context_length");
    }
    const auto epsilon = metadataNumber(model, prefix + "attention.layer_norm_rms_epsilon");
    if (!epsilon)
        return modelError(model, "the forward pass needs metadata key " + prefix + "attention.layer_norm_rms_epsilon");
    h.rmsEpsilon = static_cast<float>(*epsilon);
    h.attentionScale = static_cast<float>(metadataNumber(model, prefix + "attention.scale").value_or(0.0));
    const BlockDescription& block = *h.block;
    if (block.forcedAttentionScale > 0.0f)
        h.attentionScale = block.forcedAttentionScale;
    if (block.attentionSoftcap)
        h.attentionSoftcap = static_cast<float>(metadataNumber(model, prefix + "attn_logit_softcapping").value_or(block.defaultAttentionSoftcap));
    h.finalSoftcap = static_cast<float>(metadataNumber(model, prefix + "final_logit_softcapping").value_or(block.defaultFinalSoftcap));
    if (h.attentionSoftcap < 0.0f || h.finalSoftcap < 0.0f)
        return modelError(model, "a logit softcapping value is negative");
    h.slidingWindow = optionalCount(model, prefix + "attention.sliding_window", block.defaultSlidingWindow);
    h.slidingPattern = optionalCount(model, prefix + "attention.sliding_window_pattern", block.defaultSlidingPattern);
    if (block.slidingRope == SlidingRope::SameAsGlobal) {
        h.ropeFreqBaseSliding = h.ropeFreqBase;
        h.ropeFreqScaleSliding = h.ropeFreqScale;
    }
    h.ropeFreqBaseSliding = static_cast<float>(metadataNumber(model, prefix + "rope.freq_base_swa").value_or(h.ropeFreqBaseSliding));

    if (block.multiSectionRope) {
        const MetadataEntry* sections = model.findMetadata(prefix + "rope.dimension_sections");
        if (!sections || !sections->value.isArray() || sections->value.arrayLength() < 3 || sections->value.arrayLength() > 4)
            return modelError(model, "the forward pass needs metadata key " + prefix + "rope.dimension_sections (3 or 4 whole numbers)");
        int total = 0;
        for (std::uint64_t i = 0; i < sections->value.arrayLength(); ++i) {
            const auto value = sections->value.element(i).toInt();
            if (!value || *value < 0 || *value > h.ropeDimensions)
                return modelError(model, prefix + "rope.dimension_sections must hold whole numbers from 0 to rope.dimension_count");
            h.ropeSections[static_cast<std::size_t>(i)] = static_cast<int>(*value);
            total += static_cast<int>(*value);
        }
        if (total <= 0)
            return modelError(model, prefix + "rope.dimension_sections must not all be 0");
    }
    if (block.defaultFullAttentionInterval > 0) {
        h.fullAttentionInterval = optionalCount(model, prefix + "full_attention_interval", block.defaultFullAttentionInterval);
        if (h.fullAttentionInterval <= 0)
            return modelError(model, prefix + "full_attention_interval must be positive");
        auto conv = requiredCount(model, prefix + "ssm.conv_kernel");
        auto state = requiredCount(model, prefix + "ssm.state_size");
        auto groups = requiredCount(model, prefix + "ssm.group_count");
        auto rank = requiredCount(model, prefix + "ssm.time_step_rank");
        auto inner = requiredCount(model, prefix + "ssm.inner_size");
        for (const Result<std::int64_t>* r : {&conv, &state, &groups, &rank, &inner})
            if (!*r)
                return r->error();
        h.ssmConvKernel = *conv;
        h.ssmStateSize = *state;
        h.ssmGroupCount = *groups;
        h.ssmTimeStepRank = *rank;
        h.ssmInnerSize = *inner;
        // llama.cpp sizes the state with ssm.state_size and the graph with inner / rank: they must
        // agree, and value heads take key head j mod group_count.
        constexpr std::int64_t kMaxSsm = std::int64_t{1} << 20;  // keeps every product below 2^62
        if (h.ssmConvKernel > kMaxSsm || h.ssmStateSize > kMaxSsm || h.ssmGroupCount > kMaxSsm || h.ssmTimeStepRank > kMaxSsm)
            return modelError(model, prefix + "ssm.* values above 2^20 are not supported");
        if (h.ssmInnerSize != h.ssmTimeStepRank * h.ssmStateSize || h.ssmTimeStepRank % h.ssmGroupCount != 0 || h.ssmConvKernel > 64)
            return modelError(model, prefix + "ssm.inner_size must be ssm.time_step_rank x ssm.state_size, with time_step_rank a "
                                              "multiple of ssm.group_count (and conv_kernel at most 64)");
    }
    h.expertCount = optionalCount(model, prefix + "expert_count", 0);
    h.expertUsedCount = optionalCount(model, prefix + "expert_used_count", 0);
    if (h.expertCount > 0 && (h.expertUsedCount <= 0 || h.expertUsedCount > h.expertCount))
        return modelError(model, prefix + "expert_used_count must be between 1 and expert_count");
    if (block.readsExpertWeightsScale)
        h.expertWeightsScale = static_cast<float>(metadataNumber(model, prefix + "expert_weights_scale").value_or(0.0));
    h.leadingDenseLayers = optionalCount(model, prefix + "leading_dense_block_count", 0);
    h.expertGroupCount = optionalCount(model, prefix + "expert_group_count", 0);
    h.expertGroupUsedCount = optionalCount(model, prefix + "expert_group_used_count", 0);
    h.expertFeedForwardLength = optionalCount(model, prefix + "expert_feed_forward_length", h.feedForwardLength);
    if (h.expertFeedForwardLength <= 0)
        return modelError(model, prefix + "expert_feed_forward_length must be positive");
    const std::int64_t sharedCount = optionalCount(model, prefix + "expert_shared_count", 1);
    h.sharedExpertFeedForwardLength = optionalCount(model, prefix + "expert_shared_feed_forward_length",
                                                    block.sharedExpertsFromCount ? h.expertFeedForwardLength * sharedCount : h.feedForwardLength);
    if (h.expertGroupCount > 1
        && (h.expertCount % h.expertGroupCount != 0 || h.expertGroupUsedCount <= 0 || h.expertGroupUsedCount > h.expertGroupCount
            || h.expertCount / h.expertGroupCount < 2))
        return modelError(model, prefix + "expert_group_count must divide expert_count (two or more experts a group), with "
                                          "expert_group_used_count from 1 to expert_group_count");
    h.expertGating = block.gating;
    if (const auto gating = model.metadataUInt(prefix + "expert_gating_func")) {
        // llama_expert_gating_func_type: 1 softmax, 2 sigmoid, 3 softmax of the selected logits.
        if (*gating == 1)
            h.expertGating = ExpertGating::Softmax;
        else if (*gating == 2)
            h.expertGating = ExpertGating::Sigmoid;
        else if (*gating == 3)
            h.expertGating = ExpertGating::SoftmaxSelected;
        else
            return modelError(model, prefix + "expert_gating_func " + std::to_string(*gating) + " is not supported (1 softmax, 2 sigmoid, 3 softmax of the selected)");
    }
    h.normalizeExpertWeights = block.normalizeExpertWeights;
    if (const MetadataEntry* norm = model.findMetadata(prefix + "expert_weights_norm"); norm && !norm->value.isArray())
        h.normalizeExpertWeights = norm->value.toBool().value_or(norm->value.toUInt().value_or(0) != 0);

    const TensorInfo* embeddings = model.findTensor("token_embd.weight");
    if (!embeddings)
        return modelError(model, "the forward pass needs tensor token_embd.weight");
    if (embeddings->ne[0] != h.embeddingLength || embeddings->nDims != 2)
        return modelError(model, "token_embd.weight must be [" + std::to_string(h.embeddingLength) + ", n_vocab]");
    h.vocabularySize = embeddings->ne[1];
    h.tiedOutput = model.findTensor("output.weight") == nullptr;
    if (perLayerShapes) {
        if (Status shapes = readPerLayerShapes(model, prefix, layerHeads, layerFeedForward, h); !shapes)
            return shapes.error();
    } else {
        h.layers.resize(static_cast<std::size_t>(h.layerCount));
        for (std::int64_t il = 0; il < h.layerCount; ++il)
            h.layers[static_cast<std::size_t>(il)] = LayerShape{h.headCount, h.headCountKv, h.headDimension, h.valueDimension, h.ropeDimensions,
                                                                h.feedForwardLength, h.isSlidingLayer(il), il};
    }
    return h;
}

}  // namespace gguf
