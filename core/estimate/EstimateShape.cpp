#include "core/estimate/EstimateShape.h"

#include "core/gguf/HyperparameterReader.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace gguf {

namespace {
// Bounds that no real model comes near; they keep every product below 2^64 for any file.
constexpr std::uint64_t kMaxHeads = 1 << 16;
constexpr std::uint64_t kMaxWidth = 1 << 24;  // a head size, n_embd, a vocabulary, an FFN width

std::uint64_t scalar(HyperparameterReader& r, const std::string& name, std::uint64_t fallback, std::uint64_t maximum = kMaxWidth)
{
    return static_cast<std::uint64_t>(r.count(name, static_cast<std::int64_t>(fallback), 0, static_cast<std::int64_t>(maximum)));
}

// A hyperparameter that is one number, or one number per layer (llama.cpp's get_key_or_arr).
// Empty when absent; refused when it is neither, or an array of the wrong length.
std::vector<std::uint64_t> perLayer(HyperparameterReader& r, const std::string& name, std::size_t layers, std::uint64_t maximum)
{
    const auto read = r.perLayer(name, static_cast<std::int64_t>(layers), std::vector<std::int64_t>{}, 0, static_cast<std::int64_t>(maximum));
    return std::vector<std::uint64_t>(read.begin(), read.end());
}

bool isOneOf(const std::string& arch, std::initializer_list<std::string_view> names)
{
    return std::find(names.begin(), names.end(), arch) != names.end();
}

// Layers that attend through a sliding window: the file's sliding_window_pattern (one flag per
// layer, or a period), else llama.cpp's built-in period, where layer il slides when
// il % period < period - 1 (llama_hparams::set_swa_pattern).
void markSlidingLayers(HyperparameterReader& r, EstimateShape& shape)
{
    const std::string& arch = shape.architecture;
    const std::size_t n = shape.layers.size();
    if (arch == "phi3") {
        // llama.cpp reads Phi-3's window and then disables it ("Phi SWA is currently disabled"):
        // every layer keeps the whole context.
        shape.slidingWindow = 0;
        return;
    }
    // Architectures that read the pattern as one flag per layer (into llama_hparams::is_swa_impl)
    // take a single value as that flag for every layer, not as a period.
    const bool flagsPerLayer = isOneOf(arch, {"gemma4", "gemma4-assistant", "cohere2moe", "mellum", "mimo2", "muse-glimmer", "step35"});
    if (r.isArray("attention.sliding_window_pattern") || (flagsPerLayer && r.has("attention.sliding_window_pattern"))) {
        // Most of them read one flag per layer of the trunk (n_layer(), the NextN blocks after it
        // left out); gemma4-assistant and step35 one per stored block.
        const std::size_t trunk = isOneOf(arch, {"gemma4-assistant", "step35"}) ? n : n - std::min<std::uint64_t>(scalar(r, "nextn_predict_layers", 0), n);
        const auto flags = perLayer(r, "attention.sliding_window_pattern", trunk, HyperparameterReader::kMaxCount);
        for (std::size_t il = 0; il < n && il < flags.size(); ++il)
            shape.layers[il].slidingWindow = flags[il] != 0;
        return;
    }
    std::uint64_t period = scalar(r, "attention.sliding_window_pattern", 0, HyperparameterReader::kMaxCount);
    if (period == 0 && !r.has("attention.sliding_window_pattern")) {
        static const std::array<std::pair<std::string_view, std::uint64_t>, 6> builtIn{
            {{"gemma2", 2}, {"gemma3", 6}, {"cohere2", 4}, {"gpt-oss", 2}, {"exaone4", 4}, {"llama4", 4}}};
        const auto it = std::find_if(builtIn.begin(), builtIn.end(), [&](const auto& row) { return arch == row.first; });
        if (it == builtIn.end()) {
            shape.exact = false;
            shape.notes.push_back("the model has a sliding window of " + std::to_string(shape.slidingWindow)
                                  + " tokens but no known pattern of sliding layers; every layer is counted in full");
            return;
        }
        period = it->second;
    }
    // llama_hparams::set_swa_pattern: period 0 makes every layer slide, 1 none.
    for (std::size_t il = 0; period != 1 && il < n; ++il)
        shape.layers[il].slidingWindow = period == 0 || il % period < period - 1;
}

// Recurrent layers and their state per sequence (llama_hparams::n_embd_r / n_embd_s).
void markRecurrentLayers(HyperparameterReader& r, EstimateShape& shape)
{
    const std::string& arch = shape.architecture;
    const std::size_t n = shape.layers.size();
    // Tighter bounds than kMaxWidth (real models: kernels of 4, states of 16 to 256) keep the
    // state products far below 2^64.
    const std::uint64_t convKernel = scalar(r, "ssm.conv_kernel", 0, 1 << 10);
    const std::uint64_t inner = scalar(r, "ssm.inner_size", 0);
    const std::uint64_t state = scalar(r, "ssm.state_size", 0, 1 << 16);
    const std::uint64_t groups = scalar(r, "ssm.group_count", 0, 1 << 16);
    const std::uint64_t wkvHead = scalar(r, "wkv.head_size", 0);
    const std::uint64_t shortConv = scalar(r, "shortconv.l_cache", 0, 1 << 10);
    if (wkvHead) {  // RWKV: token shift and the wkv state
        shape.convState = scalar(r, "token_shift_count", 2) * shape.embedding;
        shape.ssmState = shape.embedding * wkvHead;
    } else if (shortConv) {  // LFM2
        shape.convState = shape.embedding * (shortConv - 1);
        shape.ssmState = state * inner;
    } else {  // Mamba's conv and ssm states; Gated DeltaNet keeps the same two
        shape.convState = (convKernel ? convKernel - 1 : 0) * (inner + 2 * groups * state);
        shape.ssmState = state * inner;
    }

    if (isOneOf(arch, {"mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7"})) {
        for (EstimateLayer& layer : shape.layers)
            layer.recurrent = true;
        return;
    }
    if (isOneOf(arch, {"qwen35", "qwen35moe", "qwen3next"})) {
        // Full attention every `full_attention_interval` layers (default 4), unless the file
        // lists the recurrent layers itself.
        if (r.has("attention.recurrent_layers")) {
            const auto flags = perLayer(r, "attention.recurrent_layers", n, HyperparameterReader::kMaxCount);
            for (std::size_t il = 0; il < n && il < flags.size(); ++il)
                shape.layers[il].recurrent = flags[il] != 0;
        } else {
            // llama.cpp divides by it: 0 is refused.
            const std::uint64_t interval = static_cast<std::uint64_t>(r.count("full_attention_interval", 4, 1));
            for (std::size_t il = 0; il < n; ++il)
                shape.layers[il].recurrent = (il + 1) % interval != 0;
        }
        return;
    }
    // Other hybrids (Jamba, Falcon-H1, Granite-hybrid, Nemotron-H, LFM2): a layer without KV
    // heads is recurrent, as llama.cpp's loaders mark them, when the file gives a state's sizes.
    const bool stateKnown = shape.convState + shape.ssmState > 0;
    bool any = false, unknown = false;
    for (EstimateLayer& layer : shape.layers) {
        if (layer.kvHeads != 0)
            continue;
        layer.recurrent = stateKnown;
        any = any || stateKnown;
        unknown = unknown || !stateKnown;
    }
    // LFM2's are checked against its logs (tst_estimate_arch_logs).
    if (any && arch != "lfm2") {
        shape.exact = false;
        shape.notes.push_back("layers without KV heads are counted as recurrent, with llama.cpp's state sizes; "
                              "not checked against llama.cpp for " + arch);
    }
    if (unknown) {
        shape.exact = false;
        shape.notes.push_back("layers without KV heads keep a state the file does not describe; it is not estimated");
    }
}

}  // namespace

