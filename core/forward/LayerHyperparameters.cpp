// Which layers slide, which are recurrent, and each layer's shape, as the architecture's
// load_arch_hparams reads them.

#include "core/forward/HyperparameterParts.h"

#include <algorithm>

namespace gguf {

namespace {

// gemma4's per-layer shapes: head counts and FFN widths per layer, head and rope sizes per layer
// type, KV shared by the last attention.shared_kv_layers layers.
void readPerLayerShapes(HyperparameterReader& r, const std::vector<std::int64_t>& heads, const std::vector<std::int64_t>& kvHeads,
                        const std::vector<std::int64_t>& feedForward, ModelHyperparameters& h)
{
    const std::int64_t layers = h.layerCount;
    // Required for gemma4 (its load_arch_hparams reads them again, required).
    const std::int64_t keySliding = r.requiredCount("attention.key_length_swa", 1);
    const std::int64_t valueSliding = r.requiredCount("attention.value_length_swa", 1);
    const std::int64_t ropeSliding = r.count("rope.dimension_count_swa", h.ropeDimensions);
    h.sharedKvLayers = r.count("attention.shared_kv_layers", 0, 0, layers - 1);
    if (!r.ok())
        return;
    if (keySliding % 2 != 0 || valueSliding != keySliding || h.valueDimension != h.headDimension)
        return r.refuse("attention.key_length_swa", "attention.key_length(_swa) must be positive, even and equal to value_length(_swa)");
    if (ropeSliding <= 0 || ropeSliding > keySliding || ropeSliding % 2 != 0)
        return r.refuse("rope.dimension_count_swa", "rope.dimension_count_swa must be even and at most key_length_swa");
    h.layers.resize(static_cast<std::size_t>(layers));
    for (std::int64_t il = 0; il < layers; ++il) {
        const auto i = static_cast<std::size_t>(il);
        LayerShape& shape = h.layers[i];
        shape.sliding = h.isSlidingLayer(il);
        shape.headCount = heads[i];
        shape.headCountKv = kvHeads[i];
        if (shape.headCount % shape.headCountKv != 0)
            return r.refuse("attention.head_count_kv", "layer " + std::to_string(il) + "'s value must divide its head_count");
        shape.keyLength = shape.sliding ? keySliding : h.headDimension;
        shape.valueLength = shape.sliding ? valueSliding : h.valueDimension;
        shape.ropeDimensions = shape.sliding ? ropeSliding : h.ropeDimensions;
        shape.feedForwardLength = feedForward[i];
        shape.kvSource = il;
    }
    // llama.cpp: a shared layer reads the last sliding layer (first_shared - 2) or the last full
    // layer (first_shared - 1) before the shared ones.
    const std::int64_t firstShared = layers - h.sharedKvLayers;
    for (std::int64_t il = firstShared; il < layers; ++il) {
        LayerShape& shape = h.layers[static_cast<std::size_t>(il)];
        const std::int64_t source = firstShared - (shape.sliding ? 2 : 1);
        const LayerShape* from = source >= 0 ? &h.layers[static_cast<std::size_t>(source)] : nullptr;
        if (!from || from->sliding != shape.sliding || from->headCountKv != shape.headCountKv || from->keyLength != shape.keyLength)
            return r.refuse("attention.shared_kv_layers", "layer " + std::to_string(il) + " shares the KV of layer " + std::to_string(source)
                                                             + ", which is not a layer of the same kind and shape");
        shape.kvSource = source;
    }
}

// step35: the full layers rotate half of rope.dimension_count, the sliding ones
// rope.dimension_count_swa; both must be rotations ggml's NEOX rope runs.
void readHalfRopeOnFullLayers(HyperparameterReader& r, std::int64_t ropeSliding, ModelHyperparameters& h)
{
    const std::int64_t half = h.ropeDimensions / 2;
    if (half <= 0 || half % 2 != 0)
        return r.refuse("rope.dimension_count", "the full layers of " + h.architecture + " rotate half of it, which must be even and above 0");
    if (ropeSliding <= 0 || ropeSliding > h.headDimension || ropeSliding % 2 != 0)
        return r.refuse("rope.dimension_count_swa", "rope.dimension_count_swa must be even and at most the head size");
    for (LayerShape& shape : h.layers)
        shape.ropeDimensions = shape.sliding ? ropeSliding : half;
}

}  // namespace

void readSlidingWindowKeys(HyperparameterReader& r, ModelHyperparameters& h)
{
    const BlockDescription& block = *h.block;
    const std::int64_t layers = h.layerCount;
    switch (block.slidingWindows) {
    case SlidingWindows::None:
        return;
    case SlidingWindows::Disabled:
        r.count("attention.sliding_window", 0);
        return;
    case SlidingWindows::WhenWindowKey:
        h.slidingWindow = r.count("attention.sliding_window", 0);
        if (h.slidingWindow == 0)
            return;  // no window: llama.cpp reads neither the period nor the sliding rope base
        break;
    case SlidingWindows::Always:
        h.slidingWindow = block.defaultSlidingWindow > 0 ? r.count("attention.sliding_window", block.defaultSlidingWindow)
                                                         : r.requiredCount("attention.sliding_window", 0);
        break;
    case SlidingWindows::PerLayerFlags:
    case SlidingWindows::PerBlockFlags:
        h.slidingWindow = r.requiredCount("attention.sliding_window", 0);
        break;
    case SlidingWindows::Chunked:
        // llama.cpp keeps the key's value only to switch chunking off with 0, and then asserts
        // on its attention temperature while decoding.
        if (r.has("attention.sliding_window") && r.count("attention.sliding_window", 0) == 0 && r.ok())
            r.refuse("attention.sliding_window", "0 turns " + h.architecture + "'s chunks off, a form llama.cpp cannot decode (its "
                                                 "attention temperature asserts)");
        h.slidingWindow = block.defaultSlidingWindow;
        h.slidingChunked = true;
        break;
    }
    bool anySliding = false;
    if (block.slidingWindows == SlidingWindows::PerLayerFlags || block.slidingWindows == SlidingWindows::PerBlockFlags) {
        // One flag per layer of the trunk (llama.cpp sizes it by n_layer) or per stored block
        // (n_layer_all), or one for all; the trunk's are kept.
        const std::int64_t stored = block.slidingWindows == SlidingWindows::PerBlockFlags ? layers + h.nextnLayers : layers;
        const auto flags = r.perLayer("attention.sliding_window_pattern", stored, std::nullopt);
        h.slidingLayers.assign(std::min(flags.size(), static_cast<std::size_t>(layers)), 0);
        for (std::size_t il = 0; il < h.slidingLayers.size(); ++il)
            h.slidingLayers[il] = flags[il] != 0 ? 1 : 0;
        anySliding = std::find(h.slidingLayers.begin(), h.slidingLayers.end(), 1) != h.slidingLayers.end();
    } else {
        // llama.cpp reads one period here and ignores an array; the pass refuses one.
        if (r.isArray("attention.sliding_window_pattern"))
            r.refuse("attention.sliding_window_pattern", "the forward pass reads one period for " + h.architecture
                                                             + " (llama.cpp ignores a per-layer array there)");
        h.slidingPattern = r.count("attention.sliding_window_pattern", block.defaultSlidingPattern);
        anySliding = h.slidingPattern != 1 && layers > 0;  // period 1: no layer slides; 0: every one
    }
    if (r.ok() && h.slidingWindow == 0 && anySliding)
        r.refuse("attention.sliding_window", "a window of 0 masks every position of a sliding layer (llama.cpp's logits would be NaN)");
    if (block.slidingRope == SlidingRope::SameAsGlobal) {
        h.ropeFreqBaseSliding = h.ropeFreqBase;
        h.ropeFreqScaleSliding = h.ropeFreqScale;
    }
    h.ropeFreqBaseSliding = r.real("rope.freq_base_swa", h.ropeFreqBaseSliding, 0.0f);
    if (r.ok() && !(h.ropeFreqBaseSliding > 0.0f))
        r.refuse("rope.freq_base_swa", "the forward pass needs a rope base above 0");
}

void readRecurrentKeys(HyperparameterReader& r, std::int64_t allLayers, ModelHyperparameters& h)
{
    h.ssmConvKernel = r.requiredCount("ssm.conv_kernel");
    h.ssmInnerSize = r.requiredCount("ssm.inner_size");
    h.ssmStateSize = r.requiredCount("ssm.state_size");
    h.ssmTimeStepRank = r.requiredCount("ssm.time_step_rank");
    h.ssmGroupCount = r.requiredCount("ssm.group_count");
    if (r.has("attention.recurrent_layers")) {
        // One flag per stored layer; the NextN layers after the trunk are attention (not run here).
        const auto flags = r.perLayer("attention.recurrent_layers", allLayers, std::nullopt);
        h.recurrentLayers.assign(static_cast<std::size_t>(h.layerCount), 0);
        for (std::size_t il = 0; il < h.recurrentLayers.size() && il < flags.size(); ++il)
            h.recurrentLayers[il] = flags[il] != 0 ? 1 : 0;
    } else {
        // llama.cpp divides by it: 0 is refused.
        h.fullAttentionInterval = r.count("full_attention_interval", h.block->defaultFullAttentionInterval, 1);
    }
    if (!r.ok())
        return;
    // llama.cpp sizes the state with ssm.state_size and the graph with inner / rank: they must
    // agree, and value heads take key head j mod group_count.
    constexpr std::int64_t kMaxSsm = std::int64_t{1} << 20;  // keeps every product below 2^62
    if (h.ssmConvKernel > 64)
        return r.refuse("ssm.conv_kernel", "the forward pass runs kernels of at most 64");
    for (const char* name : {"ssm.state_size", "ssm.group_count", "ssm.time_step_rank"})
        if (r.count(name, 0) > kMaxSsm)
            return r.refuse(name, "ssm.* values above 2^20 are not supported");
    if (h.ssmInnerSize != h.ssmTimeStepRank * h.ssmStateSize || h.ssmTimeStepRank % h.ssmGroupCount != 0)
        r.refuse("ssm.inner_size", "ssm.inner_size must be ssm.time_step_rank x ssm.state_size, with time_step_rank a multiple of "
                                   "ssm.group_count");
}

void readLayerShapes(HyperparameterReader& r, const std::vector<std::int64_t>& heads, const std::vector<std::int64_t>& kvHeads,
                     const std::vector<std::int64_t>& feedForward, ModelHyperparameters& h)
{
    if (h.block->perLayerShapes)
        return readPerLayerShapes(r, heads, kvHeads, feedForward, h);
    // Every architecture reads the sliding layers' sizes (llama_model_base::load_hparams); the
    // others' graphs take layer 0's head and rope sizes for every layer, so they must agree.
    const std::int64_t keySliding = r.count("attention.key_length_swa", h.headDimension, 1);
    const std::int64_t valueSliding = r.count("attention.value_length_swa", h.valueDimension, 1);
    const std::int64_t ropeSliding = r.count("rope.dimension_count_swa", h.ropeDimensions);
    if (!r.ok())
        return;
    h.layers.resize(static_cast<std::size_t>(h.layerCount));
    bool anySliding = false;
    for (std::int64_t il = 0; il < h.layerCount; ++il) {
        // The head counts are one for all layers unless the block reads them per layer.
        const auto i = static_cast<std::size_t>(il);
        if (heads[i] % kvHeads[i] != 0)
            return r.refuse("attention.head_count_kv", "layer " + std::to_string(il) + "'s value must divide its head_count");
        h.layers[i] = LayerShape{heads[i], kvHeads[i], h.headDimension, h.valueDimension, h.ropeDimensions, h.feedForwardLength,
                                 h.isSlidingLayer(il), il};
        anySliding = anySliding || h.isSlidingLayer(il);
    }
    const bool halfRope = h.block->attention.halfRopeOnFullLayers;
    if (halfRope)
        readHalfRopeOnFullLayers(r, ropeSliding, h);
    if (!anySliding || !r.ok())
        return;
    const auto differs = [&](const char* name, std::int64_t value, std::int64_t full) {
        if (value != full)
            r.refuse(name, "sliding layers of another size than the others (" + std::to_string(full) + ") are run for gemma4 only");
    };
    differs("attention.key_length_swa", keySliding, h.headDimension);
    differs("attention.value_length_swa", valueSliding, h.valueDimension);
    if (!halfRope)
        differs("rope.dimension_count_swa", ropeSliding, h.ropeDimensions);
}

}  // namespace gguf
