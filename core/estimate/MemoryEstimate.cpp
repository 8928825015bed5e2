#include "core/estimate/MemoryEstimate.h"

#include "core/estimate/ComputeBuffer.h"
#include "core/estimate/EstimateShape.h"
#include "core/gguf/HyperparameterReader.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <array>

namespace gguf {

namespace {
constexpr std::uint64_t kContextPadding = 256;  // llama_context pads n_ctx (and the SWA cache) to this
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 32;

std::uint64_t padded(std::uint64_t value, std::uint64_t to)
{
    return (value + to - 1) / to * to;
}

// a * b * c, or nullopt when it does not fit in 64 bits.
std::optional<std::uint64_t> product(std::uint64_t a, std::uint64_t b, std::uint64_t c = 1)
{
    std::uint64_t ab = 0, abc = 0;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc))
        return std::nullopt;
    return abc;
}

// blk.N. → N; -1 for the input side (token_embd and the rest), -2 for the output side.
long long layerOf(std::string_view name)
{
    if (name.rfind("blk.", 0) == 0) {
        long long layer = 0;
        std::size_t i = 4;
        for (; i < name.size() && i < 12 && name[i] >= '0' && name[i] <= '9'; ++i)
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
    const std::string path = model.primary().path();
    auto read = readEstimateShape(model);
    if (!read)
        return read.error();
    const EstimateShape& shape = read.value();
    MemoryEstimate estimate;
    estimate.architecture = shape.architecture;
    estimate.kvExact = shape.exact;
    estimate.notes = shape.notes;
    const auto n_layer = static_cast<std::uint32_t>(shape.layers.size());
    estimate.layerCount = n_layer;
    const auto fail = [&](const std::string& message) { return Error{message, Error::kNoOffset, path}; };

    if (!isKvCacheType(options.keyType) || !isKvCacheType(options.valueType))
        return fail(std::string("llama.cpp keeps the KV cache in one of ") + kvCacheTypeNames() + ", not "
                    + typeName(isKvCacheType(options.keyType) ? options.valueType : options.keyType));
    estimate.flashAttention = options.flashAttention != FlashAttention::Off;
    if (!estimate.flashAttention && findType(options.valueType) && findType(options.valueType)->blockSize > 1)
        return fail("a quantized V cache (" + typeName(options.valueType) + ") needs flash attention: llama.cpp refuses it with --flash-attn off");
    // With flash attention llama.cpp also wants every head a whole number of a quantized type's blocks.
    for (const auto& [typeId, value] : {std::pair{options.keyType, false}, std::pair{options.valueType, true}}) {
        const TypeTraits* type = findType(typeId);
        if (!estimate.flashAttention || !type || type->blockSize <= 1)
            continue;
        for (std::size_t il = 0; il < shape.layers.size(); ++il) {
            const std::uint64_t head = value ? shape.layers[il].valueLength : shape.layers[il].keyLength;
            if (head % type->blockSize != 0)
                return fail("layer " + std::to_string(il) + " has heads of " + std::to_string(head) + (value ? " values" : " keys")
                            + ", not a whole number of blocks of " + typeName(typeId) + ": llama.cpp refuses this "
                            + (value ? "V" : "K") + " cache with flash attention");
        }
    }
    if (options.flashAttention == FlashAttention::Auto)
        estimate.notes.push_back("flash attention auto is counted as on, as llama.cpp enables it on the CPU and on GPUs that support it");
    if (options.ubatch == 0 || options.batch == 0 || options.sequences == 0)
        return fail("the batch, the ubatch and the number of sequences must be at least 1");

    HyperparameterReader hyperparameters(model, shape.architecture + ".", "the memory estimate");
    const auto context = options.contextLength ? options.contextLength : static_cast<std::uint64_t>(hyperparameters.count("context_length", 0));
    if (!hyperparameters.ok())
        return hyperparameters.error();
    if (context == 0)
        return fail("the model does not state its context length (" + shape.architecture + ".context_length); give one");
    if (context > kMaxContext)
        return fail("a context of " + std::to_string(context) + " tokens is more than llama.cpp supports (" + std::to_string(kMaxContext) + ")");
    estimate.contextLength = padded(context, kContextPadding);
    // llama_context: n_batch = min(n_ctx, n_batch) for causal models, n_ubatch = min(n_batch, n_ubatch),
    // with n_ctx as asked for: it is padded to 256 only after.
    const std::uint64_t ubatch = std::min<std::uint64_t>({options.ubatch, options.batch, context});

    // Weights, by the device llama.cpp puts each layer on.
    const std::uint64_t ngl = options.gpuLayers < 0 ? n_layer + 1 : static_cast<std::uint64_t>(options.gpuLayers);
    const std::uint64_t firstGpuLayer = ngl >= n_layer ? 0 : n_layer - ngl;
    const bool outputOnGpu = ngl > n_layer;
    for (const TensorInfo& tensor : model.tensors()) {
        const long long layer = layerOf(tensor.name);
        const bool gpu = layer >= 0 ? static_cast<std::uint64_t>(layer) >= firstGpuLayer && ngl > 0 : layer == -2 && outputOnGpu;
        (gpu ? estimate.weightsGpu : estimate.weightsCpu) += tensor.nbytes;
    }

    // KV cache and recurrent state, layer by layer.
    const std::uint64_t slidingCells = options.fullSlidingWindow
        ? estimate.contextLength
        : padded(std::min(estimate.contextLength, shape.slidingWindow * options.sequences + ubatch), kContextPadding);
    // [TAG_V_CACHE_VARIABLE]: a transposed V cache (no flash attention) pads every row to the widest.
    std::uint64_t widestValueRow = 0;
    bool valueRowsDiffer = false;
    for (const EstimateLayer& layer : shape.layers) {
        valueRowsDiffer = valueRowsDiffer || layer.valueRow() != shape.layers.front().valueRow();
        widestValueRow = std::max(widestValueRow, layer.valueRow());
    }
    const bool padValueRows = !estimate.flashAttention && valueRowsDiffer;
    const std::uint64_t stateCells = std::max<std::uint64_t>(1, options.sequences);
    for (std::uint32_t il = 0; il < n_layer; ++il) {
        const EstimateLayer& layer = shape.layers[il];
        const bool onGpu = ngl > 0 && il >= firstGpuLayer;
        if (layer.recurrent) {
            const auto bytes = product(shape.convState + shape.ssmState, 4, stateCells);
            if (!bytes)
                return fail("the recurrent state of layer " + std::to_string(il) + " does not fit in 64 bits");
            (onGpu ? estimate.recurrentGpu : estimate.recurrentCpu) += *bytes;
            continue;
        }
        if (layer.kvHeads == 0 || !layer.ownsCache)
            continue;  // attention-free, or reading an earlier layer's cache
        LayerKvEstimate kv;
        kv.layer = il;
        kv.onGpu = onGpu;
        kv.slidingWindow = layer.slidingWindow && !options.fullSlidingWindow;
        kv.cells = layer.slidingWindow ? slidingCells : estimate.contextLength;
        const std::uint64_t valueElements = shape.mla ? 0 : padValueRows ? widestValueRow : layer.valueRow();
        const std::uint64_t keyRow = rowBytes(options.keyType, layer.keyRow());
        const std::uint64_t valueRow = rowBytes(options.valueType, valueElements);
        if (keyRow == 0 || (valueRow == 0 && valueElements != 0))
            return fail("a KV cache row of " + std::to_string(layer.keyRow()) + " keys / " + std::to_string(valueElements)
                        + " values (layer " + std::to_string(il) + ") is not a whole number of blocks of the cache type");
        const auto keys = product(keyRow, kv.cells), values = product(valueRow, kv.cells);
        if (!keys || !values)
            return fail("the KV cache of layer " + std::to_string(il) + " does not fit in 64 bits");
        kv.keyBytes = *keys;
        kv.valueBytes = *values;
        (kv.onGpu ? estimate.kvGpu : estimate.kvCpu) += kv.keyBytes + kv.valueBytes;
        estimate.kvLayers.push_back(kv);
    }

    ComputeBufferInputs compute;
    compute.tokens = ubatch;
    compute.fullCells = estimate.contextLength;
    compute.slidingCells = slidingCells;
    compute.flashAttention = estimate.flashAttention;
    compute.keyType = options.keyType;
    compute.valueType = options.valueType;
    const ComputeBufferEstimate buffer = estimateComputeBuffer(model, shape, compute);
    if (buffer.bytes == ~std::uint64_t{0})
        return fail("the compute buffer of this model does not fit in 64 bits");
    estimate.computeBuffer = buffer.bytes;
    estimate.outputBuffer = 4 * shape.vocabulary * options.sequences;
    if (!buffer.modelled)
        estimate.notes.push_back("the compute buffer is not estimated: the model's graph is larger than this estimate builds");
    else if (!buffer.exact)
        estimate.notes.push_back("the compute buffer follows a generic decoder's graph; llama.cpp's graph for " + shape.architecture
                                 + " is not modelled, so it may differ");
    else
        estimate.notes.push_back("the compute buffer replays ggml's graph allocator over llama.cpp's graph for " + shape.architecture
                                 + ": within 5% of llama.cpp, the same to the byte on every model measured");
    return estimate;
}

}  // namespace gguf
