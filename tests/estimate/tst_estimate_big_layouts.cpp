// The memory estimate on real big-model layouts, written as sparse files: every tensor of the
// layout with its real shape and type, its data a hole, so a 671B model costs a few megabytes of
// disk. DeepSeek-V3 (MLA, converted with the absorbed head sizes): llama.cpp allocates K only,
// 61 layers x (512 + 64) x cells x 2 bytes at F16, 274.5 MiB at n_ctx 4096.

#include "core/estimate/MemoryEstimate.h"
#include "core/gguf/Model.h"
#include "core/types/GgmlType.h"
#include "core/write/ByteSink.h"
#include "core/write/GgufWriter.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace {
constexpr std::size_t kHoleChunk = std::size_t{64} << 20;

// A file sink that leaves a hole wherever a producer writes the shared zero chunk, and writes
// everything else (header, padding).
class SparseFileSink final : public gguf::ByteSink {
public:
    SparseFileSink(const std::string& path, const char* zeros)
        : m_fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644)), m_zeros(zeros), m_path(path)
    {
    }
    ~SparseFileSink() override
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    gguf::Status write(const void* data, std::size_t size) override
    {
        if (m_fd < 0)
            return failure();
        if (data == m_zeros) {
            if (::lseek(m_fd, static_cast<off_t>(size), SEEK_CUR) < 0)
                return failure();
        } else {
            for (std::size_t done = 0; done < size;) {
                const ssize_t n = ::write(m_fd, static_cast<const char*>(data) + done, size - done);
                if (n <= 0)
                    return failure();
                done += static_cast<std::size_t>(n);
            }
        }
        m_size += size;
        return gguf::Ok{};
    }
    gguf::Status commit() override
    {
        return m_fd >= 0 && ::ftruncate(m_fd, static_cast<off_t>(m_size)) == 0 ? gguf::Status(gguf::Ok{}) : failure();
    }

private:
    gguf::Status failure() const { return gguf::Error{std::strerror(errno), gguf::Error::kNoOffset, m_path}; }

    int m_fd;
    const char* m_zeros;
    std::string m_path;
    std::uint64_t m_size = 0;
};

enum : std::uint32_t { F32 = 0, Q8_0 = 8, Q4_K = 12, Q6_K = 14 };

struct LayoutTensor {
    std::string name;
    std::uint32_t type;
    std::vector<std::int64_t> ne;
};

// DeepSeek-V3 (671B) as convert_hf_to_gguf.py writes it today: 61 layers, the first 3 dense,
// 256 routed experts (top 8) and one shared expert, q_lora 1536, kv_lora 512, rope 64, absorbed
// MLA tensors attn_k_b / attn_v_b.
std::vector<LayoutTensor> deepSeekV3Tensors()
{
    constexpr std::int64_t embd = 7168, vocab = 129280, heads = 128, qLora = 1536, kvLora = 512, rope = 64, nope = 128, v = 128;
    constexpr std::int64_t denseFf = 18432, expertFf = 2048, experts = 256;
    std::vector<LayoutTensor> t{{"token_embd.weight", Q4_K, {embd, vocab}}};
    for (int il = 0; il < 61; ++il) {
        const std::string p = "blk." + std::to_string(il) + ".";
        t.push_back({p + "attn_norm.weight", F32, {embd}});
        t.push_back({p + "attn_q_a.weight", Q4_K, {embd, qLora}});
        t.push_back({p + "attn_q_a_norm.weight", F32, {qLora}});
        t.push_back({p + "attn_q_b.weight", Q4_K, {qLora, heads * (nope + rope)}});
        t.push_back({p + "attn_kv_a_mqa.weight", Q4_K, {embd, kvLora + rope}});
        t.push_back({p + "attn_kv_a_norm.weight", F32, {kvLora}});
        t.push_back({p + "attn_k_b.weight", Q8_0, {nope, kvLora, heads}});
        t.push_back({p + "attn_v_b.weight", Q4_K, {kvLora, v, heads}});
        t.push_back({p + "attn_output.weight", Q4_K, {heads * v, embd}});
        t.push_back({p + "ffn_norm.weight", F32, {embd}});
        if (il < 3) {
            t.push_back({p + "ffn_gate.weight", Q4_K, {embd, denseFf}});
            t.push_back({p + "ffn_up.weight", Q4_K, {embd, denseFf}});
            t.push_back({p + "ffn_down.weight", Q6_K, {denseFf, embd}});
            continue;
        }
        t.push_back({p + "ffn_gate_inp.weight", F32, {embd, experts}});
        t.push_back({p + "exp_probs_b.bias", F32, {experts}});
        t.push_back({p + "ffn_gate_exps.weight", Q4_K, {embd, expertFf, experts}});
        t.push_back({p + "ffn_up_exps.weight", Q4_K, {embd, expertFf, experts}});
        t.push_back({p + "ffn_down_exps.weight", Q6_K, {expertFf, embd, experts}});
        t.push_back({p + "ffn_gate_shexp.weight", Q4_K, {embd, expertFf}});
        t.push_back({p + "ffn_up_shexp.weight", Q4_K, {embd, expertFf}});
        t.push_back({p + "ffn_down_shexp.weight", Q6_K, {expertFf, embd}});
    }
    t.push_back({"output_norm.weight", F32, {embd}});
    t.push_back({"output.weight", Q6_K, {embd, vocab}});
    return t;
}

