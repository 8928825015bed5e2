// A 70B-model GGUF of about 200 GB, written sparse (only the header and one small block of
// known values take disk space), is opened, its metadata walked in full (a 128,256-token
// vocabulary, scores, token types and 280,147 merges), a tensor region dequantized and heatmap
// windows reduced, while resident memory grows by little: opening never reads tensor data, and
// views read only the window they show. Skips when the file system cannot hold such a file.
//
// Layout as Llama-3-70B: 80 layers of attn_q/k/v/output, ffn_gate/up/down and two norms,
// token_embd and output at 8192 x 128256: 723 tensors. Types are mixed so the offsets run past
// 2^37 and several kernels are exercised: attention and ffn_down f32, ffn_gate/up f16,
// token_embd q4_K, output q8_0.

#include "core/gguf/Dequantize.h"
#include "core/write/GgufWriter.h"
#include "core/analysis/HeatmapReducer.h"
#include "core/gguf/MetadataFormat.h"
#include "core/gguf/Model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace {

constexpr std::int64_t kEmbedding = 8192, kKeyValue = 1024, kFeedForward = 28672, kVocabulary = 128256, kLayers = 80;
constexpr std::uint64_t kMerges = 280147;
// AddressSanitizer keeps freed memory in quarantine (up to 256 MB) and adds redzones and shadow,
// so the bound is looser there; reading a whole tensor would still blow through both.
#if defined(__SANITIZE_ADDRESS__)
#define GGUFX_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GGUFX_UNDER_ASAN 1
#endif
#endif
#ifdef GGUFX_UNDER_ASAN
constexpr std::uint64_t kMaxResidentGrowth = 400ull << 20;
#else
constexpr std::uint64_t kMaxResidentGrowth = 200ull << 20;
#endif
constexpr std::uint64_t kZeroChunk = 64ull << 20;
const char* const kProbeTensor = "blk.40.attn_q.weight";  // f32; its first rows hold known values
constexpr std::uint64_t kProbeRows = 64;

float probeValue(std::uint64_t row, std::uint64_t column)
{
    return float(row) - float(column % 7) * 0.25f;
}

std::uint64_t residentBytes()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toULongLong() * std::uint64_t(::sysconf(_SC_PAGESIZE)) : 0;
}

// Writes where data is real and skips over zeros handed in from `zeros` (an untouched anonymous
// mapping, so producing 200 GB of "zeros" costs neither memory nor time), leaving holes.
class SparseFileSink final : public gguf::ByteSink {
public:
    SparseFileSink(int fd, const char* zeros) : m_fd(fd), m_zeros(zeros) {}
    gguf::Status write(const void* data, std::size_t size) override
    {
        const auto* bytes = static_cast<const char*>(data);
        if (bytes < m_zeros || bytes >= m_zeros + kZeroChunk) {
            for (std::size_t done = 0; done < size;) {
                const ssize_t written = ::pwrite(m_fd, bytes + done, size - done, off_t(m_position + done));
                if (written <= 0)
                    return gguf::Error{"write failed", gguf::Error::kNoOffset, {}};
                done += std::size_t(written);
            }
        }
        m_position += size;
        return gguf::Ok{};
    }
    gguf::Status commit() override
    {
        if (::ftruncate(m_fd, off_t(m_position)) != 0)
            return gguf::Error{"cannot set the file size", gguf::Error::kNoOffset, {}};
        return gguf::Ok{};
    }

private:
    int m_fd;
    const char* m_zeros;
    std::uint64_t m_position = 0;
};

gguf::TensorDataProducer zerosProducer(const char* zeros, std::uint64_t bytes)
{
    return [zeros, bytes](gguf::ByteSink& out) -> gguf::Status {
        for (std::uint64_t left = bytes; left > 0;) {
            const std::uint64_t piece = std::min(left, kZeroChunk);
            if (gguf::Status s = out.write(zeros, std::size_t(piece)); !s)
                return s;
            left -= piece;
        }
        return gguf::Ok{};
    };
}

gguf::TensorDataProducer probeProducer(const char* zeros)
{
    return [zeros](gguf::ByteSink& out) -> gguf::Status {
        std::vector<float> rows(kProbeRows * kEmbedding);
        for (std::uint64_t r = 0; r < kProbeRows; ++r)
            for (std::uint64_t c = 0; c < std::uint64_t(kEmbedding); ++c)
                rows[r * kEmbedding + c] = probeValue(r, c);
        if (gguf::Status s = out.write(rows.data(), rows.size() * sizeof(float)); !s)
            return s;
        return zerosProducer(zeros, std::uint64_t(kEmbedding - kProbeRows) * kEmbedding * 4)(out);
    };
}

