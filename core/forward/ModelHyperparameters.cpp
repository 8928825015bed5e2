#include "core/forward/ModelHyperparameters.h"

#include "core/forward/HyperparameterParts.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace gguf {

namespace {

constexpr const char* kReader = "the forward pass";

Error modelError(const Model& model, std::string message)
{
    return Error{std::move(message), Error::kNoOffset, model.primary().path()};
}

// rope.dimension_sections: qwen35's multi-section rope (4 values, required), or glm4moe's, which
// is read but not run.
void readRopeSections(HyperparameterReader& r, ModelHyperparameters& h)
{
    const BlockDescription& block = *h.block;
    if (block.ropeSectionsRefused) {
        const auto sections = r.integers("rope.dimension_sections", 4, false, std::numeric_limits<std::int32_t>::min(),
                                         std::numeric_limits<std::int32_t>::max());
        if (sections.size() == 4 && sections[0] > 0 && sections[1] > 0)  // llama_hparams::use_mrope
            r.refuse("rope.dimension_sections", "multi-section rope (the multimodal form) is not run for " + h.architecture);
        return;
    }
    if (!block.multiSectionRope)
        return;
    const auto sections = r.integers("rope.dimension_sections", 4, true, 0, h.ropeDimensions);
    if (!r.ok())
        return;
    int total = 0;
    for (std::size_t i = 0; i < sections.size(); ++i) {
        h.ropeSections[i] = static_cast<int>(sections[i]);
        total += h.ropeSections[i];
    }
    if (total <= 0)
        r.refuse("rope.dimension_sections", "the sections must not all be 0");
}

// Multi-head latent attention (deepseek2's load_arch_hparams). The file's key/value_length are
// the absorbed sizes (kv_lora + rope, kv_lora) of one latent head; the real per-head sizes are
// the _mla keys, both or neither (llama_hparams::is_mla).
void readLatentAttentionKeys(HyperparameterReader& r, const Model& model, ModelHyperparameters& h)
{
    const BlockDescription& block = *h.block;
    const std::int64_t layers = h.layerCount;
    const bool lite = block.deepseekLoadRules
                   && (layers == 26 || layers == 27 || (layers == 48 && declaredVocabularySize(r, model) == 128256));
    h.qLoraRank = lite ? 0 : r.requiredCount("attention.q_lora_rank", 0);
    h.kvLoraRank = r.requiredCount("attention.kv_lora_rank");
    const std::int64_t keyMla = r.count("attention.key_length_mla", 0);
    const std::int64_t valueMla = r.count("attention.value_length_mla", 0);
    const bool mla = keyMla != 0 && valueMla != 0;
    h.mlaKeyLength = mla ? keyMla : h.headDimension;
    h.mlaValueLength = mla ? valueMla : h.valueDimension;
    if (block.deepseekLoadRules) {
        if (r.real("attention.temperature_scale", 0.0f) != 0.0f)
            r.refuse("attention.temperature_scale", "attention temperature tuning is not run by the forward pass");
        r.count("attention.temperature_length", 0);
    }
    if (!r.ok())
        return;
    if (h.headCountKv != 1 || h.headDimension != h.kvLoraRank + h.ropeDimensions || h.valueDimension != h.kvLoraRank
        || h.mlaKeyLength <= h.ropeDimensions || h.mlaValueLength <= 0)
        r.fail("multi-head latent attention needs head_count_kv 1, key_length = kv_lora_rank + rope.dimension_count, "
               "value_length = kv_lora_rank and key_length_mla > rope.dimension_count");
}

// The NextN blocks llama.cpp loads after the trunk (blk.N.nextn.*): there when
// nextn_predict_layers says so and the architecture has them (or absent altogether where its
// loader takes the trunk alone), and not inside the trunk (which would run them as ordinary
// layers). llama.cpp refuses a file whose tensors are not the ones
// the keys ask for.
Status checkNextNBlocks(HyperparameterReader& r, const Model& model, const ModelHyperparameters& h, std::int64_t nextn)
{
    const auto projection = [](std::int64_t layer) { return "blk." + std::to_string(layer) + ".nextn.eh_proj.weight"; };
    if (nextn > 0 && !h.block->allowsNextN)
        r.refuse("nextn_predict_layers", h.architecture + " has no NextN blocks in llama.cpp");
    else if (nextn > 0 && !model.findTensor(projection(h.layerCount)) && !h.block->nextnMayBeAbsent)
        r.refuse("nextn_predict_layers", "block " + std::to_string(h.layerCount) + " has no NextN tensors (" + projection(h.layerCount) + ")");
    else if (model.findTensor(projection(h.layerCount - 1)))
        r.refuse("nextn_predict_layers", "block " + std::to_string(h.layerCount - 1) + " holds NextN tensors but would run as a layer of the trunk");
    return r.status();
}

// The softcaps of the block, with its defaults; one applied whatever it is must be above 0.
void readSoftcaps(HyperparameterReader& r, ModelHyperparameters& h)
{
    const BlockDescription& block = *h.block;
    const auto positive = [&r](const char* name, float fallback) {
        const float cap = r.real(name, fallback, 0.0f);
        if (r.ok() && cap == 0.0f)
            r.refuse(name, "it is applied whatever it is, so it must be above 0 (llama.cpp divides by it)");
        return cap;
    };
    if (block.attentionSoftcap)
        h.attentionSoftcap = positive("attn_logit_softcapping", block.defaultAttentionSoftcap);
    if (block.finalSoftcap == FinalSoftcap::Always)
        h.finalSoftcap = positive("final_logit_softcapping", block.defaultFinalSoftcap);
    else if (block.finalSoftcap == FinalSoftcap::Optional)
        h.finalSoftcap = r.real("final_logit_softcapping", block.defaultFinalSoftcap, 0.0f);
}

// Head and rope sizes (read when the model has heads, as every one here does), with the pass's
// checks of them.
void readHeadSizes(HyperparameterReader& r, ModelHyperparameters& h)
{
    const std::int64_t defaultHead = h.embeddingLength / h.headCount;
    h.headDimension = r.count("attention.key_length", defaultHead, 1);
    h.valueDimension = r.count("attention.value_length", defaultHead, 1);
    h.ropeDimensions = r.count("rope.dimension_count", h.headDimension);
    if (!r.ok())
        return;
    if (h.valueDimension != h.headDimension && !h.block->multiHeadLatentAttention && !h.block->attention.valueLengthApart)
        r.refuse("attention.value_length", "a value_length different from attention.key_length is not supported");
    else if (h.headDimension <= 0 || h.headDimension % 2 != 0)
        r.refuse("attention.key_length", "attention.key_length must be a positive even number");
    else if (h.block->ropeWholeHead && h.ropeDimensions != h.headDimension)
        r.refuse("rope.dimension_count", "llama.cpp requires it to equal attention.key_length (" + std::to_string(h.headDimension) + ") for "
                                             + h.architecture);
    else if (h.ropeDimensions <= 0 || h.ropeDimensions > h.headDimension || h.ropeDimensions % 2 != 0)
        r.refuse("rope.dimension_count", "rope.dimension_count must be even and at most the head size");
}

// lfm2: head_count_kv per layer, 0 marking the short-convolution layers; the attention layers
// share one count (returned), and shortconv.l_cache sizes the convolution.
std::int64_t readRecurrentByKvHeads(HyperparameterReader& r, std::int64_t allLayers, std::int64_t heads, ModelHyperparameters& h)
{
    const auto kvHeads = r.perLayer("attention.head_count_kv", allLayers, std::vector<std::int64_t>(static_cast<std::size_t>(allLayers), heads), 0);
    h.shortConvCache = r.requiredCount("shortconv.l_cache", 0, 64);
    if (r.ok() && r.has("attention.sliding_window") && r.count("attention.sliding_window", 0) > 0)
        r.refuse("attention.sliding_window", "sliding attention layers are not run for " + h.architecture);
    if (!r.ok())
        return 1;
    if (h.shortConvCache <= 1) {
        r.refuse("shortconv.l_cache", "llama.cpp needs more than 1 (it keeps l_cache - 1 positions of state)");
        return 1;
    }
    std::int64_t shared = 0;
    h.recurrentLayers.assign(kvHeads.size(), 0);
    for (std::size_t il = 0; il < kvHeads.size(); ++il) {
        h.recurrentLayers[il] = kvHeads[il] == 0 ? 1 : 0;
        if (kvHeads[il] != 0 && shared != 0 && kvHeads[il] != shared) {
            r.refuse("attention.head_count_kv", "the forward pass runs one KV head count for every attention layer of " + h.architecture);
            return 1;
        }
        if (kvHeads[il] != 0)
            shared = kvHeads[il];
    }
    if (shared == 0)
        r.refuse("attention.head_count_kv", "no layer has attention heads");
    return shared == 0 ? 1 : shared;
}

}  // namespace

