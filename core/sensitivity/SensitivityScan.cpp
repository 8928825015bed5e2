#include "core/sensitivity/SensitivityScan.h"

#include "core/forward/OutputMetrics.h"
#include "core/forward/SimulatedQuantization.h"
#include "core/quantize/Quantize.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/sensitivity/ScanFingerprint.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

namespace gguf {

namespace {

using T = GgmlTypeId;

// The most f32 bytes of its quantized group a probe keeps between chunks.
constexpr std::uint64_t kMaxCachedProbeBytes = std::uint64_t{1} << 30;

Error scanError(std::string message)
{
    return Error{std::move(message), Error::kNoOffset, {}};
}

// "blk.12.attn_q.weight" -> 12, "attn_q"; anything else: -1 and the name without ".weight".
void splitName(std::string_view name, std::int64_t& layer, std::string& role)
{
    layer = -1;
    std::string_view rest = name;
    if (rest.starts_with("blk.")) {
        rest.remove_prefix(4);
        std::int64_t n = 0;
        std::size_t digits = 0;
        while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9' && digits < 9)
            n = n * 10 + (rest[digits++] - '0');
        if (digits > 0 && digits < rest.size() && rest[digits] == '.') {
            layer = n;
            rest.remove_prefix(digits + 1);
        } else {
            rest = name;
        }
    }
    if (rest.ends_with(".weight"))
        rest.remove_suffix(7);
    role = std::string(rest);
}

// The IQ types are scanned only with an importance matrix, and only for the groups it has
// weights for: they are made for imatrix quants (and some cannot be made without).
bool needsWeights(std::uint32_t type)
{
    return requiresImportance(type) || typeName(type).starts_with("iq");
}

}  // namespace

std::vector<std::uint32_t> defaultScanTypes(bool withImportance)
{
    std::vector<std::uint32_t> types;
    if (withImportance)
        for (const T t : {T::IQ2_XXS, T::IQ2_XS, T::IQ3_XXS})
            types.push_back(typeIdValue(t));
    types.push_back(typeIdValue(T::Q2_K));
    if (withImportance)
        types.push_back(typeIdValue(T::IQ3_S));
    types.push_back(typeIdValue(T::Q3_K));
    if (withImportance)
        types.push_back(typeIdValue(T::IQ4_XS));
    for (const T t : {T::Q4_K, T::Q5_K, T::Q6_K, T::Q8_0})
        types.push_back(typeIdValue(t));
    return types;
}

ProbeExecutor sequentialExecutor()
{
    return [](std::size_t count, const std::function<bool(std::size_t)>& run) {
        for (std::size_t i = 0; i < count; ++i)
            if (!run(i))
                return;
    };
}

std::size_t ScanRecord::measured() const
{
    return static_cast<std::size_t>(std::count_if(figures.begin(), figures.end(), [](const auto& f) { return f.has_value(); }));
}

Result<std::unique_ptr<SensitivityScan>> SensitivityScan::prepare(const Model& reference, std::span<const std::int32_t> tokens,
                                                                  const ScanOptions& options, const std::atomic<bool>* cancel)
{
    auto h = readHyperparameters(reference);
    if (!h)
        return h.error();
    std::unique_ptr<SensitivityScan> scan(new SensitivityScan);
    scan->m_model = &reference;
    scan->m_options = options;
    scan->m_layerCount = h->layerCount;
    if (scan->m_options.types.empty())
        scan->m_options.types = defaultScanTypes(bool(options.importance));
    const ScanOptions& o = scan->m_options;

    if (o.chunkSize < 4 || o.chunkSize > kMaxForwardTokens)
        return scanError("the chunk size must be from 4 to " + std::to_string(kMaxForwardTokens) + " tokens");
    if (o.layerStride < 1)
        return scanError("the layer stride must be at least 1");
    for (const std::int64_t layer : o.layers)
        if (layer < 0 || layer >= h->layerCount)
            return scanError("layer " + std::to_string(layer) + " is not one of the model's " + std::to_string(h->layerCount) + " blocks");
    for (const std::uint32_t type : o.types) {
        const TypeTraits* traits = findType(type);
        if (!traits || traits->kind != TypeKind::Quantized || !traits->dequantize || !canQuantize(type))
            return scanError("cannot scan " + typeName(type) + ": this build has no quantizer for it");
        if (needsWeights(type) && !o.importance)
            return scanError(typeName(type) + " needs an importance matrix (--imatrix)");
    }
    for (const TensorInfo& tensor : reference.tensors()) {
        const bool precise = tensor.typeId == typeIdValue(T::F32) || tensor.typeId == typeIdValue(T::F16) || tensor.typeId == typeIdValue(T::BF16);
        if (llamaQuantizeAllows(tensor.name, tensor.nDims) && tensor.nDims >= 2 && !precise)
            return scanError("the reference must be unquantized (F32, F16 or BF16): " + std::string(tensor.name) + " is " + typeName(tensor.typeId));
    }

    // Whole chunks of the tokens, at most maxTokens of them.
    std::int64_t total = static_cast<std::int64_t>(tokens.size());
    if (o.maxTokens > 0)
        total = std::min(total, o.maxTokens);
    const std::int64_t chunks = total / o.chunkSize;
    if (chunks < 1)
        return scanError("need at least one chunk of " + std::to_string(o.chunkSize) + " tokens (got " + std::to_string(total) + ")");

    // The groups, in llama-quantize's tensor order.
    std::vector<const TensorInfo*> ordered;
    for (const TensorInfo& tensor : reference.tensors())
        if (llamaQuantizeAllows(tensor.name, tensor.nDims) && tensor.nDims >= 2 && tensor.ne[0] > 0)
            ordered.push_back(&tensor);
    std::stable_sort(ordered.begin(), ordered.end(), [](const TensorInfo* a, const TensorInfo* b) { return llamaTensorOrderLess(a->name, b->name); });
    const auto wantedLayer = [&](std::int64_t layer) {
        if (!o.layers.empty())
            return std::find(o.layers.begin(), o.layers.end(), layer) != o.layers.end();
        return layer % o.layerStride == 0;
    };
    for (const TensorInfo* tensor : ordered) {
        ScanGroup group;
        group.tensor = std::string(tensor->name);
        splitName(tensor->name, group.layer, group.role);
        if (group.layer >= h->layerCount && group.layer < h->layerCount + h->nextnLayers)
            continue;  // a NextN block: loaded by llama.cpp, not run for the logits, so nothing to measure
        if (group.layer >= h->layerCount)
            return scanError(group.tensor + " names block " + std::to_string(group.layer) + " of a model with " + std::to_string(h->layerCount));
        if (group.layer >= 0 && !wantedLayer(group.layer))
            continue;
        if (group.layer >= 0)
            group.firstLayer = group.layer;
        else if (group.tensor == "output.weight")
            group.firstLayer = h->layerCount;
        else if (group.tensor == "token_embd.weight")
            group.firstLayer = 0;  // also the output matrix when tied
        else
            continue;  // a tensor outside the blocks that the pass does not read
        group.elements = tensor->elementCount();
        group.rowLength = tensor->ne[0];
        group.hasImportance = o.importance && !o.importance(tensor->name, 0).empty();
        const std::size_t index = scan->m_groups.size();
        bool any = false;
        for (const std::uint32_t type : o.types) {
            const TypeTraits& traits = *findType(type);
            if (tensor->ne[0] % traits.blockSize != 0 || (needsWeights(type) && !group.hasImportance))
                continue;  // llama-quantize could not make it either
            scan->m_probes.push_back({index, type});
            any = true;
        }
        if (any)
            scan->m_groups.push_back(std::move(group));
    }
    if (scan->m_probes.empty())
        return scanError("no group of the model can take any of the types asked for");

    // The identity: everything the figures depend on.
    ScanIdentity& id = scan->m_identity;
    id.model = reference.primary().path();
    id.chunkSize = o.chunkSize;
    id.tokens = chunks * o.chunkSize;
    id.scoredPerChunk = o.chunkSize - 1 - o.chunkSize / 2;
    id.types = o.types;
    id.importance = o.importance ? (o.importanceLabel.empty() ? std::string("(given)") : o.importanceLabel) : std::string();
    id.activations = activationArithmeticName(o.activations);
    ForwardOptions arithmetic;
    arithmetic.activations = o.activations;
    arithmetic.kvCache = o.kvCache;
    id.attention = attentionArithmeticName(arithmetic);
    id.layerStride = o.layers.empty() ? o.layerStride : 1;
    id.layers = o.layers;
    id.fingerprint = scanFingerprint(reference, o, id, tokens, scan->m_groups, scan->m_probes);
    id.parts.tensors = tensorShapesFingerprint(reference);
    id.parts.model = tensorIndexFingerprint(reference);
    id.parts.text = tokensFingerprint(tokens.first(static_cast<std::size_t>(id.tokens)), o.bosToken);
    id.parts.imatrix = importanceFingerprint(reference, scan->m_groups, o.importance);
    id.parts.arithmetic = arithmeticFingerprint(id.activations, id.attention, o.accumulateInDouble);

    // The reference, once per chunk, with the residual stream after every layer.
    for (std::int64_t c = 0; c < chunks; ++c) {
        Chunk chunk;
        chunk.tokens.assign(tokens.begin() + c * o.chunkSize, tokens.begin() + (c + 1) * o.chunkSize);
        if (o.bosToken >= 0)
            chunk.tokens.front() = o.bosToken;
        ForwardOptions forward;
        forward.accumulateInDouble = o.accumulateInDouble;
        forward.activations = o.activations;
        forward.kvCache = o.kvCache;
        forward.cancel = cancel;
        forward.executor = o.executor;
        forward.matmulInputs = o.referenceInputs;  // the last layer then runs every row
        forward.firstLogitPosition = o.chunkSize / 2;  // the scored half: the probes read no logits before it
        auto run = runForward(reference, chunk.tokens, forward);
        if (!run)
            return run.error();
        chunk.reference = std::move(*run);
        scan->m_chunks.push_back(std::move(chunk));
    }
    return scan;
}

std::vector<std::size_t> SensitivityScan::shardProbes(std::size_t shard, std::size_t count) const
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m_probes.size(); ++i)
        if (count <= 1 || i % count == shard)
            out.push_back(i);
    return out;
}

