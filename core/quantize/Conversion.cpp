#include "core/quantize/Conversion.h"

#include "core/base/UserPattern.h"
#include "core/write/ByteSink.h"
#include "core/gguf/Dequantize.h"
#include "core/write/GgufWriter.h"
#include "core/gguf/MappedRegionGuard.h"
#include "core/quantize/ConversionSteps.h"
#include "core/quantize/Quantize.h"

#include <algorithm>
#include <map>
#include <numeric>

#include <sys/mman.h>
#include <unistd.h>

namespace gguf {

namespace {

// Element ranges of whole rows (or whole blocks of both types inside a long row).
std::uint64_t chunkStep(const TensorInfo& tensor, const TypeTraits& target, std::uint64_t maxElements)
{
    const std::uint64_t rowLength = std::max<std::int64_t>(tensor.ne[0], 1);
    const std::uint64_t alignment = std::lcm(std::uint64_t{tensor.traits->blockSize}, std::uint64_t{target.blockSize});
    maxElements = std::max<std::uint64_t>(maxElements, 1);
    return rowLength <= maxElements ? maxElements / rowLength * rowLength : std::max(alignment, maxElements / alignment * alignment);
}

// One chunk's buffers: the f32 values and their quantized bytes.
struct ChunkSlot {
    std::vector<float> values;
    std::vector<std::uint8_t> packed;
    std::uint64_t begin = 0;
    std::uint64_t count = 0;
    Status status = Ok{};
};

// A little-endian f32 tensor at a float-aligned address already is the f32 values: quantize
// straight from the mapping instead of copying it into a chunk first (the copy was a third of
// a fast quantizer's time). The watch catches bytes that vanish under a rewrite, as
// dequantizeElements does.
bool readsInPlace(const TensorInfo& tensor)
{
    return tensor.typeId == 0 && !tensor.bigEndian && reinterpret_cast<std::uintptr_t>(tensor.data) % alignof(float) == 0;
}

// With importance weights the slot holds whole rows; each expert's rows get that expert's weights.
Status quantizeSlotValues(const TensorInfo& tensor, const TypeTraits& target, const ChunkSlot& slot,
                          std::span<const float> values, std::span<std::uint8_t> bytes, const ImportanceWeights* importance)
{
    if (!importance)
        return quantizeValues(target.id, values, bytes);
    const std::uint64_t rowLength = static_cast<std::uint64_t>(tensor.ne[0]);
    const std::uint64_t rowsPerExpert = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[1], 1));
    const std::uint64_t experts = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[2], 1));
    const std::uint64_t rowBytes = quantizedSize(target, rowLength);
    const std::uint64_t firstRow = slot.begin / rowLength;
    const std::uint64_t rows = slot.count / rowLength;
    for (std::uint64_t row = 0; row < rows;) {
        const std::uint64_t absolute = firstRow + row;
        const std::uint64_t expert = (absolute / rowsPerExpert) % experts;
        const std::uint64_t run = std::min(rows - row, rowsPerExpert - absolute % rowsPerExpert);
        auto weights = importance->row(tensor.name, expert, rowLength);
        if (!weights)
            return weights.error();
        if (Status s = quantizeRows(target.id, values.subspan(static_cast<std::size_t>(row * rowLength), static_cast<std::size_t>(run * rowLength)),
                                    static_cast<std::int64_t>(rowLength), *weights,
                                    bytes.subspan(static_cast<std::size_t>(row * rowBytes), static_cast<std::size_t>(run * rowBytes)));
            !s)
            return s;
        row += run;
    }
    return Ok{};
}

// Reading a file mapping traps once per fault-around window (64 KiB, or one large page-cache
// folio on newer kernels); one MADV_POPULATE_READ maps the chunk's pages without the traps. On
// this machine's kernel (6.18, large folios on ext4) that saves only ~40 of 920 faults of a
// 64 MiB convert; on kernels without large folios it is ~1000 traps. It is only a hint: when it
// fails (an older kernel, pages past a file that shrank) the reads fault as before, and the read
// watch still reports bytes that vanished.
void mapInAhead(const void* begin, std::uint64_t size)
{
#ifdef MADV_POPULATE_READ
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(begin) & ~(page - 1);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(begin) + size;
    if (page > 0 && end > start)
        (void)::madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_READ);
#else
    (void)begin;
    (void)size;
#endif
}

Status quantizeChunk(const TensorInfo& tensor, const TypeTraits& target, ChunkSlot& slot, const ImportanceWeights* importance)
{
    const std::span<std::uint8_t> bytes(slot.packed.data(), static_cast<std::size_t>(quantizedSize(target, slot.count)));
    if (readsInPlace(tensor)) {
        const float* first = reinterpret_cast<const float*>(tensor.data) + slot.begin;
        mapInAhead(first, slot.count * sizeof(float));
        const MappedReadWatch watch(first, slot.count * sizeof(float));
        Status quantized = quantizeSlotValues(tensor, target, slot, std::span<const float>(first, static_cast<std::size_t>(slot.count)), bytes, importance);
        if (quantized && watch.bytesLost())
            return tensorChangedOnDisk(tensor, watch.lostAddress());
        return quantized;
    }
    const std::span<float> values(slot.values.data(), static_cast<std::size_t>(slot.count));
    if (Status s = dequantizeElements(tensor, slot.begin, slot.begin + slot.count, values, WeightValues::Stored); !s)
        return s;
    return quantizeSlotValues(tensor, target, slot, values, bytes, importance);
}

