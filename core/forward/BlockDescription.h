#pragma once
// What one architecture's transformer block is, as data: the shared pass (ForwardPass.cpp and its
// steps) reads this and never branches on an architecture name. Adding an architecture whose
// block is a variation of the ones described is one new Arch<Name>.cpp file that fills this in,
// plus its line in ArchitectureList.cpp. Every field is read by the pass or by
// readHyperparameters (the defaults llama.cpp applies for that architecture).

#include <string_view>
#include <vector>

namespace gguf {

// How RoPE pairs the dimensions of a head (ggml's rope modes).
enum class RopePairing {
    Adjacent,  // LLAMA_ROPE_TYPE_NORM: (x[2i], x[2i+1])
    Halves,    // LLAMA_ROPE_TYPE_NEOX: (x[i], x[i + n_rot/2])
};

// The gated activation of the FFN (llama.cpp's build_ffn / build_moe_ffn type_op).
enum class FeedForwardActivation {
    Silu,       // LLM_FFN_SILU, gated: ggml_swiglu_split
    Gelu,       // LLM_FFN_GELU, gated: ggml_geglu_split (ggml's f16 GELU table)
    SwigluOai,  // LLM_FFN_SWIGLU_OAI_MOE: clamped, alpha 1.702, limit 7 (gpt-oss)
};

// How router logits become expert weights (llama_expert_gating_func_type). A file's
// `<arch>.expert_gating_func` key overrides the architecture's default.
enum class ExpertGating {
    Softmax,          // softmax over all experts, then top-k of the probabilities
    Sigmoid,          // sigmoid of each logit, then top-k (plus exp_probs_b for the choice only)
    SoftmaxSelected,  // top-k of the logits, softmax over the k chosen (gpt-oss)
};

// Where the rope base and scale of sliding-window layers come from when the file has no
// `rope.freq_base_swa`: llama.cpp's hparams default (10000, scale 1) or the global layers' values.
enum class SlidingRope { Default10000, SameAsGlobal };

// How the architecture's load_arch_hparams reads its sliding window (llama_hparams::swa_type).
enum class SlidingWindows {
    None,           // no window; the sliding keys are not read
    Disabled,       // attention.sliding_window is read, then switched off (phi3: "Phi SWA is disabled")
    Always,         // a window (defaultSlidingWindow when absent; required when that is 0) and a period
    WhenWindowKey,  // only when the file has a window above 0 (gemma3); then a period
    PerLayerFlags,  // window required, sliding_window_pattern required: one flag per layer (gemma4)
    PerBlockFlags,  // the same with one flag per stored block, the NextN blocks after the trunk too (step35)
    // llama4: chunks of defaultSlidingWindow (hard-coded; the key only must not be 0, which
    // llama.cpp cannot run), layer il chunked when il % pattern < pattern - 1 (default pattern
    // defaultSlidingPattern), the chunked layers' rope base rope.freq_base_swa else the global one
    Chunked,
};

// How the routed experts' width (expert_feed_forward_length) is read.
enum class ExpertWidth {
    FeedForwardLength,  // not read: the experts are feed_forward_length wide (llama / Mixtral)
    KeyOrPerUsed,       // optional; absent or 0: feed_forward_length / expert_used_count (Qwen MoE)
    Key,                // optional; absent: 0, which no expert tensor fits (gemma4)
    KeyRequired,        // required (gpt-oss, DeepSeek, GLM)
    // required, but the experts are feed_forward_length wide (minimax-m2 reads the key and sizes
    // its expert tensors by n_ff; the converter writes the same value to both)
    KeyRequiredFeedForwardLength,
};

// How the shared experts' width is read.
enum class SharedExperts {
    None,       // no key is read; shared-expert tensors, if any, are feed_forward_length wide
    WidthKey,   // expert_shared_feed_forward_length; absent or 0: feed_forward_length (qwen35moe)
    FromCount,  // expert_shared_count (required) experts of the routed width (DeepSeek, GLM)
    WidthKeyOrNone,     // expert_shared_feed_forward_length; absent or 0: no shared expert (ernie4_5-moe)
    WidthKeyOrExperts,  // expert_shared_feed_forward_length; absent or 0: the routed width (hy_v3)
    ExpertWidth,        // no key is read: one shared expert of the routed width (llama4)
};

// Which layers of an MoE model route (the others run the dense FFN).
enum class ExpertLayers {
    AfterLeadingDense,  // layer il >= leading_dense_block_count (0 when not read)
    EveryStep,          // (il + 1) % interleave_moe_layer_step == 0, the step required (llama4)
    // il >= leading_dense_block_count, interleave_moe_layer_step required: llama.cpp's graph routes
    // only every step-th layer but its loader gives every one experts, so only 1 loads (ernie4_5-moe)
    AfterLeadingDenseStepOne,
    WithRouter,         // the layers whose file has ffn_gate_inp (hy_v3: its loader makes both optional)
};

// The MoE keys an architecture's load_arch_hparams reads beside the widths, one by one.
struct RoutingKeys {
    bool leadingDense = false;  // leading_dense_block_count
    bool gating = false;        // expert_gating_func (absent or 0: the block's gating)
    bool gatingRequired = false;  // expert_gating_func must say (llama.cpp has no default: minimax-m2)
    bool weightsScale = false;  // expert_weights_scale (absent: 0, no scale)
    bool weightsNorm = false;   // expert_weights_norm (absent: the block's normalizeExpertWeights)
};
inline constexpr RoutingKeys kAllRoutingKeys{.leadingDense = true, .gating = true, .weightsScale = true, .weightsNorm = true};

// The token mixer's attention options of the architectures added since the first ones (the
// older attention fields stay in BlockDescription).
// Llama-4-style attention temperature: q (after rope) times 1 + scale * ln(floor((pos + offset) /
// floor_length) + 1) per position (llama_graph's llm_graph_input_attn_temp).
enum class AttentionTemperature {
    None,
    // attention.temperature_scale (0 = off); floor_length = the original context (rope.scaling.
    // original_context_length, else context_length), offset 0 (mistral3)
    FromKey,
    // llama4: floor 8192, scale 0.1, offset 1, hard-coded, on the layers without rope only
    OnLayersWithoutRope,
};

struct AttentionPart {
    // attn_q_norm / attn_k_norm span the whole projection (n_head x head size): one RMS norm over
    // all heads of a token, before the heads are split and roped (minimax-m2); required.
    bool qkNormAcrossHeads = false;
    AttentionTemperature temperature = AttentionTemperature::None;
    // Layers with (il + 1) % step == 0 get no rope (llama4's hard-coded n_no_rope_layer_step 4); 0: none.
    unsigned noRopeLayerStep = 0;
    // The roped layers' q and k then get a weightless RMS norm per head (llama4's L2 norm, eps =
    // the RMS epsilon), unless the model has 128 experts (llama4 17B-128E: use_kq_norm false).
    bool normAfterRopeUnless128Experts = false;
    // head_count and head_count_kv may be per-layer arrays (llama.cpp's get_key_or_arr over every
    // stored block) and each layer runs its own counts; the head sizes stay one for all (mimo2).
    bool perLayerHeadCounts = false;
    // attention.value_length may differ from key_length: V heads of another size (mimo2).
    bool valueLengthApart = false;
    // attn_sinks on the layers whose file has it, the others without (mimo2).
    bool sinksWherePresent = false;
    // attention.value_scale (optional): the attention's output, after attn_output, times it when
    // it is not 1 (mimo2's f_attn_value_scale).
    bool readsValueScale = false;
    // The full-attention layers rotate rope.dimension_count / 2 (step35's hard-coded n_rot_full / 2),
    // the sliding ones rope.dimension_count_swa (default rope.dimension_count); rope_freqs holds
    // the widest layer's factors and a layer takes the first of them.
    bool halfRopeOnFullLayers = false;
    // attn_gate [n_embd, n_head] where the file has it: head h's attention output times
    // sigmoid(attn_gate . x)[h] before attn_output, x the attention's normed input (step35).
    bool headGate = false;
    // Projection biases on q, k and v only: llama.cpp's loader never creates attn_output.bias, so
    // a file with one fails there ("wrong number of tensors"; seed_oss).
    bool refusesOutputBias = false;
};

// Rope keys some architectures' load_arch_hparams read beside the common ones.
struct RopePart {
    // rope.scaling.yarn_beta_fast / _slow and yarn_log_multiplier (as stored: the mscale_all_dim of
    // llama_context's YaRN factor; mistral3)
    bool readsYarnKeys = false;
};

// The token mixer of the layers without attention in a hybrid stack.
enum class RecurrentMixer {
    GatedDeltaNet,  // Qwen3.5's linear attention (RecurrentStep.h)
    ShortConv,      // LFM2's gated short convolution (ShortConvStep.h)
};

// Hybrid stacks whose layer kinds the 2026 architectures set apart by their own rules.
struct HybridPart {
    RecurrentMixer recurrentMixer = RecurrentMixer::GatedDeltaNet;
    // head_count_kv is read per layer and a layer without KV heads runs the recurrent mixer
    // (lfm2); the attention layers must then share one KV head count.
    bool recurrentWhereNoKvHeads = false;
    std::string_view outputNorm = "output_norm";  // the final norm's tensor (lfm2: token_embd_norm)
    // Gated DeltaNet as Qwen3-Next lays it out: beta and alpha from one ssm_ba [n_embd, 2 x value
    // heads] whose rows go per key head [beta of its value heads, alpha of them], and value head
    // j reading key head j / (value heads / key heads) (Qwen3.5: ssm_beta, ssm_alpha, key head j
    // mod key heads).
    bool deltaNetGroupedHeads = false;
};

// The dense FFN's options of the architectures added since the first ones.
struct DenseFeedForwardPart {
    bool allowsBiases = false;  // optional ffn_gate / ffn_up / ffn_down biases (mistral3)
    // swiglu_clamp_exp / swiglu_clamp_shexp per layer (optional, 0 = none): the SwiGLU of the
    // routed experts, and of the shared expert and the dense FFN, is min(silu(gate), L) *
    // clamp(up, -L, L) with the layer's L (step35).
    bool readsSwigluClamps = false;
};

// The channel mixer's MoE part: which layers route, which keys it reads, and the options of
// the architectures added since (the first MoE fields stay in BlockDescription).
struct ExpertPart {
    RoutingKeys keys{};
    ExpertLayers layers = ExpertLayers::AfterLeadingDense;
    // The choice bias is blk.N.exp_probs_b, without the usual ".bias" (hy_v3 names it so).
    bool bareSelectionBias = false;
    // llama4: top-k chosen on the router logits, and each chosen expert's weight (its gating's
    // probability) multiplies the expert's input, not its output.
    bool weightsOnInput = false;
    // The loader refuses a model without experts (qwen3next: every layer's router is required).
    bool requiresExperts = false;
};

// How final_logit_softcapping is read.
enum class FinalSoftcap {
    None,      // not read: no softcap
    Optional,  // read (defaultFinalSoftcap when absent); 0 = none
    Always,    // applied whatever it is: must be above 0 (gemma2: llama.cpp divides by it)
};

struct BlockDescription {
    std::string_view architecture;  // general.architecture value this block serves
    RopePairing rope = RopePairing::Adjacent;