std::int64_t oneForAllLayers(HyperparameterReader& r, std::string_view name, std::int64_t layers, std::optional<std::int64_t> fallback,
                             std::int64_t minimum, std::int64_t maximum)
{
    std::optional<std::vector<std::int64_t>> all;
    if (fallback)
        all.emplace(static_cast<std::size_t>(layers), *fallback);
    const auto values = r.perLayer(name, layers, all, minimum, maximum);
    if (r.ok() && std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end())
        r.refuse(name, std::string(kReader) + " runs one value for every layer of " + r.prefix().substr(0, r.prefix().size() - 1));
    return values.empty() ? fallback.value_or(minimum) : values.front();
}

std::int64_t declaredVocabularySize(HyperparameterReader& r, const Model& model)
{
    if (r.has("vocab_size"))
        return r.count("vocab_size", 0);
    const MetadataEntry* tokens = model.findMetadata("tokenizer.ggml.tokens");
    return tokens && tokens->value.isArray() ? static_cast<std::int64_t>(tokens->value.storedLength()) : 0;
}

Result<ModelHyperparameters> readHyperparameters(const Model& model)
{
    ModelHyperparameters h;
    HyperparameterReader general(model, "general.", kReader);
    h.architecture = general.text("architecture", "");
    general.text("name", "");
    if (!general.ok())
        return general.error();
    h.block = findBlockDescription(h.architecture);
    if (!h.block) {
        std::string supported;
        for (auto name : supportedArchitectures())
            supported += (supported.empty() ? "" : ", ") + std::string(name);
        return modelError(model, "no forward pass for architecture '" + h.architecture + "' (supported: " + supported + ")");
    }
    const BlockDescription& block = *h.block;
    HyperparameterReader r(model, h.architecture + ".", kReader);

    // llama_model_base::load_hparams, in its order: what every architecture reads.
    h.contextLength = r.requiredCount("context_length", 0);
    h.embeddingLength = r.requiredCount("embedding_length");
    r.count("embedding_length_out", 0);
    if (!r.flag("attention.causal", true))
        r.refuse("attention.causal", "the forward pass runs causal attention only");
    r.count("pooling_type", 0);
    const std::int64_t allLayers = r.requiredCount("block_count", 1, HyperparameterReader::kMaxLayers);
    // NextN / MTP blocks (nextn_predict_layers, GLM-4.5) are stored after the trunk and are not
    // run for the logits: llama_hparams::n_layer() = block_count - nextn_predict_layers.
    const std::int64_t nextn = r.count("nextn_predict_layers", 0, 0, allLayers - 1);
    h.expertCount = r.count("expert_count", 0, 0, 1024);  // LLAMA_MAX_EXPERTS
    if (!r.ok())
        return r.error();
    h.layerCount = allLayers - nextn;
    h.nextnLayers = nextn;
    if (Status nextnBlocks = checkNextNBlocks(r, model, h, nextn); !nextnBlocks)
        return nextnBlocks.error();
    // Per-layer head counts and FFN widths (gemma4) are read for every stored block; the first
    // layer's value stands for the model where one number is needed. Other blocks run one value.
    std::vector<std::int64_t> feedForward, heads, kvHeads;
    if (block.perLayerShapes) {
        feedForward = r.perLayer("feed_forward_length", allLayers, std::nullopt, 1);
        heads = r.perLayer("attention.head_count", allLayers, std::nullopt, 1);
        if (r.ok())
            kvHeads = r.perLayer("attention.head_count_kv", allLayers, heads, 1);
    } else if (block.attention.perLayerHeadCounts) {
        feedForward.assign(static_cast<std::size_t>(allLayers), oneForAllLayers(r, "feed_forward_length", allLayers, std::nullopt, 1));
        heads = r.perLayer("attention.head_count", allLayers, std::nullopt, 1);
        if (r.ok())
            kvHeads = r.perLayer("attention.head_count_kv", allLayers, heads, 1);
    } else {
        feedForward.assign(static_cast<std::size_t>(allLayers), oneForAllLayers(r, "feed_forward_length", allLayers, std::nullopt, 1));
        heads.assign(static_cast<std::size_t>(allLayers), oneForAllLayers(r, "attention.head_count", allLayers, std::nullopt, 1));
        if (r.ok() && block.hybrid.recurrentWhereNoKvHeads)
            kvHeads.assign(static_cast<std::size_t>(allLayers), readRecurrentByKvHeads(r, allLayers, heads.front(), h));
        else if (r.ok())
            kvHeads.assign(static_cast<std::size_t>(allLayers), oneForAllLayers(r, "attention.head_count_kv", allLayers, heads.front(), 1));
    }
    if (!r.ok())
        return r.error();
    h.feedForwardLength = feedForward.front();
    h.headCount = heads.front();
    h.headCountKv = kvHeads.front();
    readExpertKeys(r, model, allLayers, h);
    readRopeKeys(r, h);
    readHeadSizes(r, h);
    if (!r.ok())
        return r.error();
    if (!block.perLayerShapes && !block.attention.perLayerHeadCounts && h.headCount % h.headCountKv != 0)
        r.refuse("attention.head_count_kv", "attention.head_count_kv must divide attention.head_count");

    // The architecture's own keys (its load_arch_hparams).
    h.rmsEpsilon = r.requiredReal("attention.layer_norm_rms_epsilon", 0.0f);
    if (block.readsVocabSize)
        r.count("vocab_size", 0);
    readSoftcaps(r, h);
    if (block.attention.readsValueScale) {
        // mimo2 keeps the value only when it is not 1; a scale of 0 would zero every layer's attention.
        const float valueScale = r.real("attention.value_scale", 1.0f);
        if (r.ok() && !(valueScale > 0.0f))
            r.refuse("attention.value_scale", "the forward pass needs a scale above 0");
        h.attentionValueScale = valueScale != 1.0f ? valueScale : 0.0f;
    }
    if (block.denseFeedForward.readsSwigluClamps) {
        h.swigluClampExperts = r.perLayerReals("swiglu_clamp_exp", allLayers);
        h.swigluClampShared = r.perLayerReals("swiglu_clamp_shexp", allLayers);
    }
    readRopeSections(r, h);
    if (block.defaultFullAttentionInterval > 0)
        readRecurrentKeys(r, allLayers, h);
    if (block.multiHeadLatentAttention)
        readLatentAttentionKeys(r, model, h);
    if (block.allowsPerLayerInputs) {
        h.perLayerInputLength = r.requiredCount("embedding_length_per_layer_input", 0);
        if (r.ok() && h.perLayerInputLength == 0 && model.findTensor("per_layer_token_embd.weight"))
            r.refuse("embedding_length_per_layer_input", "the file has per-layer inputs (per_layer_token_embd.weight) that 0 leaves unused");
    }
    readSlidingWindowKeys(r, h);
    if (!r.ok())
        return r.error();

    h.attentionScale = block.forcedAttentionScale;
    if (block.wideQueryScaleLayers > 0 && h.layerCount == block.wideQueryScaleLayers) {
        if (h.embeddingLength < h.headCount)
            return modelError(model, r.prefix() + "attention.head_count is above embedding_length: the query scale 1/sqrt(n_embd / n_head) "
                                                  "llama.cpp gives this form would be infinite");
        h.attentionScale = 1.0f / std::sqrt(static_cast<float>(h.embeddingLength / h.headCount));
    }
    // Buffers are sized by the layer count (the hidden states keep every layer), so it is held
    // against the tensors: every layer has an attention norm.
    const std::string lastNorm = "blk." + std::to_string(h.layerCount - 1) + ".attn_norm.weight";
    if (!model.findTensor(lastNorm))
        return modelError(model, r.prefix() + "block_count is " + std::to_string(h.layerCount) + " but the file has no tensor " + lastNorm);
    const TensorInfo* embeddings = model.findTensor("token_embd.weight");
    if (!embeddings)
        return modelError(model, "the forward pass needs tensor token_embd.weight");
    if (embeddings->ne[0] != h.embeddingLength || embeddings->nDims != 2)
        return modelError(model, "token_embd.weight must be [" + std::to_string(h.embeddingLength) + ", n_vocab]");
    h.vocabularySize = embeddings->ne[1];
    h.tiedOutput = model.findTensor("output.weight") == nullptr;
    readLayerShapes(r, heads, kvHeads, feedForward, h);
    if (!r.ok())
        return r.error();
    return h;
}

}  // namespace gguf
