#include "core/edit/ModelSaver.h"

#include "core/base/EscapedText.h"
#include "core/edit/PayloadByteOrder.h"
#include "core/gguf/RemoteRegion.h"
#include "core/gguf/SplitName.h"
#include "core/write/AtomicFileSet.h"
#include "core/write/ByteSink.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <random>

namespace gguf {

namespace {

constexpr std::uint64_t kDefaultAlignment = 32;
constexpr std::size_t kShardsKeptOpen = 64;

// Numbers in the byte order of the file being written.
class HeaderBytes {
public:
    explicit HeaderBytes(bool bigEndian) : m_bigEndian(bigEndian) {}

    template <class T>
    void put(T value)
    {
        unsigned char bytes[sizeof(T)];
        std::memcpy(bytes, &value, sizeof(T));
        if ((std::endian::native == std::endian::big) != m_bigEndian)
            std::reverse(bytes, bytes + sizeof(T));
        m_out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
    }
    void string(std::string_view text)
    {
        put<std::uint64_t>(text.size());
        m_out.append(text);
    }
    void raw(std::string_view bytes) { m_out.append(bytes); }
    void padTo(std::uint64_t alignment) { m_out.append(static_cast<std::size_t>((alignment - m_out.size() % alignment) % alignment), '\0'); }
    std::string& bytes() { return m_out; }

private:
    bool m_bigEndian;
    std::string m_out;
};

std::uint64_t padded(std::uint64_t size, std::uint64_t alignment)
{
    return size + (alignment - size % alignment) % alignment;
}

// The value's payload as the output file (same byte order as `file`, v2/v3 lengths) stores it.
Result<std::string> payloadFor(const EncodedValue& value, bool bigEndian)
{
    if (!bigEndian)
        return value.payload;
    return bigEndianPayload(value.type, value.payload);
}

Result<std::string> copiedPayload(const GgufFile& file, const MetadataValue& value)
{
    // v2 and v3 store values exactly as the output does: the bytes are copied as they are, so
    // float bits (NaN payloads included) and invalid UTF-8 stay exactly. v1's u32 lengths are
    // re-encoded.
    if (file.version() >= 2)
        return std::string(reinterpret_cast<const char*>(file.mapping().data() + value.offset()),
                           static_cast<std::size_t>(value.encodedSize()));
    auto encoded = EncodedValue::copyOf(value, file.bigEndian());
    if (!encoded)
        return encoded.error();
    return payloadFor(*encoded, file.bigEndian());
}

std::uint32_t littleEndianU32(const std::string& payload)
{
    std::uint32_t value = 0;
    for (int i = 3; i >= 0; --i)
        value = (value << 8) | static_cast<unsigned char>(payload[static_cast<std::size_t>(i)]);
    return value;
}

struct ShardPlan {
    const GgufFile* source = nullptr;
    std::string path;
    std::string header;  // padded to the alignment: tensor data starts right after it
    std::uint64_t alignment = kDefaultAlignment;
    std::uint64_t size = 0;
};

// 128 random bits in hex: the same in every shard of one save, different for every save.
std::string newSaveId()
{
    std::random_device random;
    static const char kHex[] = "0123456789abcdef";
    std::string id;
    for (int i = 0; i < 8; ++i) {
        const unsigned word = random();
        for (int nibble = 0; nibble < 4; ++nibble)
            id += kHex[(word >> (4 * nibble)) & 0xf];
    }
    return id;
}

// `saveId` non-empty: the shard is one of a split set and carries it as kSplitSaveIdKey,
// whatever the source or the edits said there.
Result<ShardPlan> planShard(const GgufFile& source, const MetadataEdits* edits, const std::string& saveId)
{
    ShardPlan plan;
    plan.source = &source;
    const bool bigEndian = source.bigEndian();
    plan.alignment = source.alignment();

    struct Entry {
        std::string_view key;
        ValueType type;
        std::string payload;
    };
    std::vector<Entry> entries;
    for (const MetadataEntry& entry : source.metadata()) {
        const MetadataEdits::Change* change = edits ? edits->find(entry.key) : nullptr;
        if (change && !change->value)
            continue;
        auto payload = change ? payloadFor(*change->value, bigEndian) : copiedPayload(source, entry.value);
        if (!payload)
            return payload.error();
        entries.push_back({entry.key, change ? change->value->type : entry.value.type(), std::move(payload.value())});
    }
    if (edits)
        for (const MetadataEdits::Change& change : edits->changes()) {
            if (!change.value || source.findMetadata(change.key))
                continue;
            auto payload = payloadFor(*change.value, bigEndian);
            if (!payload)
                return payload.error();
            entries.push_back({change.key, change.value->type, std::move(payload.value())});
        }
    if (!saveId.empty()) {
        std::erase_if(entries, [](const Entry& entry) { return entry.key == kSplitSaveIdKey; });
        auto payload = payloadFor(EncodedValue::string(saveId), bigEndian);
        if (!payload)
            return payload.error();
        entries.push_back({kSplitSaveIdKey, ValueType::String, std::move(payload.value())});
    }
    if (edits)
        if (const MetadataEdits::Change* change = edits->find("general.alignment"))
            plan.alignment = change->value ? littleEndianU32(change->value->payload) : kDefaultAlignment;

    HeaderBytes header(bigEndian);
    const std::string magic = source.magic();
    header.raw(std::string_view(magic).substr(0, 4));
    header.put<std::uint32_t>(source.version() == 1 ? 3 : source.version());
    header.put<std::uint64_t>(source.tensors().size());
    header.put<std::uint64_t>(entries.size());
    for (const Entry& entry : entries) {
        header.string(entry.key);
        header.put<std::uint32_t>(static_cast<std::uint32_t>(entry.type));
        header.raw(entry.payload);
    }
    std::uint64_t offset = 0;
    for (const TensorInfo& tensor : source.tensors()) {
        header.string(tensor.name);
        header.put<std::uint32_t>(tensor.nDims);
        for (std::uint32_t d = 0; d < tensor.nDims; ++d)
            header.put<std::int64_t>(tensor.ne[d]);
        header.put<std::uint32_t>(tensor.typeId);
        header.put<std::uint64_t>(offset);
        offset += padded(tensor.nbytes, plan.alignment);
    }
    header.padTo(plan.alignment);
    plan.header = std::move(header.bytes());
    plan.size = plan.header.size() + offset;
    return plan;
}

Status writeZeros(ByteSink& sink, std::uint64_t count)
{
    static const char zeros[4096] = {};
    while (count > 0) {
        const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(count, sizeof zeros));
        if (Status s = sink.write(zeros, piece); !s)
            return s;
        count -= piece;
    }
    return Ok{};
}

// A remote model has no descriptor to copy from: its bytes are fetched a piece at a time
// (within the remote cache's budget) and written from memory.
Status copyFetched(const TensorInfo& tensor, ByteSink& sink, const std::function<bool(std::uint64_t)>& piece)
{
    constexpr std::uint64_t kPiece = std::uint64_t{8} << 20;
    for (std::uint64_t at = 0; at < tensor.nbytes; at += kPiece) {
        const std::uint64_t size = std::min(kPiece, tensor.nbytes - at);
        if (Status s = ensureMappedBytes(tensor.data + at, size); !s)
            return s;
        if (Status s = sink.write(tensor.data + at, static_cast<std::size_t>(size)); !s)
            return s;
        if (piece && !piece(size))
            return Error{"cancelled", Error::kNoOffset, {}};
    }
    return Ok{};
}
}  // namespace

