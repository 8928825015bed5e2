#include "estimate/MemoryEstimate.h"

#include "types/GgmlType.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace gguf {

namespace {
constexpr std::uint64_t kContextPadding = 256;  // llama_context pads n_ctx (and the SWA cache) to this

std::uint64_t padded(std::uint64_t value, std::uint64_t to)
{
    return (value + to - 1) / to * to;
}

// A hyperparameter that is one number, or one number per layer (head counts of hybrid and
// pruned models). Empty when absent or not a non-negative integer (array).
std::vector<std::uint64_t> perLayer(const Model& model, const std::string& key, std::uint32_t layers)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry)
        return {};
    if (!entry->value.isArray()) {
        const auto value = entry->value.toUInt();
        return value ? std::vector<std::uint64_t>(layers, *value) : std::vector<std::uint64_t>{};
    }
    if (entry->value.arrayLength() != layers)
        return {};
    std::vector<std::uint64_t> values;
    for (std::uint32_t i = 0; i < layers; ++i) {
        const auto value = entry->value.element(i).toUInt();
        if (!value)
            return {};
        values.push_back(*value);
    }
    return values;
}

// Which layers attend through a sliding window. The file says so in newer conversions
// (sliding_window_pattern: a period, or one flag per layer); otherwise llama.cpp's built-in
// period for the architecture, where layer il slides when il % period < period - 1.
std::vector<bool> slidingLayers(const Model& model, const std::string& arch, std::uint32_t layers, bool& known)
{
    known = true;
    std::vector<bool> sliding(layers, false);
    const MetadataEntry* pattern = model.findMetadata(arch + ".attention.sliding_window_pattern");
    std::uint64_t period = 0;
    if (pattern && pattern->value.isArray() && pattern->value.arrayLength() == layers) {
        for (std::uint32_t i = 0; i < layers; ++i) {
            const MetadataValue element = pattern->value.element(i);
            const auto flag = element.toBool();
            sliding[i] = flag ? *flag : element.toUInt().value_or(0) != 0;
        }
        return sliding;
    }
    if (pattern && pattern->value.toUInt()) {
        period = *pattern->value.toUInt();
    } else {
        static const std::array<std::pair<const char*, std::uint64_t>, 5> builtIn{
            {{"gemma2", 2}, {"gemma3", 6}, {"cohere2", 4}, {"gpt-oss", 2}, {"exaone4", 4}}};
        const auto it = std::find_if(builtIn.begin(), builtIn.end(), [&](const auto& row) { return arch == row.first; });
        if (it != builtIn.end())
            period = it->second;
        else
            known = false;  // a window without a known layer pattern
    }
    for (std::uint32_t i = 0; period > 1 && i < layers; ++i)
        sliding[i] = i % period < period - 1;
    return sliding;
}

bool isRecurrent(const std::string& arch)
{
    for (const char* name : {"mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7"})
        if (arch == name)
            return true;
    return false;
}

// blk.N. → N; -1 for the input side (token_embd and the rest), -2 for the output side.
long long layerOf(std::string_view name)
{
    if (name.rfind("blk.", 0) == 0) {
        long long layer = 0;
        std::size_t i = 4;
        for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i)
            layer = layer * 10 + (name[i] - '0');
        return i > 4 && i < name.size() && name[i] == '.' ? layer : -1;
    }
    if (name.rfind("output.", 0) == 0 || name.rfind("output_norm.", 0) == 0)
        return -2;
    return -1;
}
}  // namespace

std::uint64_t rowBytes(std::uint32_t typeId, std::uint64_t elements)
{
    const TypeTraits* traits = findType(typeId);
    if (!traits || traits->blockSize == 0 || elements % traits->blockSize != 0)
        return 0;
    return elements / traits->blockSize * traits->blockBytes;
}