double SensitivityScan::meanLayersRerun() const
{
    double sum = 0;
    for (const ProbeKey& probe : m_probes)
        sum += double(m_layerCount - m_groups[probe.group].firstLayer + 1);
    return m_probes.empty() ? 0.0 : sum / double(m_probes.size());
}

Result<ProbeFigures> SensitivityScan::runProbe(std::size_t index, const std::atomic<bool>* cancel) const
{
    if (index >= m_probes.size())
        return scanError("no probe " + std::to_string(index) + " (the scan has " + std::to_string(m_probes.size()) + ")");
    const ProbeKey& probe = m_probes[index];
    const ScanGroup& group = m_groups[probe.group];
    SimulationSpec spec;
    auto only = std::make_shared<std::unordered_map<std::string, std::uint32_t>>();
    (*only)[group.tensor] = probe.type;
    spec.recipeTypes = std::move(only);
    spec.importance = m_options.importance;
    const WeightTransform quantize = simulatedQuantization(std::move(spec), m_options.executor);
    // The group's rows are read and quantized once per probe, not once per chunk: every chunk
    // loads the same rows, and the quantizers are deterministic, so the blocks are the same (up
    // to a bound on what is held; past it, rows are quantized again).
    struct Cache {
        std::mutex lock;
        std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<std::uint8_t>> rows;  // by [rowBegin, rowEnd)
        std::uint64_t bytes = 0;
    };
    auto cache = std::make_shared<Cache>();
    const WeightTransform transform = WeightTransform::encoding(
        [quantize, cache](const TensorInfo& tensor, std::uint64_t rowBegin, std::uint64_t rowEnd, std::vector<std::uint8_t>& blocks) {
            const std::pair<std::uint64_t, std::uint64_t> key{rowBegin, rowEnd};
            {
                std::lock_guard guard(cache->lock);
                if (const auto found = cache->rows.find(key); found != cache->rows.end()) {
                    blocks = found->second;
                    return Status{Ok{}};
                }
            }
            if (Status done = quantize.encode(tensor, rowBegin, rowEnd, blocks); !done)
                return done;
            std::lock_guard guard(cache->lock);
            if (cache->bytes + blocks.size() <= kMaxCachedProbeBytes) {
                cache->rows.emplace(key, blocks);
                cache->bytes += blocks.size();
            }
            return Status{Ok{}};
        },
        quantize.typeOf);  // the probe's group alone

    OutputComparisonBuilder builder;
    const std::int64_t chunk = m_identity.chunkSize;
    for (std::size_t c = 0; c < m_chunks.size(); ++c) {
        const Chunk& cached = m_chunks[c];
        ForwardOptions forward;
        forward.accumulateInDouble = m_options.accumulateInDouble;
        forward.activations = m_options.activations;
        forward.kvCache = m_options.kvCache;
        forward.executor = m_options.executor;
        forward.keepHiddenStates = false;
        forward.cancel = cancel;
        forward.transform = transform;
        forward.firstLayer = group.firstLayer;
        forward.firstLogitPosition = chunk / 2;
        if (group.firstLayer > 0)
            forward.startResidual = cached.reference.hiddenAt(group.firstLayer - 1);
        auto run = runForward(*m_model, cached.tokens, forward);
        if (!run)
            return run.error();
        if (Status added = builder.addSequence(cached.reference, *run, cached.tokens, chunk / 2, chunk - 1,
                                               static_cast<std::int64_t>(c) * chunk);
            !added)
            return added.error();
    }
    const OutputComparison comparison = builder.finish();
    ProbeFigures figures;
    figures.meanKld = comparison.kld.mean;
    figures.kldStandardError = comparison.kld.meanError;
    figures.sameTopFraction = comparison.sameTopFraction;
    figures.meanDeltaTopProbability = comparison.deltaTopProbability.mean;
    figures.positions = static_cast<std::int64_t>(comparison.kld.count);
    figures.layersRerun = m_layerCount - group.firstLayer + 1;
    std::vector<double> perPosition;
    perPosition.reserve(comparison.positions.size());
    for (const PositionMetrics& position : comparison.positions)
        perPosition.push_back(position.kld);
    figures.trimmedKld = trimmedKldMean(std::move(perPosition));
    // A scan file holds only finite figures (a reader refuses others): an output that is not
    // finite with this group quantized is an error to report, not a figure to plan by.
    for (const double value : {figures.meanKld, figures.kldStandardError, *figures.trimmedKld, figures.sameTopFraction, figures.meanDeltaTopProbability})
        if (!std::isfinite(value))
            return scanError("probe " + std::to_string(index) + " (" + group.tensor + " as " + typeName(probe.type) + ") gave a mean KLD of "
                             + std::to_string(figures.meanKld) + ": the model's output with that group quantized is not finite");
    return figures;
}