// Chunks are quantized in batches, one per thread of the executor, and written in order: blocks quantize
// independently, so the bytes do not depend on the thread count.
Status writeQuantized(const TensorInfo& tensor, const TypeTraits& target, ByteSink& out, const ConversionOptions& options,
                      ConversionProgress& progress, const ImportanceWeights* importance)
{
    const std::uint64_t total = tensor.elementCount();
    std::uint64_t step = chunkStep(tensor, target, options.chunkElements);
    if (importance) {  // weighted quantizers take whole rows (some weigh by the whole row's variance)
        const std::uint64_t rowLength = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[0], 1));
        step = std::max(rowLength, step / rowLength * rowLength);
    }
    const std::uint64_t chunks = (total + step - 1) / step;
    const unsigned wanted = executorThreads(options.executor);
    std::vector<ChunkSlot> slots(static_cast<std::size_t>(std::min<std::uint64_t>(wanted, std::max<std::uint64_t>(chunks, 1))));
    for (ChunkSlot& slot : slots) {
        const auto size = static_cast<std::size_t>(std::min(step, total));
        if (!readsInPlace(tensor))
            slot.values.resize(size);
        slot.packed.resize(static_cast<std::size_t>(quantizedSize(target, size)));
    }
    for (std::uint64_t begin = 0; begin < total;) {
        std::size_t used = 0;
        for (; used < slots.size() && begin < total; ++used, begin += step) {
            slots[used].begin = begin;
            slots[used].count = std::min(step, total - begin);
        }
        runTasks(options.executor, used, [&](std::size_t i) { slots[i].status = quantizeChunk(tensor, target, slots[i], importance); });
        for (std::size_t i = 0; i < used; ++i) {
            if (!slots[i].status)
                return slots[i].status;
            if (Status s = out.write(slots[i].packed.data(), static_cast<std::size_t>(quantizedSize(target, slots[i].count))); !s)
                return s;
            if (Status s = progress.advance(slots[i].count); !s)
                return s;
        }
    }
    return Ok{};
}

// The stored bytes, unchanged but for the byte order.
Status writeCopy(const TensorInfo& tensor, ByteSink& out, const ConversionOptions& options, ConversionProgress& progress)
{
    return writeStoredBlocks(tensor, out, options.chunkElements / tensor.traits->blockSize, progress);
}

// llama-quantize's checks: an entry must have the tensor's row length and one row of weights
// per expert (ne[0] * ne[2] values); types that need importance need an entry.
Status checkImportance(const ImportanceWeights& importance, const TensorInfo& tensor, std::uint32_t targetType)
{
    const std::uint64_t experts = importance.expertCount(tensor.name, static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[0], 0)));
    if (experts == 0) {
        if (requiresImportance(targetType))
            return conversionError("tensor '" + std::string(tensor.name) + "': " + typeName(targetType)
                                   + " requires importance weights and the imatrix has no entry for it");
        return Ok{};
    }
    const std::uint64_t tensorExperts = static_cast<std::uint64_t>(std::max<std::int64_t>(tensor.ne[2], 1));
    if (experts != tensorExperts)
        return Error{"imatrix entry '" + std::string(tensor.name) + "' has " + std::to_string(experts) + " expert(s), the tensor has "
                     + std::to_string(tensorExperts), Error::kNoOffset, importance.path()};
    auto row = importance.row(tensor.name, 0, static_cast<std::uint64_t>(tensor.ne[0]));
    return row ? Status{Ok{}} : Status{row.error()};
}

void addWarnings(ConversionPlan& plan, const ConversionOptions& options)
{
    std::map<std::string, std::size_t> requantized;
    for (const ConversionTensorPlan& tensor : plan.tensors) {
        if (tensor.target.quantize && tensor.source->traits->kind == TypeKind::Quantized)
            ++requantized[tensor.source->traits->name];
        if (tensor.target.quantize && !tensor.target.note.empty())
            plan.warnings.push_back(std::string(tensor.source->name) + ": " + tensor.target.note);
    }
    if (!requantized.empty()) {
        std::string types;
        std::size_t count = 0;
        for (const auto& [name, n] : requantized) {
            types += (types.empty() ? "" : ", ") + name;
            count += n;
        }
        plan.warnings.insert(plan.warnings.begin(), std::to_string(count) + " tensor(s) are already quantized (" + types
                                                        + "); requantizing them accumulates error");
    }
    if (!options.tensorPattern.empty() && plan.quantizedCount == 0)
        plan.warnings.push_back("no tensor matching '" + options.tensorPattern + "' is converted");
}

}  // namespace

