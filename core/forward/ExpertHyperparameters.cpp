// The MoE keys: the common ones and llama.cpp's checks of them (llama_model_base::load_hparams),
// then what each architecture's load_arch_hparams reads (BlockDescription::expertWidth,
// sharedExperts, and its ExpertPart: the routing keys and which layers route).

#include "core/forward/HyperparameterParts.h"

namespace gguf {

namespace {

constexpr std::int64_t kMaxExperts = 1024;  // LLAMA_MAX_EXPERTS

// llama.cpp's GGML_ASSERTs on the expert counts (a failed one aborts llama.cpp; here a refusal).
void checkExpertCounts(HyperparameterReader& r, const ModelHyperparameters& h)
{
    const std::string experts = std::to_string(h.expertCount);
    if (h.expertCount == 0) {
        if (h.expertUsedCount != 0)
            r.refuse("expert_used_count", "a model without expert_count routes no experts");
        else if (h.expertGroupCount != 0)
            r.refuse("expert_group_count", "a model without expert_count has no expert groups");
        return;
    }
    if (h.expertUsedCount == 0 || h.expertUsedCount > h.expertCount)
        r.refuse("expert_used_count", "it must be from 1 to expert_count (" + experts + ")");
    else if (h.expertGroupCount >= h.expertCount)
        r.refuse("expert_group_count", "it must be below expert_count (" + experts + ")");
    else if (h.expertGroupCount > 1
             && (h.expertCount % h.expertGroupCount != 0 || h.expertCount / h.expertGroupCount < 2 || h.expertGroupUsedCount == 0
                 || h.expertGroupUsedCount >= h.expertGroupCount))
        r.refuse("expert_group_count", "it must divide expert_count (" + experts
                                           + ") into groups of two or more experts, with expert_group_used_count from 1 to one below it");
}

void readRoutingKeys(HyperparameterReader& r, const Model& model, std::int64_t allLayers, ModelHyperparameters& h)
{
    const BlockDescription& block = *h.block;
    const RoutingKeys& keys = block.experts.keys;
    h.expertGating = block.gating;
    h.normalizeExpertWeights = block.normalizeExpertWeights;
    if (keys.leadingDense)
        h.leadingDenseLayers = r.count("leading_dense_block_count", 0, 0, allLayers);
    if (keys.weightsScale)
        h.expertWeightsScale = r.real("expert_weights_scale", 0.0f);
    if (keys.weightsNorm)
        h.normalizeExpertWeights = r.flag("expert_weights_norm", block.normalizeExpertWeights);
    if (!keys.gating)
        return;
    // llama_expert_gating_func_type: 0 none (the architecture's default), 1 softmax, 2 sigmoid,
    // 3 softmax of the selected; 4 (sqrt of softplus) is not run here.
    const std::int64_t gating = r.count("expert_gating_func", 0);
    if (!r.ok())
        return;
    if (gating == 0 && block.deepseekLoadRules && (h.layerCount == 47 || h.layerCount == 48)
        && declaredVocabularySize(r, model) == 154880)
        h.expertGating = ExpertGating::Sigmoid;  // GLM-4.7-Lite converted as deepseek2
    else if (gating == 1)
        h.expertGating = ExpertGating::Softmax;
    else if (gating == 2)
        h.expertGating = ExpertGating::Sigmoid;
    else if (gating == 3)
        h.expertGating = ExpertGating::SoftmaxSelected;
    else if (gating == 0 && keys.gatingRequired)
        r.refuse("expert_gating_func", "llama.cpp has no default router for " + h.architecture + " (it aborts without one)");
    else if (gating != 0)
        r.refuse("expert_gating_func", "the forward pass runs 1 (softmax), 2 (sigmoid) and 3 (softmax of the selected)");
}

// Which layers route, when the block's rule is not the leading dense count alone: one flag per
// layer of the trunk.
void readExpertLayers(HyperparameterReader& r, const Model& model, ModelHyperparameters& h)
{
    const ExpertLayers rule = h.block->experts.layers;
    if ((rule == ExpertLayers::EveryStep || h.block->experts.requiresExperts) && h.expertCount == 0)
        return r.refuse("expert_count", h.architecture + " cannot have zero experts (llama.cpp refuses the model)");
    if (rule == ExpertLayers::AfterLeadingDense || h.expertCount == 0)
        return;
    std::int64_t step = 1;
    if (rule == ExpertLayers::EveryStep || rule == ExpertLayers::AfterLeadingDenseStepOne)
        step = r.requiredCount("interleave_moe_layer_step", 1, HyperparameterReader::kMaxLayers);
    if (!r.ok())
        return;
    if (rule == ExpertLayers::AfterLeadingDenseStepOne && step != 1)
        return r.refuse("interleave_moe_layer_step", "llama.cpp loads experts on every layer after the dense ones but routes only every "
                                                     "step-th of them: only 1 makes a file it can run");
    h.expertLayers.assign(static_cast<std::size_t>(h.layerCount), 0);
    for (std::int64_t il = 0; il < h.layerCount; ++il) {
        bool routes = false;
        switch (rule) {
        case ExpertLayers::AfterLeadingDense:
        case ExpertLayers::AfterLeadingDenseStepOne:
            routes = il >= h.leadingDenseLayers;
            break;
        case ExpertLayers::EveryStep:
            routes = (il + 1) % step == 0;
            break;
        case ExpertLayers::WithRouter:
            routes = model.findTensor("blk." + std::to_string(il) + ".ffn_gate_inp.weight") != nullptr;
            break;
        }
        h.expertLayers[static_cast<std::size_t>(il)] = routes ? 1 : 0;
    }
}

}  // namespace

void readExpertKeys(HyperparameterReader& r, const Model& model, std::int64_t allLayers, ModelHyperparameters& h)
{
    const BlockDescription& block = *h.block;
    h.expertUsedCount = oneForAllLayers(r, "expert_used_count", allLayers, 0, 0, kMaxExperts);
    h.expertGroupCount = r.count("expert_group_count", 0, 0, kMaxExperts);
    h.expertGroupUsedCount = r.count("expert_group_used_count", 0, 0, kMaxExperts);
    if (!r.ok())
        return;
    checkExpertCounts(r, h);

    switch (block.expertWidth) {
    case ExpertWidth::FeedForwardLength:
        h.expertFeedForwardLength = h.feedForwardLength;
        break;
    case ExpertWidth::KeyOrPerUsed: {
        const std::int64_t width = oneForAllLayers(r, "expert_feed_forward_length", allLayers, 0, 0);
        h.expertFeedForwardLength = width != 0 || h.expertUsedCount == 0 ? width : h.feedForwardLength / h.expertUsedCount;
        break;
    }
    case ExpertWidth::Key:
        h.expertFeedForwardLength = oneForAllLayers(r, "expert_feed_forward_length", allLayers, 0, 0);
        break;
    case ExpertWidth::KeyRequired:
        h.expertFeedForwardLength = oneForAllLayers(r, "expert_feed_forward_length", allLayers, std::nullopt, 0);
        break;
    case ExpertWidth::KeyRequiredFeedForwardLength:
        oneForAllLayers(r, "expert_feed_forward_length", allLayers, std::nullopt, 0);
        h.expertFeedForwardLength = h.feedForwardLength;
        break;
    }
    switch (block.sharedExperts) {
    case SharedExperts::None:
        h.sharedExpertFeedForwardLength = h.feedForwardLength;
        break;
    case SharedExperts::WidthKey: {
        const std::int64_t width = r.count("expert_shared_feed_forward_length", 0);
        h.sharedExpertFeedForwardLength = width != 0 ? width : h.feedForwardLength;
        break;
    }
    case SharedExperts::FromCount:
        h.sharedExpertFeedForwardLength = h.expertFeedForwardLength * r.requiredCount("expert_shared_count", 0, kMaxExperts);
        break;
    case SharedExperts::WidthKeyOrNone:
        h.sharedExpertFeedForwardLength = r.count("expert_shared_feed_forward_length", 0);
        break;
    case SharedExperts::WidthKeyOrExperts: {
        const std::int64_t width = r.count("expert_shared_feed_forward_length", 0);
        h.sharedExpertFeedForwardLength = width != 0 ? width : h.expertFeedForwardLength;
        break;
    }
    case SharedExperts::ExpertWidth:
        h.sharedExpertFeedForwardLength = h.expertFeedForwardLength;
        break;
    }
    readRoutingKeys(r, model, allLayers, h);
    readExpertLayers(r, model, h);
    if (r.ok() && h.expertCount > 0 && h.expertFeedForwardLength <= 0)
        r.refuse("expert_feed_forward_length", "the experts need a width above 0");
}

}  // namespace gguf