    // Attention.
    bool fusedQkv = false;         // one attn_qkv.weight with the q, then k, then v rows (phi3)
    bool scaleQueryFirst = false;  // q is multiplied by the scale before q.k (gemma, phi3), not the scores
    // Optional tensors the pass uses when the file has them (a missing one is simply skipped):
    // biases on q/k/v/output and per-head RMSNorm of q and k before RoPE.
    bool allowsProjectionBiases = false;
    bool allowsQkNorm = false;
    bool hasAttentionSinks = false;  // attn_sinks.weight: one extra logit per head in the softmax
    // attn_q.weight holds, per head, the query and then a gate of the same size; the attention
    // output is multiplied by sigmoid(gate) before attn_output (Qwen3.5 full-attention layers).
    bool gatedAttention = false;
    // Multi-section rope (IMROPE, rope.dimension_sections): text positions on the t/h/w sections,
    // 0 on the fourth; pairs are rotated as NEOX halves.
    bool multiSectionRope = false;

    // Multi-head latent attention (DeepSeek-V2/V3, as llama.cpp runs files with split
    // attn_k_b / attn_v_b): q from attn_q or attn_q_a + norm + attn_q_b, a compressed kv from
    // attn_kv_a_mqa, the no-rope part of q absorbed through attn_k_b, one shared latent head.
    bool multiHeadLatentAttention = false;
    // rope.scaling.yarn_log_multiplier is read (deepseek2 only), written by DeepSeek's converter
    // as 0.1 x mscale_all_dim: llama.cpp divides it by 0.1 and also takes it as mscale (its YaRN fix).
    bool yarnLogMultiplierInTenths = false;
    // deepseek2's load_arch_hparams: "lite" models (26 or 27 layers, or 48 with a 128256-token
    // vocabulary) read no q_lora_rank; without expert_gating_func, GLM-4.7-Lite (47 or 48 layers,
    // 154880 tokens) gates by sigmoid; attention.temperature_scale (not run here) is read.
    bool deepseekLoadRules = false;
    bool ropeWholeHead = false;  // rope.dimension_count must equal key_length (llama: "invalid n_rot")
    // NextN / MTP blocks after the trunk (nextn_predict_layers, blk.N.nextn.*) are loaded by
    // llama.cpp (and not run for the logits); other architectures refuse them.
    bool allowsNextN = false;
    // ... and a file that declares them without their tensors (no blk.<n_layer>.nextn.eh_proj) is
    // the trunk alone, which llama.cpp loads (its loaders' trunk_only: glm4moe, deepseek2, hy_v3,
    // mimo2, step35); the others refuse it (a missing tensor).
    bool nextnMayBeAbsent = false;
    // rope.dimension_sections is read but not run (glm4moe: multi-section rope for GLM-4.5V):
    // a file whose sections turn it on (the first two above 0) is refused.
    bool ropeSectionsRefused = false;