Result<ConversionPlan> planConversion(const Model& input, const ConversionOptions& options)
{
    const TypeTraits* target = findType(options.targetType);
    if (!target || !canQuantize(options.targetType))
        return conversionError("cannot convert to " + typeName(options.targetType) + ": the core has no quantizer for it");
    std::optional<UserPattern> pattern;
    if (!options.tensorPattern.empty()) {
        auto compiled = UserPattern::compile(options.tensorPattern);
        if (!compiled)
            return conversionError("tensor " + compiled.error().message);
        pattern = std::move(*compiled);
    }

    ConversionPlan plan;
    plan.fileType = llamaFileType(options.targetType);
    for (const TensorInfo& tensor : input.tensors()) {
        if (!tensor.traits)
            return Error{"tensor '" + std::string(tensor.name) + "' has " + typeName(tensor.typeId)
                         + ", whose size is unknown; it cannot be written", tensor.infoOffset, input.shards()[tensor.shard]->path()};
        const bool selected = !pattern || pattern->foundIn(tensor.name);
        ConversionTensorPlan entry{&tensor, chooseTensorTarget(tensor, options.targetType, selected)};
        if (entry.target.quantize && !tensor.traits->dequantize)
            return Error{"tensor '" + std::string(tensor.name) + "' has " + typeName(tensor.typeId) + ", which cannot be dequantized",
                         tensor.infoOffset, input.shards()[tensor.shard]->path()};
        if (entry.target.quantize && options.importance) {
            if (Status s = checkImportance(*options.importance, tensor, entry.target.typeId); !s)
                return s.error();
            entry.weighted = options.importance->expertCount(tensor.name) != 0;
        } else if (entry.target.quantize && requiresImportance(entry.target.typeId)) {
            return conversionError("tensor '" + std::string(tensor.name) + "': " + typeName(entry.target.typeId)
                                   + " requires an importance matrix (--imatrix)");
        }
        plan.quantizedCount += entry.target.quantize;
        plan.weightedCount += entry.weighted;
        plan.tensors.push_back(std::move(entry));
    }
    addWarnings(plan, options);
    return plan;
}

Result<ConversionPlan> convertModel(const Model& input, const std::string& outputPath, const ConversionOptions& options)
{
    for (const auto& shard : input.shards())
        if (isSameFile(outputPath, shard->path()))
            return Error{"output is the input file " + shard->path() + "; refusing to overwrite it", Error::kNoOffset, {}};
    auto plan = planConversion(input, options);
    if (!plan)
        return plan.error();

    GgufWriter writer;
    const auto notSplitKey = [](std::string_view key) { return key.substr(0, 6) != "split."; };
    if (Status s = writer.copyMetadata(input.primary(), notSplitKey); !s)
        return s.error();
    if (plan->fileType)
        writer.setValue("general.file_type", EncodedValue::u32(*plan->fileType));
    if (findType(options.targetType)->kind == TypeKind::Quantized)
        writer.setValue("general.quantization_version", EncodedValue::u32(2));
    if (options.importance) {  // the keys llama-quantize writes with --imatrix
        writer.setValue("quantize.imatrix.file", EncodedValue::string(options.importance->path()));
        if (!options.importance->dataset().empty())
            writer.setValue("quantize.imatrix.dataset", EncodedValue::string(options.importance->dataset()));
        writer.setValue("quantize.imatrix.entries_count", EncodedValue::u32(static_cast<std::uint32_t>(options.importance->entryCount())));
        writer.setValue("quantize.imatrix.chunks_count", EncodedValue::u32(options.importance->chunkCount()));
    }

    std::uint64_t totalElements = 0;
    for (const ConversionTensorPlan& tensor : plan->tensors)
        totalElements += tensor.source->elementCount();
    ConversionProgress progress(options.progress, options.cancel, totalElements);

    for (const ConversionTensorPlan& entry : plan->tensors) {
        const TensorInfo& tensor = *entry.source;
        TensorSpec spec{std::string(tensor.name), entry.target.typeId, {}};
        for (std::uint32_t d = 0; d < ggmlDimensionCount(tensor); ++d)
            spec.ne.push_back(tensor.ne[d]);  // a stored scalar (0 dims) is written as [1]
        TensorDataProducer produce;
        if (entry.target.quantize) {
            const TypeTraits* target = findType(entry.target.typeId);
            const ImportanceWeights* importance = entry.weighted ? options.importance : nullptr;
            produce = [&tensor, target, &options, &progress, importance](ByteSink& out) {
                return writeQuantized(tensor, *target, out, options, progress, importance);
            };
        } else {
            produce = [&tensor, &options, &progress](ByteSink& out) { return writeCopy(tensor, out, options, progress); };
        }
        if (Status s = writer.addTensor(std::move(spec), std::move(produce)); !s)
            return s.error();
    }
    // An input rewritten in place meanwhile would give a file that is neither model.
    if (Status s = writer.writeFile(outputPath, [&input] { return input.checkUnchanged(); }); !s) {
        Error error = s.error();
        if (error.path.empty())
            error.path = outputPath;
        return error;
    }
    return plan;
}

}  // namespace gguf