void addVocabulary(gguf::GgufWriter& writer)
{
    std::vector<std::string> tokens;
    tokens.reserve(kVocabulary);
    std::string scores, types;
    for (std::int64_t i = 0; i < kVocabulary; ++i) {
        tokens.push_back((i % 3 ? "\xC4\xA0tok" : "piece") + std::to_string(i));
        const float score = -float(i);
        const std::int32_t type = i < 256 ? 6 : 1;
        scores.append(reinterpret_cast<const char*>(&score), 4);
        types.append(reinterpret_cast<const char*>(&type), 4);
    }
    writer.setValue("tokenizer.ggml.model", gguf::EncodedValue::string("gpt2"));
    writer.setValue("tokenizer.ggml.tokens", gguf::EncodedValue::stringArray(tokens));
    writer.setValue("tokenizer.ggml.scores", *gguf::EncodedValue::fixedArray(gguf::ValueType::F32, scores));
    writer.setValue("tokenizer.ggml.token_type", *gguf::EncodedValue::fixedArray(gguf::ValueType::I32, types));
    std::vector<std::string> merges;
    merges.reserve(kMerges);
    for (std::uint64_t i = 0; i < kMerges; ++i)
        merges.push_back("\xC4\xA0t" + std::to_string(i % 977) + " ok" + std::to_string(i));
    writer.setValue("tokenizer.ggml.merges", gguf::EncodedValue::stringArray(merges));
}

// Builds the writer for the whole model; returns the number of tensors.
std::size_t describeModel(gguf::GgufWriter& writer, const char* zeros)
{
    writer.setValue("general.architecture", gguf::EncodedValue::string("llama"));
    writer.setValue("general.name", gguf::EncodedValue::string("sparse-70b"));
    writer.setValue("llama.block_count", gguf::EncodedValue::u32(kLayers));
    writer.setValue("llama.context_length", gguf::EncodedValue::u32(131072));
    writer.setValue("llama.embedding_length", gguf::EncodedValue::u32(kEmbedding));
    writer.setValue("llama.feed_forward_length", gguf::EncodedValue::u32(kFeedForward));
    writer.setValue("llama.attention.head_count", gguf::EncodedValue::u32(64));
    writer.setValue("llama.attention.head_count_kv", gguf::EncodedValue::u32(8));
    writer.setValue("llama.rope.freq_base", gguf::EncodedValue::f32(500000.0f));
    addVocabulary(writer);

    struct Spec {
        std::string name;
        std::uint32_t type;
        std::vector<std::int64_t> ne;
    };
    enum : std::uint32_t { F32 = 0, F16 = 1, Q8_0 = 8, Q4_K = 12 };
    std::vector<Spec> specs{{"token_embd.weight", Q4_K, {kEmbedding, kVocabulary}}};
    for (int l = 0; l < kLayers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        specs.push_back({p + "attn_norm.weight", F32, {kEmbedding}});
        specs.push_back({p + "attn_q.weight", F32, {kEmbedding, kEmbedding}});
        specs.push_back({p + "attn_k.weight", F32, {kEmbedding, kKeyValue}});
        specs.push_back({p + "attn_v.weight", F32, {kEmbedding, kKeyValue}});
        specs.push_back({p + "attn_output.weight", F32, {kEmbedding, kEmbedding}});
        specs.push_back({p + "ffn_norm.weight", F32, {kEmbedding}});
        specs.push_back({p + "ffn_gate.weight", F16, {kEmbedding, kFeedForward}});
        specs.push_back({p + "ffn_up.weight", F16, {kEmbedding, kFeedForward}});
        specs.push_back({p + "ffn_down.weight", F32, {kFeedForward, kEmbedding}});
    }
    specs.push_back({"output_norm.weight", F32, {kEmbedding}});
    specs.push_back({"output.weight", Q8_0, {kEmbedding, kVocabulary}});
    for (Spec& spec : specs) {
        const gguf::TypeTraits* traits = gguf::findType(spec.type);
        std::uint64_t elements = 1;
        for (const std::int64_t n : spec.ne)
            elements *= std::uint64_t(n);
        const std::uint64_t bytes = elements / traits->blockSize * traits->blockBytes;
        auto producer = spec.name == kProbeTensor ? probeProducer(zeros) : zerosProducer(zeros, bytes);
        if (!writer.addTensor({spec.name, spec.type, spec.ne}, std::move(producer)))
            return 0;
    }
    return specs.size();
}

}  // namespace

class TestHugeFile : public QObject {
    Q_OBJECT

private slots:
    void sparse70BModelOpensAndViewsInLittleMemory();
};