    // Hybrid stacks (Qwen3.5): Gated DeltaNet recurrent layers beside full attention; layer il is
    // full attention iff (il + 1) % full_attention_interval == 0 (this default when the key is
    // absent). 0 = every layer is attention.
    unsigned defaultFullAttentionInterval = 0;

    // Sliding-window attention and llama.cpp's defaults when the keys are absent. Layer il is
    // local when il % pattern < pattern - 1 (llama_hparams::set_swa_pattern).
    SlidingWindows slidingWindows = SlidingWindows::None;
    long long defaultSlidingWindow = 0;
    unsigned defaultSlidingPattern = 0;
    SlidingRope slidingRope = SlidingRope::Default10000;
    // Softcaps, with llama.cpp's defaults when the keys are absent.
    bool attentionSoftcap = false;  // attn_logit_softcapping: tanh(kq / cap) * cap before the softmax, cap above 0
    float defaultAttentionSoftcap = 0.0f;
    FinalSoftcap finalSoftcap = FinalSoftcap::None;
    float defaultFinalSoftcap = 0.0f;
    // The query scale of the 27B form (gemma2: 46 layers, gemma3: 62), which llama.cpp picks by the
    // layer count: 1/sqrt(n_embd / n_head) instead of 1/sqrt(key_length). 0: none.
    long long wideQueryScaleLayers = 0;

