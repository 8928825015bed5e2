#include "core/estimate/EstimateShape.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace gguf {

namespace {
// Bounds that no real model comes near; they keep every product below 2^64 for any file.
constexpr std::uint64_t kMaxLayers = 100000;
constexpr std::uint64_t kMaxHeads = 1 << 16;
constexpr std::uint64_t kMaxWidth = 1 << 24;  // a head size, n_embd, a vocabulary, an FFN width

std::optional<std::uint64_t> number(const MetadataValue& value)
{
    if (const auto flag = value.toBool())
        return *flag ? 1 : 0;
    return value.toUInt();
}

// A hyperparameter that is one number, or one number per layer (llama.cpp's get_key_or_arr).
// Empty when absent; an error when it is neither, or an array of the wrong length.
Result<std::vector<std::uint64_t>> perLayer(const Model& model, const std::string& key, std::size_t layers, std::uint64_t maximum)
{
    const MetadataEntry* entry = model.findMetadata(key);
    std::vector<std::uint64_t> values;
    if (!entry)
        return values;
    const auto bad = [&](const std::string& what) {
        return Error{key + " " + what, Error::kNoOffset, model.primary().path()};
    };
    if (!entry->value.isArray()) {
        const auto value = number(entry->value);
        if (!value || *value > maximum)
            return bad("is not a whole number up to " + std::to_string(maximum));
        return std::vector<std::uint64_t>(layers, *value);
    }
    if (entry->value.arrayLength() != layers)
        return bad("has " + std::to_string(entry->value.arrayLength()) + " values for " + std::to_string(layers) + " layers");
    for (std::size_t i = 0; i < layers; ++i) {
        const auto value = number(entry->value.element(i));
        if (!value || *value > maximum)
            return bad("[" + std::to_string(i) + "] is not a whole number up to " + std::to_string(maximum));
        values.push_back(*value);
    }
    return values;
}

std::uint64_t scalar(const Model& model, const std::string& key, std::uint64_t fallback, std::uint64_t maximum = kMaxWidth)
{
    const auto value = model.metadataUInt(key);
    return value && *value <= maximum ? *value : fallback;
}

bool isOneOf(const std::string& arch, std::initializer_list<std::string_view> names)
{
    return std::find(names.begin(), names.end(), arch) != names.end();
}

// Layers that attend through a sliding window: the file's sliding_window_pattern (one flag per
// layer, or a period), else llama.cpp's built-in period, where layer il slides when
// il % period < period - 1 (llama_hparams::set_swa_pattern).
Status markSlidingLayers(const Model& model, EstimateShape& shape)
{
    const std::string& arch = shape.architecture;
    const std::size_t n = shape.layers.size();
    if (arch == "phi3") {
        // llama.cpp reads Phi-3's window and then disables it ("Phi SWA is currently disabled"):
        // every layer keeps the whole context.
        shape.slidingWindow = 0;
        return Ok{};
    }
    const MetadataEntry* pattern = model.findMetadata(arch + ".attention.sliding_window_pattern");
    if (pattern && pattern->value.isArray()) {
        auto flags = perLayer(model, arch + ".attention.sliding_window_pattern", n, 1);
        if (!flags)
            return flags.error();
        for (std::size_t il = 0; il < n; ++il)
            shape.layers[il].slidingWindow = flags.value()[il] != 0;
        return Ok{};
    }
    std::uint64_t period = 0;
    if (pattern && pattern->value.toUInt()) {
        period = *pattern->value.toUInt();
    } else {
        static const std::array<std::pair<std::string_view, std::uint64_t>, 5> builtIn{
            {{"gemma2", 2}, {"gemma3", 6}, {"cohere2", 4}, {"gpt-oss", 2}, {"exaone4", 4}}};
        const auto it = std::find_if(builtIn.begin(), builtIn.end(), [&](const auto& row) { return arch == row.first; });
        if (it == builtIn.end()) {
            shape.exact = false;
            shape.notes.push_back("the model has a sliding window of " + std::to_string(shape.slidingWindow)
                                  + " tokens but no known pattern of sliding layers; every layer is counted in full");
            return Ok{};
        }
        period = it->second;
    }
    for (std::size_t il = 0; period > 1 && il < n; ++il)
        shape.layers[il].slidingWindow = il % period < period - 1;
    return Ok{};
}

// Recurrent layers and their state per sequence (llama_hparams::n_embd_r / n_embd_s).
Status markRecurrentLayers(const Model& model, EstimateShape& shape)
{
    const std::string& arch = shape.architecture;
    const std::size_t n = shape.layers.size();
    // Tighter bounds than kMaxWidth (real models: kernels of 4, states of 16 to 256) keep the
    // state products far below 2^64.
    const std::uint64_t convKernel = scalar(model, arch + ".ssm.conv_kernel", 0, 1 << 10);
    const std::uint64_t inner = scalar(model, arch + ".ssm.inner_size", 0);
    const std::uint64_t state = scalar(model, arch + ".ssm.state_size", 0, 1 << 16);
    const std::uint64_t groups = scalar(model, arch + ".ssm.group_count", 0, 1 << 16);
    const std::uint64_t wkvHead = scalar(model, arch + ".wkv.head_size", 0);
    const std::uint64_t shortConv = scalar(model, arch + ".shortconv.l_cache", 0, 1 << 10);
    if (wkvHead) {  // RWKV: token shift and the wkv state
        shape.convState = scalar(model, arch + ".token_shift_count", 2) * shape.embedding;
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
        return Ok{};
    }
    if (isOneOf(arch, {"qwen35", "qwen35moe", "qwen3next"})) {
        // Full attention every `full_attention_interval` layers (default 4), unless the file
        // lists the recurrent layers itself.
        if (model.findMetadata(arch + ".attention.recurrent_layers")) {
            auto flags = perLayer(model, arch + ".attention.recurrent_layers", n, 1);
            if (!flags)
                return flags.error();
            for (std::size_t il = 0; il < n; ++il)
                shape.layers[il].recurrent = flags.value()[il] != 0;
        } else {
            const std::uint64_t interval = std::max<std::uint64_t>(1, scalar(model, arch + ".full_attention_interval", 4));
            for (std::size_t il = 0; il < n; ++il)
                shape.layers[il].recurrent = (il + 1) % interval != 0;
        }
        return Ok{};
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
    if (any) {
        shape.exact = false;
        shape.notes.push_back("layers without KV heads are counted as recurrent, with llama.cpp's state sizes; "
                              "not checked against llama.cpp for " + arch);
    }
    if (unknown) {
        shape.exact = false;
        shape.notes.push_back("layers without KV heads keep a state the file does not describe; it is not estimated");
    }
    return Ok{};
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
    const std::string arch = model.metadataString("general.architecture");
    const std::string path = model.primary().path();
    if (arch.empty())
        return Error{"the model has no general.architecture, so its hyperparameters cannot be found", Error::kNoOffset, path};
    shape.architecture = arch;
    const auto blocks = model.metadataUInt(arch + ".block_count");
    if (!blocks || *blocks == 0 || *blocks > kMaxLayers)
        return Error{"the model has no usable " + arch + ".block_count", Error::kNoOffset, path};
    const auto n = static_cast<std::size_t>(*blocks);
    shape.layers.resize(n);
    shape.embedding = scalar(model, arch + ".embedding_length", 0);

    auto heads = perLayer(model, arch + ".attention.head_count", n, kMaxHeads);
    if (!heads)
        return heads.error();
    auto kvHeads = perLayer(model, arch + ".attention.head_count_kv", n, kMaxHeads);
    if (!kvHeads)
        return kvHeads.error();
    if (kvHeads.value().empty())
        kvHeads = heads.value();  // llama.cpp's default: no grouping
    // n_embd_head_k defaults to n_embd / n_head (of layer 0, as llama.cpp takes n_head()).
    const std::uint64_t firstHeads = heads.value().empty() ? 0 : heads.value().front();
    const std::uint64_t defaultHead = firstHeads ? shape.embedding / firstHeads : 0;
    const std::uint64_t keyLength = scalar(model, arch + ".attention.key_length", defaultHead);
    const std::uint64_t valueLength = scalar(model, arch + ".attention.value_length", defaultHead);
    const std::uint64_t keyLengthSwa = scalar(model, arch + ".attention.key_length_swa", keyLength);
    const std::uint64_t valueLengthSwa = scalar(model, arch + ".attention.value_length_swa", valueLength);
    for (std::size_t il = 0; il < n; ++il) {
        shape.layers[il].heads = heads.value().empty() ? 0 : heads.value()[il];
        shape.layers[il].kvHeads = kvHeads.value().empty() ? 0 : kvHeads.value()[il];
    }

    shape.slidingWindow = scalar(model, arch + ".attention.sliding_window", 0);
    if (shape.slidingWindow) {
        if (Status marked = markSlidingLayers(model, shape); !marked)
            return marked.error();
    }
    for (EstimateLayer& layer : shape.layers) {
        layer.keyLength = layer.slidingWindow ? keyLengthSwa : keyLength;
        layer.valueLength = layer.slidingWindow ? valueLengthSwa : valueLength;
    }
    if (Status marked = markRecurrentLayers(model, shape); !marked)
        return marked.error();

    // Gemma-3n/4: the last shared_kv_layers layers read the cache of an earlier layer of their
    // kind and keep none (llama_hparams::n_layer_kv_from_start).
    const std::uint64_t shared = scalar(model, arch + ".attention.shared_kv_layers", 0);
    for (std::size_t il = n - std::min<std::uint64_t>(shared, n); il < n; ++il)
        shape.layers[il].ownsCache = false;

    // MLA (llama_hparams::is_mla): the file declares the absorbed head sizes; K holds the latent
    // and the rope part, and V is a view of K, so nothing is allocated for V.
    shape.mla = scalar(model, arch + ".attention.key_length_mla", 0) != 0 && scalar(model, arch + ".attention.value_length_mla", 0) != 0;
    shape.kvLoraRank = scalar(model, arch + ".attention.kv_lora_rank", 0);
    if (!shape.mla && shape.kvLoraRank)
        shape.notes.push_back("MLA weights without key_length_mla/value_length_mla: llama.cpp runs them unabsorbed, with a full K and V cache");

    shape.vocabulary = scalar(model, arch + ".vocab_size", 0);
    if (!shape.vocabulary) {
        const MetadataEntry* tokens = model.findMetadata("tokenizer.ggml.tokens");
        shape.vocabulary = tokens ? std::min<std::uint64_t>(tokens->value.arrayLength(), kMaxWidth) : 0;
    }

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