void TestHugeFile::sparse70BModelOpensAndViewsInLittleMemory()
{
    const QByteArray where = qgetenv("GGUFX_HUGE_FILE_DIR");
    QTemporaryDir dir(where.isEmpty() ? QDir::tempPath() + QStringLiteral("/huge-gguf-XXXXXX") : QString::fromLocal8Bit(where) + QStringLiteral("/huge-gguf-XXXXXX"));
    QVERIFY(dir.isValid());
    struct statvfs space {};
    QVERIFY(::statvfs(QFile::encodeName(dir.path()).constData(), &space) == 0);
    if (std::uint64_t(space.f_bavail) * space.f_frsize < (256ull << 20))
        QSKIP("less than 256 MB free where the sparse file would go (set GGUFX_HUGE_FILE_DIR)");

    const QString path = dir.filePath(QStringLiteral("sparse-70b.gguf"));
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    QVERIFY(fd >= 0);
    // Probe: can this file system hold a 200 GB file at all?
    if (::ftruncate(fd, off_t(210ull << 30)) != 0) {
        ::close(fd);
        QSKIP("the file system cannot hold a 200 GB file (ftruncate failed); set GGUFX_HUGE_FILE_DIR");
    }
    void* zeros = ::mmap(nullptr, kZeroChunk, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    QVERIFY(zeros != MAP_FAILED);
    std::size_t tensorCount = 0;
    {
        gguf::GgufWriter writer;
        tensorCount = describeModel(writer, static_cast<const char*>(zeros));
        QCOMPARE(tensorCount, std::size_t(3 + 9 * kLayers));
        SparseFileSink sink(fd, static_cast<const char*>(zeros));
        const gguf::Status written = writer.write(sink);
        QVERIFY2(written.ok(), written ? "" : written.error().toString().c_str());
        QVERIFY(sink.commit().ok());
    }
    ::munmap(zeros, kZeroChunk);
    struct stat info {};
    QVERIFY(::fstat(fd, &info) == 0);
    ::close(fd);
    const std::uint64_t fileSize = std::uint64_t(info.st_size);
    QVERIFY2(fileSize > 190000000000ull && fileSize < 210000000000ull, qPrintable(QString::number(fileSize)));
    if (std::uint64_t(info.st_blocks) * 512 > (1ull << 30))
        QSKIP("the file system does not keep holes (the file uses more than 1 GB of disk)");

    const std::uint64_t before = residentBytes();
    QVERIFY(before > 0);

    // Open: header, metadata and tensor index only.
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    QCOMPARE((*model)->tensors().size(), tensorCount);
    QCOMPARE((*model)->summary().fileSize, fileSize);
    QVERIFY((*model)->tensors().back().fileOffset > (1ull << 37));

    // Metadata: every entry, every element of every array.
    std::uint64_t elementsSeen = 0;
    for (const gguf::MetadataEntry& entry : (*model)->metadata()) {
        QVERIFY(!gguf::formatValue(entry.value).empty());
        if (!entry.value.isArray())
            continue;
        if (entry.value.elementType() == gguf::ValueType::String) {
            for (const std::uint64_t offset : entry.value.elementOffsets())
                elementsSeen += !entry.value.elementAt(offset).toStringView().empty();
        } else {
            elementsSeen += entry.value.arrayLength();
        }
    }
    QCOMPARE(elementsSeen, std::uint64_t(3 * kVocabulary) + kMerges);
    const gguf::MetadataEntry* tokens = (*model)->findMetadata("tokenizer.ggml.tokens");
    QVERIFY(tokens);
    QCOMPARE(tokens->value.element(kVocabulary - 1).toStringView(), std::string_view("\xC4\xA0tok128255"));

    // View a region: the probe rows hold their known values, the rest of the tensor is zero.
    const gguf::TensorInfo* probe = (*model)->findTensor(kProbeTensor);
    QVERIFY(probe);
    std::vector<float> rows((kProbeRows + 1) * kEmbedding);
    QVERIFY(gguf::dequantizeRows(*probe, 0, kProbeRows + 1, rows).ok());
    for (std::uint64_t r = 0; r <= kProbeRows; ++r)
        for (std::uint64_t c = 0; c < std::uint64_t(kEmbedding); c += 97)
            QCOMPARE(rows[r * kEmbedding + c], r < kProbeRows ? probeValue(r, c) : 0.0f);

    // Heatmap windows of the two largest tensors and of the last one (q8_0, past 2^37).
    for (const char* name : {"token_embd.weight", "blk.79.ffn_down.weight", "output.weight"}) {
        const gguf::TensorInfo* tensor = (*model)->findTensor(name);
        QVERIFY(tensor);
        const gguf::TensorSlice slice = gguf::wholeTensor(*tensor);
        const std::uint64_t firstRow = slice.rowCount - 256;
        const gguf::HeatmapRegion region{firstRow, slice.rowCount, 0, slice.rowLength()};
        const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, 64, 256, gguf::CellAggregate::AbsMax);
        std::vector<float> cells(std::size_t(grid.rows) * grid.columns);
        const gguf::Status reduced = gguf::reduceHeatmapRows(slice, grid, 0, grid.rows, cells);
        QVERIFY2(reduced.ok(), reduced ? "" : reduced.error().toString().c_str());
        QVERIFY(std::all_of(cells.begin(), cells.end(), [](float v) { return v == 0.0f; }));
    }

    const std::uint64_t after = residentBytes();
    const std::uint64_t growth = after > before ? after - before : 0;
    qInfo("file %.1f GB, %llu MB on disk; resident memory grew by %.1f MB", double(fileSize) / 1e9,
          static_cast<unsigned long long>(info.st_blocks) * 512 >> 20, double(growth) / 1048576.0);
    QVERIFY2(growth < kMaxResidentGrowth, qPrintable(QStringLiteral("resident memory grew by %1 MB").arg(growth >> 20)));
}

QTEST_GUILESS_MAIN(TestHugeFile)
#include "tst_huge_file.moc"