    // Norms and residual stream.
    bool embeddingScaled = false;  // token embeddings * sqrt(n_embd) (gemma)
    bool postNorms = false;        // post_attention_norm / post_ffw_norm on each branch's output (gemma)
    std::string_view feedForwardNorm = "ffn_norm";  // the norm before the FFN

    // Feed-forward.
    FeedForwardActivation activation = FeedForwardActivation::Silu;
    bool fusedGateUp = false;  // ffn_up.weight holds the gate rows, then the up rows (phi3)
    ExpertGating gating = ExpertGating::Softmax;  // expert_gating_func absent or 0 (when read)
    ExpertWidth expertWidth = ExpertWidth::FeedForwardLength;
    SharedExperts sharedExperts = SharedExperts::None;
    // llama.cpp's build_moe_ffn `norm_w`: divide the selected experts' weights by their sum
    // (clamped below at 6.103515625e-5, the smallest normal f16); `expert_weights_norm` overrides
    // where it is read.
    bool normalizeExpertWeights = true;
    bool readsVocabSize = false;  // vocab_size is read (llama, deepseek2): only its type matters here

    // Gemma 4 (src/models/gemma4-iswa.cpp). Per-layer shapes: head_count, head_count_kv and
    // feed_forward_length may be per-layer arrays, sliding_window_pattern a per-layer bool array,
    // and sliding layers have their own key/value_length_swa and rope.dimension_count_swa.
    bool perLayerShapes = false;
    float forcedAttentionScale = 0.0f;  // > 0: the scores' scale whatever the file says (gemma4: 1)
    bool valueNorm = false;             // V is RMS-normed per head without a weight
    bool keyAsValue = false;            // a layer without attn_v uses the K projection (before its norm) as V
    bool ropeFreqsOnGlobalOnly = false; // rope_freqs.weight applies to the full-attention layers only
    // attention.shared_kv_layers: the last N layers read the (post-rope) K/V of the last sliding /
    // full layer before them instead of projecting their own.
    bool allowsSharedKv = false;
    // embedding_length_per_layer_input > 0: per-layer token embeddings mixed into each layer's
    // output through inp_gate / proj / post_norm (PerLayerInputStep.h).
    bool allowsPerLayerInputs = false;
    bool allowsLayerOutputScale = false;  // blk.N.layer_output_scale.weight multiplies the layer's output
    // The MoE layer is the dense FFN (ffn_norm, post_ffw_norm_1) plus the routed experts
    // (pre_ffw_norm_2, post_ffw_norm_2) side by side; the router reads
    // rms_norm(residual) / sqrt(n_embd) * ffn_gate_inp.scale; experts are one fused
    // ffn_gate_up_exps and their outputs are multiplied by ffn_down_exps.scale.
    bool expertsBesideDense = false;