double trimmedKldMean(std::vector<double> values)
{
    const std::size_t cut = values.size() / 20;
    if (values.size() <= 2 * cut)
        return 0.0;
    std::sort(values.begin(), values.end());
    double sum = 0.0;
    for (std::size_t i = cut; i < values.size() - cut; ++i)
        sum += values[i];
    return sum / double(values.size() - 2 * cut);
}

ScanRecord emptyRecord(const SensitivityScan& scan)
{
    ScanRecord record;
    record.identity = scan.identity();
    record.groups = scan.groups();
    record.probes = scan.probes();
    record.figures.assign(record.probes.size(), std::nullopt);
    return record;
}

Status runScan(const SensitivityScan& scan, ScanRecord& record, const ScanRunOptions& options)
{
    if (record.identity.fingerprint != scan.identity().fingerprint || record.probes.size() != scan.probes().size())
        return scanError("the scan file is of another scan (model, tokens, types or settings differ)");
    if (options.shardCount < 1 || options.shard >= options.shardCount)
        return scanError("no shard " + std::to_string(options.shard + 1) + " of " + std::to_string(options.shardCount));
    std::vector<std::size_t> todo;
    for (const std::size_t i : scan.shardProbes(options.shard, options.shardCount))
        if (!record.figures[i])
            todo.push_back(i);
    const ProbeExecutor executor = options.executor ? options.executor : sequentialExecutor();
    const auto start = std::chrono::steady_clock::now();
    std::size_t done = 0;
    std::optional<Error> failure;
    std::mutex lock;  // the record, the counters and the callbacks, for executors that run units at once
    executor(todo.size(), [&](std::size_t k) -> bool {
        {
            std::lock_guard guard(lock);
            if (failure)
                return false;
        }
        if (options.cancel && options.cancel->load()) {
            std::lock_guard guard(lock);
            failure = scanError(kForwardCancelled);
            return false;
        }
        auto figures = scan.runProbe(todo[k], options.cancel);
        std::lock_guard guard(lock);
        if (!figures) {
            if (!failure)
                failure = figures.error();
            return false;
        }
        record.figures[todo[k]] = *figures;
        ++done;
        if (options.checkpoint)
            if (Status saved = options.checkpoint(record); !saved) {
                failure = saved.error();
                return false;
            }
        if (options.progress)
            options.progress(done, todo.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return true;
    });
    if (failure)
        return *failure;
    if (done != todo.size())
        return scanError(options.cancel && options.cancel->load() ? kForwardCancelled : "the executor did not run every probe");
    return Ok{};
}

}  // namespace gguf