Result<MemoryEstimate> estimateMemory(const Model& model, const EstimateOptions& options)
{
    MemoryEstimate estimate;
    const std::string arch = model.metadataString("general.architecture");
    const std::string path = model.primary().path();
    if (arch.empty())
        return Error{"the model has no general.architecture, so its hyperparameters cannot be found", Error::kNoOffset, path};
    estimate.architecture = arch;
    const auto layers = model.metadataUInt(arch + ".block_count");
    if (!layers || *layers == 0 || *layers > 100000)
        return Error{"the model has no usable " + arch + ".block_count", Error::kNoOffset, path};
    const auto n_layer = static_cast<std::uint32_t>(*layers);
    estimate.layerCount = n_layer;
    const std::uint64_t n_embd = model.metadataUInt(arch + ".embedding_length").value_or(0);

    std::uint64_t context = options.contextLength ? options.contextLength : model.metadataUInt(arch + ".context_length").value_or(0);
    if (context == 0)
        return Error{"the model does not state its context length (" + arch + ".context_length); give one", Error::kNoOffset, path};
    if (context > (std::uint64_t{1} << 32))
        return Error{"a context of " + std::to_string(context) + " tokens is more than llama.cpp supports", Error::kNoOffset, path};
    estimate.contextLength = padded(context, kContextPadding);

    // Weights, by the device llama.cpp puts each layer on.
    const std::uint64_t ngl = options.gpuLayers < 0 ? n_layer + 1 : static_cast<std::uint64_t>(options.gpuLayers);
    const std::uint64_t firstGpuLayer = ngl >= n_layer ? 0 : n_layer - ngl;
    const bool outputOnGpu = ngl > n_layer;
    for (const TensorInfo& tensor : model.tensors()) {
        const long long layer = layerOf(tensor.name);
        const bool gpu = layer >= 0 ? static_cast<std::uint64_t>(layer) >= firstGpuLayer && ngl > 0 : layer == -2 && outputOnGpu;
        (gpu ? estimate.weightsGpu : estimate.weightsCpu) += tensor.nbytes;
    }

    // KV cache, layer by layer.
    const std::vector<std::uint64_t> heads = perLayer(model, arch + ".attention.head_count", n_layer);
    std::vector<std::uint64_t> kvHeads = perLayer(model, arch + ".attention.head_count_kv", n_layer);
    if (kvHeads.empty())
        kvHeads = heads;
    const std::uint64_t maxHeads = heads.empty() ? 0 : *std::max_element(heads.begin(), heads.end());
    const std::uint64_t defaultHeadSize = maxHeads ? n_embd / maxHeads : 0;
    const std::uint64_t keyLength = model.metadataUInt(arch + ".attention.key_length").value_or(defaultHeadSize);
    const std::uint64_t valueLength = model.metadataUInt(arch + ".attention.value_length").value_or(defaultHeadSize);
    if (isRecurrent(arch)) {
        estimate.kvExact = false;
        estimate.notes.push_back(arch + " keeps a recurrent state instead of a KV cache; the state is not estimated");
    } else if (kvHeads.empty() || keyLength == 0) {
        estimate.kvExact = false;
        estimate.notes.push_back("the model does not state its attention heads (" + arch + ".attention.head_count); no KV cache estimated");
        kvHeads.clear();
    }
    const std::uint64_t window = model.metadataUInt(arch + ".attention.sliding_window").value_or(0);
    bool patternKnown = true;
    const std::vector<bool> sliding = window ? slidingLayers(model, arch, n_layer, patternKnown) : std::vector<bool>(n_layer, false);
    if (window && !patternKnown) {
        estimate.kvExact = false;
        estimate.notes.push_back("the model has a sliding window of " + std::to_string(window)
                                 + " tokens but no known pattern of sliding layers; every layer is counted in full");
    }
    const std::uint64_t windowCells = std::min(estimate.contextLength, padded(window * options.sequences + options.ubatch, kContextPadding));
    for (std::uint32_t il = 0; il < kvHeads.size(); ++il) {
        if (kvHeads[il] == 0)
            continue;  // a recurrent or attention-free layer of a hybrid model
        LayerKvEstimate layer;
        layer.layer = il;
        layer.slidingWindow = sliding[il] && !options.fullSlidingWindow;
        layer.cells = layer.slidingWindow ? windowCells : estimate.contextLength;
        const std::uint64_t keyRow = rowBytes(options.keyType, kvHeads[il] * keyLength);
        const std::uint64_t valueRow = rowBytes(options.valueType, kvHeads[il] * valueLength);
        if (keyRow == 0 || valueRow == 0)
            return Error{"a KV cache row of " + std::to_string(kvHeads[il] * keyLength) + " keys / " + std::to_string(kvHeads[il] * valueLength)
                             + " values is not a whole number of blocks of the cache type", Error::kNoOffset, path};
        layer.keyBytes = keyRow * layer.cells;
        layer.valueBytes = valueRow * layer.cells;
        layer.onGpu = ngl > 0 && il >= firstGpuLayer;
        (layer.onGpu ? estimate.kvGpu : estimate.kvCpu) += layer.keyBytes + layer.valueBytes;
        estimate.kvLayers.push_back(layer);
    }
    if (std::find(heads.begin(), heads.end(), 0) != heads.end() && !isRecurrent(arch)) {
        estimate.kvExact = false;
        estimate.notes.push_back("layers without attention heads keep a recurrent state that is not estimated");
    }
    if (model.findMetadata(arch + ".attention.kv_lora_rank"))
        estimate.notes.push_back("MLA: the cache follows the key/value lengths the file declares; not checked against llama.cpp");

    // Compute buffer, approximately: without flash attention the largest graph tensor is the
    // f32 score matrix [cells, ubatch, heads]; the rest is a few activations of ubatch x n_embd
    // floats (nine reproduce llama.cpp's figure for the tiny fixtures).
    const std::uint64_t scoreCells = estimate.kvLayers.empty() ? 0 : estimate.contextLength;
    estimate.computeBuffer = 4 * options.ubatch * (scoreCells * maxHeads + 9 * n_embd);
    const std::uint64_t vocabulary = model.metadataUInt(arch + ".vocab_size").value_or(
        model.findMetadata("tokenizer.ggml.tokens") ? model.findMetadata("tokenizer.ggml.tokens")->value.arrayLength() : 0);
    estimate.outputBuffer = 4 * vocabulary * options.sequences;
    estimate.notes.push_back("the compute buffer is an approximation (attention scores without flash attention plus activations)");
    return estimate;
}

}  // namespace gguf