    ExpertPart experts{};
    AttentionPart attention{};
    RopePart ropeKeys{};
    DenseFeedForwardPart denseFeedForward{};
    HybridPart hybrid{};
};

// One function per Arch*.cpp file; ArchitectureList.cpp lists them (an explicit list, since a
// self-registering object in a static library is dropped by the linker when nothing names it).
const BlockDescription& llamaBlockDescription();
const BlockDescription& qwen2BlockDescription();
const BlockDescription& qwen3BlockDescription();
const BlockDescription& qwen3MoeBlockDescription();
const BlockDescription& phi3BlockDescription();
const BlockDescription& gemma2BlockDescription();
const BlockDescription& gemma3BlockDescription();
const BlockDescription& qwen35BlockDescription();
const BlockDescription& qwen35MoeBlockDescription();
const BlockDescription& gptOssBlockDescription();
const BlockDescription& deepseek2BlockDescription();
const BlockDescription& glm4MoeBlockDescription();
const BlockDescription& gemma4BlockDescription();
const BlockDescription& seedOssBlockDescription();
const BlockDescription& ernie45MoeBlockDescription();
const BlockDescription& hyV3BlockDescription();
const BlockDescription& minimaxM2BlockDescription();
const BlockDescription& mistral3BlockDescription();
const BlockDescription& llama4BlockDescription();
const BlockDescription& lfm2BlockDescription();
const BlockDescription& mimo2BlockDescription();
const BlockDescription& step35BlockDescription();
const BlockDescription& qwen3NextBlockDescription();

// The block for an architecture name, or nullptr when no file describes it.
const BlockDescription* findBlockDescription(std::string_view architecture);
// Every registered architecture, for error messages ("supported: llama").
std::vector<std::string_view> supportedArchitectures();

}  // namespace gguf