bool EstimateShape::hasSlidingLayers() const
{
    return std::any_of(layers.begin(), layers.end(), [](const EstimateLayer& l) { return !l.recurrent && l.slidingWindow; });
}

bool EstimateShape::hasFullLayers() const
{
    return std::any_of(layers.begin(), layers.end(), [](const EstimateLayer& l) { return !l.recurrent && !l.slidingWindow; });
}

Result<EstimateShape> readEstimateShape(const Model& model)
{
    EstimateShape shape;
    const std::string path = model.primary().path();
    HyperparameterReader general(model, "general.", "the memory estimate");
    const std::string arch = general.text("architecture", "");
    if (!general.ok())
        return general.error();
    if (arch.empty())
        return Error{"the model has no general.architecture, so its hyperparameters cannot be found", Error::kNoOffset, path};
    shape.architecture = arch;
    HyperparameterReader r(model, arch + ".", "the memory estimate");
    const auto n = static_cast<std::size_t>(r.requiredCount("block_count", 1, HyperparameterReader::kMaxLayers));
    if (!r.ok())
        return r.error();
    shape.layers.resize(n);
    shape.embedding = scalar(r, "embedding_length", 0);

    const auto heads = perLayer(r, "attention.head_count", n, kMaxHeads);
    auto kvHeads = perLayer(r, "attention.head_count_kv", n, kMaxHeads);
    if (kvHeads.empty())
        kvHeads = heads;  // llama.cpp's default: no grouping
    // n_embd_head_k and _v default to n_embd / n_head (of layer 0, as llama.cpp takes n_head()).
    const std::uint64_t firstHeads = heads.empty() ? 0 : heads.front();
    const std::uint64_t defaultHead = firstHeads ? shape.embedding / firstHeads : 0;
    const std::uint64_t keyLength = scalar(r, "attention.key_length", defaultHead);
    const std::uint64_t valueLength = scalar(r, "attention.value_length", defaultHead);
    const std::uint64_t keyLengthSwa = scalar(r, "attention.key_length_swa", keyLength);
    const std::uint64_t valueLengthSwa = scalar(r, "attention.value_length_swa", valueLength);
    for (std::size_t il = 0; il < n; ++il) {
        shape.layers[il].heads = heads.empty() ? 0 : heads[il];
        shape.layers[il].kvHeads = kvHeads.empty() ? 0 : kvHeads[il];
    }

    shape.slidingWindow = scalar(r, "attention.sliding_window", 0);
    // llama4 attends in chunks of 8192 (hard-coded) unless the file's window is 0.
    if (arch == "llama4")
        shape.slidingWindow = r.has("attention.sliding_window") && shape.slidingWindow == 0 ? 0 : 8192;
    if (shape.slidingWindow)
        markSlidingLayers(r, shape);
    for (EstimateLayer& layer : shape.layers) {
        layer.keyLength = layer.slidingWindow ? keyLengthSwa : keyLength;
        layer.valueLength = layer.slidingWindow ? valueLengthSwa : valueLength;
    }
    markRecurrentLayers(r, shape);

    // Gemma-3n/4: the last shared_kv_layers layers read the cache of an earlier layer of their
    // kind and keep none (llama_hparams::n_layer_kv_from_start).
    const std::uint64_t shared = scalar(r, "attention.shared_kv_layers", 0);
    for (std::size_t il = n - std::min<std::uint64_t>(shared, n); il < n; ++il)
        shape.layers[il].ownsCache = false;

    // The NextN blocks after the trunk keep no cache in a decoding context of these architectures
    // (llama_model::create_memory filters them out; glm4moe and deepseek2 keep theirs).
    if (isOneOf(arch, {"hy_v3", "step35", "mimo2", "glm-dsa", "deepseek32"}))
        for (std::size_t il = n - std::min<std::uint64_t>(scalar(r, "nextn_predict_layers", 0), n); il < n; ++il)
            shape.layers[il].ownsCache = false;

    // MLA (llama_hparams::is_mla): the file declares the absorbed head sizes; K holds the latent
    // and the rope part, and V is a view of K, so nothing is allocated for V.
    shape.mla = scalar(r, "attention.key_length_mla", 0) != 0 && scalar(r, "attention.value_length_mla", 0) != 0;
    shape.kvLoraRank = scalar(r, "attention.kv_lora_rank", 0);
    if (!shape.mla && shape.kvLoraRank)
        shape.notes.push_back("MLA weights without key_length_mla/value_length_mla: llama.cpp runs them unabsorbed, with a full K and V cache");

    shape.vocabulary = scalar(r, "vocab_size", 0);
    if (!shape.vocabulary) {
        const MetadataEntry* tokens = model.findMetadata("tokenizer.ggml.tokens");
        shape.vocabulary = tokens ? std::min<std::uint64_t>(tokens->value.arrayLength(), kMaxWidth) : 0;
    }
    if (!r.ok())
        return r.error();

    const bool anyAttention = std::any_of(shape.layers.begin(), shape.layers.end(), [](const EstimateLayer& l) { return !l.recurrent; });
    if (anyAttention && (keyLength == 0 || std::all_of(shape.layers.begin(), shape.layers.end(), [](const EstimateLayer& l) { return l.kvHeads == 0; }))) {
        shape.exact = false;
        shape.notes.push_back("the model does not state its attention heads (" + arch + ".attention.head_count); no KV cache estimated");
        for (EstimateLayer& layer : shape.layers)
            layer.kvHeads = 0;
    }
    return shape;
}

}  // namespace gguf