std::vector<std::string> savedShardPaths(const Model& model, const std::string& outputPath)
{
    const int count = static_cast<int>(model.shards().size());
    if (count == 1)
        return {outputPath};
    SplitName name;
    if (const auto parsed = SplitName::parse(outputPath); parsed && parsed->count == count) {
        name = *parsed;
    } else {
        name.prefix = outputPath.size() > 5 && outputPath.ends_with(".gguf") ? outputPath.substr(0, outputPath.size() - 5) : outputPath;
        name.count = count;
    }
    std::vector<std::string> paths;
    for (int k = 1; k <= count; ++k)
        paths.push_back(name.shardPath(k));
    return paths;
}

Result<SaveReport> saveModelAs(const Model& model, const MetadataEdits& edits, const std::string& outputPath, const SaveOptions& options)
{
    if (Status s = edits.validateFor(model); !s)
        return s.error();
    const std::vector<std::string> paths = savedShardPaths(model, outputPath);
    for (const std::string& path : paths)
        for (const auto& shard : model.shards())
            if (isSameFile(path, shard->path()))
                return Error{"the output is an input of this save (" + shard->path() + "); choose another name", Error::kNoOffset, path};

    std::vector<ShardPlan> plans;
    std::uint64_t totalTensorBytes = 0;
    const std::string saveId = model.shards().size() > 1 ? newSaveId() : std::string();
    for (std::size_t k = 0; k < model.shards().size(); ++k) {
        auto plan = planShard(*model.shards()[k], k == 0 ? &edits : nullptr, saveId);
        if (!plan)
            return plan.error();
        plan->path = paths[k];
        for (const TensorInfo& tensor : model.shards()[k]->tensors())
            totalTensorBytes += tensor.nbytes;
        plans.push_back(std::move(plan.value()));
    }

    SaveReport report;
    FileRangeCopy copier(options.firstCopyMethod);
    // One file: wherever openOutputFile sends it (a device, a FIFO, standard output). A split
    // set: regular files only, committed all together or not at all (AtomicFileSet.h).
    const bool split = plans.size() > 1;
    std::vector<std::unique_ptr<ByteSink>> sinks;
    std::vector<AtomicFileSink*> setFiles;
    std::uint64_t done = 0;
    const auto piece = [&](std::uint64_t bytes) {
        done += bytes;
        if (options.progress)
            options.progress(done, totalTensorBytes);
        return !(options.cancel && options.cancel->load());
    };
    for (const ShardPlan& plan : plans) {
        Result<std::unique_ptr<ByteSink>> sink = Error{};
        if (split) {
            auto file = AtomicFileSink::create(plan.path);
            if (!file)
                return file.error();
            setFiles.push_back(file.value().get());
            sink = std::unique_ptr<ByteSink>(std::move(file.value()));
        } else {
            sink = openOutputFile(plan.path);
        }
        if (!sink)
            return sink.error();
        if (Status s = (*sink)->write(plan.header.data(), plan.header.size()); !s)
            return s.error();
        const GgufFile& source = *plan.source;
        for (const TensorInfo& tensor : source.tensors()) {
            const Status copied = source.mapping().remote() ? copyFetched(tensor, **sink, piece)
                                                            : copier.copy(source.mapping().descriptor(), source.path(), tensor.fileOffset, tensor.nbytes, **sink, piece);
            if (!copied)
                return copied.error();  // the sinks' destructors remove every temporary file
            if (Status s = writeZeros(**sink, padded(tensor.nbytes, plan.alignment) - tensor.nbytes); !s)
                return s.error();
        }
        if (options.cancel && options.cancel->load())
            return Error{"cancelled", Error::kNoOffset, {}};
        report.bytesWritten += plan.size;
        // Past a few dozen shards each is flushed and closed once written, so that a set of
        // thousands does not hold a descriptor per shard twice over (its inputs hold one too).
        if (split && plans.size() > kShardsKeptOpen)
            if (Status s = setFiles.back()->prepare(); !s)
                return s.error();
        sinks.push_back(std::move(sink.value()));
    }
    // What was copied is what the model showed only if no input changed meanwhile.
    if (Status s = model.checkUnchanged(); !s)
        return s.error();
    if (split) {
        if (Status s = commitTogether(setFiles); !s)
            return s.error();
    } else if (Status s = sinks.front()->commit(); !s) {
        return s.error();
    }
    for (const ShardPlan& plan : plans)
        report.paths.push_back(plan.path);
    report.tensorBytes = totalTensorBytes;
    report.copyMethod = copier.method();
    return report;
}

}  // namespace gguf
