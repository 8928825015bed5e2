// rope.* as llama_model_base::load_hparams reads them and llama_context turns them into the rope's
// parameters (frequency scale, YaRN's attention factor and correction context).

#include "core/forward/HyperparameterParts.h"

#include <cmath>

namespace gguf {

namespace {

// mistral3's attention.temperature_scale: its floor length is llama.cpp's n_ctx_orig_yarn
// (original_context_length, else context_length), which must then be above 0.
void readAttentionTemperature(HyperparameterReader& r, std::int64_t originalContext, ModelHyperparameters& h)
{
    h.attentionTemperatureScale = r.real("attention.temperature_scale", 0.0f);
    if (!r.ok() || h.attentionTemperatureScale == 0.0f)
        return;
    h.attentionTemperatureFloor = originalContext;
    h.attentionTemperatureOffset = 0.0f;
    if (h.attentionTemperatureFloor == 0)
        r.refuse("attention.temperature_scale", "attention temperature needs an original context (rope.scaling.original_context_length "
                                                "or context_length) above 0 (llama.cpp: invalid n_ctx_orig_yarn)");
}

}  // namespace

void readRopeKeys(HyperparameterReader& r, ModelHyperparameters& h)
{
    r.flag("rope.scaling.finetuned", false);
    const std::int64_t originalContext = r.count("rope.scaling.original_context_length", h.contextLength);
    h.ropeFreqBase = r.real("rope.freq_base", 10000.0f, 0.0f);
    if (r.ok() && !(h.ropeFreqBase > 0.0f))
        r.refuse("rope.freq_base", "the forward pass needs a rope base above 0");
    const std::string scaling = r.text("rope.scaling.type", "linear");
    if (r.ok() && scaling != "none" && scaling != "linear" && scaling != "yarn")
        r.refuse("rope.scaling.type", "rope scaling '" + scaling + "' is not supported (only none, linear and yarn)");
    // The factor, or llama.cpp's older key for it; 0 = no scaling.
    const float factor = r.has("rope.scaling.factor") ? r.real("rope.scaling.factor", 0.0f, 0.0f) : r.real("rope.scale_linear", 0.0f, 0.0f);
    const float attnFactor = r.real("rope.scaling.attn_factor", 1.0f);
    r.real("rope.scaling.alpha", 0.0f);
    // deepseek2 alone reads the log multiplier, and uses it with or without YaRN (its kq_scale).
    if (h.block->yarnLogMultiplierInTenths)
        h.yarnLogMultiplier = r.real("rope.scaling.yarn_log_multiplier", 0.0f) / 0.1f;
    if (h.block->ropeKeys.readsYarnKeys) {
        h.yarnBetaFast = r.real("rope.scaling.yarn_beta_fast", h.yarnBetaFast);
        h.yarnBetaSlow = r.real("rope.scaling.yarn_beta_slow", h.yarnBetaSlow);
        h.yarnLogMultiplier = r.real("rope.scaling.yarn_log_multiplier", 0.0f);
    }
    if (!r.ok())
        return;

    // llama_context: "never scale if scaling type is none"; YaRN (ext_factor 1) whenever the type
    // is yarn, which changes nothing at scale 1, so it is run only below 1.
    if (scaling != "none")
        h.ropeFreqScale = factor == 0.0f ? 1.0f : 1.0f / factor;
    h.ropeAttnFactor = 1.0f;
    if (scaling == "yarn" && h.ropeFreqScale != 1.0f) {
        h.ropeYarn = true;
        const float scale = 1.0f / h.ropeFreqScale;
        // get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dims) with the log
        // multiplier, else get_mscale(factor, 1); then * 1 / (1 + 0.1 ln factor), which cancels
        // the magnitude correction ggml's rope applies itself.
        const auto getMscale = [](float s, float mscale) { return s <= 1.0f ? 1.0f : (0.1f * mscale * std::log(s) + 1.0f); };
        const float logMultiplier = h.yarnLogMultiplier;
        if (logMultiplier != 0.0f) {
            const float mscale = h.block->yarnLogMultiplierInTenths && logMultiplier != 1.0f ? logMultiplier : 1.0f;
            h.ropeAttnFactor = getMscale(scale, mscale) / getMscale(scale, logMultiplier);
        } else {
            h.ropeAttnFactor = getMscale(scale, 1.0f);
        }
        h.ropeAttnFactor *= 1.0f / (1.0f + 0.1f * std::log(scale));
        // cparams.n_ctx_orig_yarn: the file's original context, else the training context.
        h.yarnOriginalContext = originalContext != 0 ? originalContext : h.contextLength;
        if (h.yarnOriginalContext <= 0)
            r.refuse("rope.scaling.original_context_length", "YaRN rope scaling needs an original context (or context_length) above 0");
    }
    h.ropeAttnFactor *= attnFactor;  // with or without YaRN
    if (h.block->attention.temperature == AttentionTemperature::FromKey)
        readAttentionTemperature(r, originalContext, h);
    if (h.block->attention.temperature == AttentionTemperature::OnLayersWithoutRope) {
        // llama4's load_arch_hparams, hard-coded beside its chunks.
        h.attentionTemperatureScale = 0.1f;
        h.attentionTemperatureFloor = 8192;
        h.attentionTemperatureOffset = 1.0f;
    }
    // A finite factor can still make these overflow (a scale of 1e-45, a multiplier near the
    // f32 maximum divided by 0.1): llama.cpp would compute inf and NaN logits.
    if (!std::isfinite(h.ropeFreqScale))
        r.refuse(r.has("rope.scaling.factor") ? "rope.scaling.factor" : "rope.scale_linear", "its inverse, the frequency scale, is not finite");
    else if (!std::isfinite(h.yarnLogMultiplier))
        r.refuse("rope.scaling.yarn_log_multiplier", "divided by 0.1 (as llama.cpp reads deepseek2's) it is not finite");
    else if (!std::isfinite(h.ropeAttnFactor))
        r.refuse("rope.scaling.attn_factor", "the attention factor it makes with YaRN's is not finite");
}

}  // namespace gguf