void deepSeekV3Metadata(gguf::GgufWriter& w)
{
    using gguf::EncodedValue;
    w.setValue("general.architecture", EncodedValue::string("deepseek2"));
    w.setValue("general.name", EncodedValue::string("DeepSeek-V3 layout"));
    for (const auto& [key, value] : std::initializer_list<std::pair<const char*, std::uint32_t>>{
             {"context_length", 163840}, {"embedding_length", 7168}, {"block_count", 61}, {"feed_forward_length", 18432},
             {"attention.head_count", 128}, {"attention.head_count_kv", 1}, {"vocab_size", 129280},
             {"leading_dense_block_count", 3}, {"attention.q_lora_rank", 1536}, {"attention.kv_lora_rank", 512},
             {"attention.key_length", 576}, {"attention.value_length", 512}, {"attention.key_length_mla", 192},
             {"attention.value_length_mla", 128}, {"expert_feed_forward_length", 2048}, {"expert_count", 256},
             {"expert_shared_count", 1}, {"expert_used_count", 8}, {"expert_group_count", 8}, {"expert_group_used_count", 4},
             {"expert_gating_func", 2}, {"rope.dimension_count", 64}})
        w.setValue(std::string("deepseek2.") + key, EncodedValue::u32(value));
}
}  // namespace

class TestEstimateBigLayouts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void deepSeekV3KeepsKeysOnly_data();
    void deepSeekV3KeepsKeysOnly();
    void deepSeekV3OnTheGpu();

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const gguf::Model> m_model;
    std::uint64_t m_tensorBytes = 0;
};

// Whether files in `dir` can have holes: a 1 GiB hole must cost (next to) no disk. Where it
// cannot, writing the layout would write hundreds of gigabytes.
bool holesAreFree(const QString& dir)
{
    const std::string probe = (dir + "/hole-probe").toStdString();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    struct stat info {};
    const bool ok = fd >= 0 && ::ftruncate(fd, off_t{1} << 30) == 0 && ::fstat(fd, &info) == 0 && info.st_blocks * 512 < (1 << 20);
    if (fd >= 0)
        ::close(fd);
    ::unlink(probe.c_str());
    return ok;
}

void TestEstimateBigLayouts::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (!holesAreFree(m_dir.path()))
        QSKIP("the temporary folder's file system does not keep sparse files sparse");
    const std::unique_ptr<char, decltype(&std::free)> zeros(static_cast<char*>(std::calloc(kHoleChunk, 1)), &std::free);
    QVERIFY(zeros);
    gguf::GgufWriter writer;
    deepSeekV3Metadata(writer);
    for (const LayoutTensor& tensor : deepSeekV3Tensors()) {
        std::uint64_t elements = 1;
        for (const std::int64_t n : tensor.ne)
            elements *= static_cast<std::uint64_t>(n);
        const std::uint64_t bytes = elements / gguf::findType(tensor.type)->blockSize * gguf::findType(tensor.type)->blockBytes;
        m_tensorBytes += bytes;
        const char* hole = zeros.get();
        const gguf::Status added = writer.addTensor({tensor.name, tensor.type, tensor.ne}, [bytes, hole](gguf::ByteSink& out) -> gguf::Status {
            for (std::uint64_t done = 0; done < bytes;) {
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kHoleChunk, bytes - done));
                if (gguf::Status written = out.write(hole, n); !written)
                    return written;
                done += n;
            }
            return gguf::Ok{};
        });
        QVERIFY2(added, added ? "" : added.error().toString().c_str());
    }
    const std::string path = m_dir.filePath("deepseek-v3-layout.gguf").toStdString();
    SparseFileSink sink(path, zeros.get());
    gguf::Status written = writer.write(sink);
    if (written)
        written = sink.commit();
    QVERIFY2(written, written ? "" : written.error().toString().c_str());
    auto opened = gguf::Model::open(path);
    QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
    m_model = opened.value();
    QVERIFY(m_tensorBytes > std::uint64_t{350} << 30);  // a 671B model at about 4.5 bits
}

void TestEstimateBigLayouts::deepSeekV3KeepsKeysOnly_data()
{
    QTest::addColumn<std::uint64_t>("context");
    QTest::addColumn<QString>("cacheType");
    QTest::addColumn<std::uint64_t>("bytesPerValue");  // x 32 per block
    QTest::newRow("4096 f16") << std::uint64_t{4096} << "f16" << std::uint64_t{64};
    QTest::newRow("131072 f16") << std::uint64_t{131072} << "f16" << std::uint64_t{64};
    QTest::newRow("131072 q8_0") << std::uint64_t{131072} << "q8_0" << std::uint64_t{34};
}

void TestEstimateBigLayouts::deepSeekV3KeepsKeysOnly()
{
    QFETCH(std::uint64_t, context);
    QFETCH(QString, cacheType);
    QFETCH(std::uint64_t, bytesPerValue);
    gguf::EstimateOptions options;
    options.contextLength = context;
    options.keyType = options.valueType = gguf::findTypeByName(cacheType.toStdString())->id;
    const auto estimate = gguf::estimateMemory(*m_model, options);
    QVERIFY2(estimate, estimate ? "" : estimate.error().toString().c_str());
    QVERIFY(estimate->kvExact);
    QCOMPARE(estimate->kvLayers.size(), std::size_t{61});
    for (const gguf::LayerKvEstimate& layer : estimate->kvLayers)
        QCOMPARE(layer.valueBytes, std::uint64_t{0});
    QCOMPARE(estimate->kvTotal(), std::uint64_t{61} * 576 / 32 * bytesPerValue * context);
    if (context == 4096 && cacheType == "f16")
        QCOMPARE(double(estimate->kvTotal()) / (1 << 20), 274.5);
    QCOMPARE(estimate->weightsCpu, m_tensorBytes);
    QCOMPARE(estimate->recurrentTotal(), std::uint64_t{0});
}

void TestEstimateBigLayouts::deepSeekV3OnTheGpu()
{
    gguf::EstimateOptions options;
    options.contextLength = 4096;
    options.gpuLayers = 30;  // the last 30 layers: their weights and their cache
    const auto estimate = gguf::estimateMemory(*m_model, options);
    QVERIFY(estimate);
    QCOMPARE(estimate->kvGpu, std::uint64_t{30} * 576 * 4096 * 2);
    QCOMPARE(estimate->kvCpu, std::uint64_t{31} * 576 * 4096 * 2);
    // 30 MoE layers on the GPU; 28 MoE and the 3 dense layers, the embeddings and the output on the CPU.
    QVERIFY(estimate->weightsGpu > std::uint64_t{150} << 30 && estimate->weightsCpu > std::uint64_t{150} << 30);
    QCOMPARE(estimate->weightsCpu + estimate->weightsGpu, m_tensorBytes);
}

QTEST_GUILESS_MAIN(TestEstimateBigLayouts)
#include "tst_estimate_big_layouts.moc"
