// Conversion and the GGUF writer. Converting tiny-llama-F32 must reproduce ggml's own
// tiny-llama-<TYPE>.gguf byte for byte (metadata, alignment, tensor data); for every target the
// output reopens, keeps its metadata, carries the new general.file_type, keeps 1-D tensors F32
// and dequantizes to exactly what the core's quantizer produced. Outputs never replace inputs.
// The writer alone rewrites ggml-written files byte-identically and rejects bad requests.

#include "TestPools.h"
#include "CliRunner.h"
#include "core/quantize/Conversion.h"
#include "core/gguf/Dequantize.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/write/GgufWriter.h"
#include "core/gguf/Model.h"
#include "core/quantize/Quantize.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <unistd.h>

using namespace gguf;

using testsupport::openModelAt;

namespace {

ConversionOptions toType(const char* name, std::string pattern = {})
{
    ConversionOptions options;
    options.targetType = findTypeByName(name)->id;
    options.tensorPattern = std::move(pattern);
    options.chunkElements = 5000;  // several chunks per tensor, some inside rows
    options.executor = &testsupport::poolOf(3);  // batches of chunks in parallel, written in order
    return options;
}

std::vector<float> valuesOf(const TensorInfo& tensor)
{
    std::vector<float> values(tensor.elementCount());
    return dequantizeRows(tensor, 0, tensor.rowCount(), values) ? values : std::vector<float>{};
}

}  // namespace

class ConvertTest : public QObject {
    Q_OBJECT

private slots:
    void reproducesGgmlFiles_data();
    void reproducesGgmlFiles();
    void roundTrip_data();
    void roundTrip();
    void tensorPatternSelects();
    void requantizingWarns();
    void refusesToOverwriteInput();
    void alignmentHonoured();
    void bigEndianInputConvertsLikeItsTwin();
    void splitInputBecomesOneFile();
    void writerRewritesByteIdentical_data();
    void writerRewritesByteIdentical();
    void writerRejectsBadRequests();
    void cli();

private:
    QTemporaryDir m_dir;
};

void ConvertTest::reproducesGgmlFiles_data()
{
    QTest::addColumn<QString>("type");
    for (const char* type : {"F16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"})
        QTest::newRow(type) << QString::fromLatin1(type);
}

void ConvertTest::reproducesGgmlFiles()
{
    QFETCH(QString, type);
    const auto input = openModelAt(testsupport::fixturePath(QStringLiteral("tiny-llama-F32.gguf")));
    QVERIFY(input);
    const QString output = m_dir.filePath(type + QStringLiteral(".gguf"));
    const auto plan = convertModel(*input, output.toStdString(), toType(qPrintable(type)));
    QVERIFY2(plan, plan ? "" : plan.error().toString().c_str());
    QCOMPARE(plan->quantizedCount, std::size_t(16));
    QVERIFY(plan->warnings.empty());
    const QByteArray ours = testsupport::readWholeFile(output);
    const QByteArray ggml = testsupport::readWholeFile(testsupport::fixturePath(QStringLiteral("tiny-llama-%1.gguf").arg(type)));
    QVERIFY(!ggml.isEmpty());
    QCOMPARE(ours.size(), ggml.size());
    QVERIFY2(ours == ggml, "converted file differs from ggml's");
}

void ConvertTest::roundTrip_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<int>("fileType");
    QTest::newRow("BF16") << QStringLiteral("BF16") << 32;
    QTest::newRow("Q2_K") << QStringLiteral("Q2_K") << 10;
    QTest::newRow("Q4_K") << QStringLiteral("Q4_K") << 15;
    QTest::newRow("Q8_0") << QStringLiteral("Q8_0") << 7;
}

void ConvertTest::roundTrip()
{
    QFETCH(QString, type);
    QFETCH(int, fileType);
    const auto input = openModelAt(testsupport::fixturePath(QStringLiteral("tiny-llama-F32.gguf")));
    QVERIFY(input);
    const QString path = m_dir.filePath(QStringLiteral("round-") + type + QStringLiteral(".gguf"));
    const std::uint32_t target = findTypeByName(type.toStdString())->id;
    QVERIFY(convertModel(*input, path.toStdString(), toType(qPrintable(type))));
    const auto output = openModelAt(path);
    QVERIFY(output);

    // Metadata: the same keys in the same order with the same encoded bytes, but file_type.
    const auto& before = input->metadata();
    const auto& after = output->metadata();
    QCOMPARE(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        QCOMPARE(after[i].key, before[i].key);
        if (after[i].key == "general.file_type") {
            QCOMPARE(after[i].value.type(), ValueType::U32);
            QCOMPARE(*after[i].value.toUInt(), std::uint64_t(fileType));
            continue;
        }
        QVERIFY2(EncodedValue::copyOf(after[i].value, false)->payload == EncodedValue::copyOf(before[i].value, false)->payload,
                 before[i].key.data());
    }
    // Tensors: 1-D ones F32 and untouched; 2-D ones in the target type, decoding to exactly the
    // core's quantization of the input.
    QCOMPARE(output->tensors().size(), input->tensors().size());
    for (std::size_t t = 0; t < input->tensors().size(); ++t) {
        const TensorInfo& in = input->tensors()[t];
        const TensorInfo& out = output->tensors()[t];
        QCOMPARE(out.name, in.name);
        QCOMPARE(out.ne, in.ne);
        if (in.nDims < 2) {
            QCOMPARE(out.typeId, std::uint32_t(0));
            QVERIFY(out.nbytes == in.nbytes && std::memcmp(out.data, in.data, in.nbytes) == 0);
            continue;
        }
        QCOMPARE(out.typeId, target);
        const std::vector<float> source = valuesOf(in);
        std::vector<std::uint8_t> packed(quantizedSize(*out.traits, source.size()));
        QVERIFY(quantizeValues(target, source, packed));
        std::vector<float> expected(source.size());
        out.traits->dequantize(packed.data(), expected.data(), packed.size() / out.traits->blockBytes);
        const std::vector<float> actual = valuesOf(out);
        QVERIFY2(std::memcmp(actual.data(), expected.data(), actual.size() * sizeof(float)) == 0, out.name.data());
    }
}

void ConvertTest::tensorPatternSelects()
{
    const auto input = openModelAt(testsupport::fixturePath(QStringLiteral("tiny-llama-F32.gguf")));
    const QString path = m_dir.filePath(QStringLiteral("pattern.gguf"));
    const auto plan = convertModel(*input, path.toStdString(), toType("q8_0", "attn_(q|k)\\."));
    QVERIFY(plan);
    QCOMPARE(plan->quantizedCount, std::size_t(4));
    const auto output = openModelAt(path);
    QVERIFY(output);
    for (std::size_t t = 0; t < output->tensors().size(); ++t) {
        const TensorInfo& out = output->tensors()[t];
        const bool selected = out.name.find("attn_q.") != std::string_view::npos || out.name.find("attn_k.") != std::string_view::npos;
        QCOMPARE(out.typeId, selected ? 8u : 0u);
        if (!selected)
            QVERIFY(std::memcmp(out.data, input->tensors()[t].data, out.nbytes) == 0);
    }
    QVERIFY(!planConversion(*input, toType("q8_0", "attn_(")));  // invalid regex: an error, not an exception
    const auto none = planConversion(*input, toType("q8_0", "no-such-tensor"));
    QVERIFY(none && none->quantizedCount == 0 && none->warnings.size() == 1);
}

void ConvertTest::requantizingWarns()
{
    const auto input = openModelAt(testsupport::fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf")));
    const QString path = m_dir.filePath(QStringLiteral("requantized.gguf"));
    const auto plan = convertModel(*input, path.toStdString(), toType("q8_0"));
    QVERIFY(plan);
    QVERIFY(!plan->warnings.empty());
    QVERIFY(QString::fromStdString(plan->warnings.front()).contains(QLatin1String("16 tensor(s) are already quantized (q4_K)")));
    QVERIFY(openModelAt(path));
}

void ConvertTest::refusesToOverwriteInput()
{
    const QString input = m_dir.filePath(QStringLiteral("input.gguf"));
    QVERIFY(QFile::copy(testsupport::fixturePath(QStringLiteral("tiny-llama-Q8_0.gguf")), input));
    const QByteArray original = testsupport::readWholeFile(input);
    const auto model = openModelAt(input);
    QVERIFY(model);
    const QString link = m_dir.filePath(QStringLiteral("link.gguf"));
    const QString hardLink = m_dir.filePath(QStringLiteral("hard.gguf"));
    QVERIFY(QFile::link(input, link));
    QVERIFY(::link(input.toLocal8Bit().constData(), hardLink.toLocal8Bit().constData()) == 0);
    for (const QString& target : {input, link, hardLink}) {
        const auto plan = convertModel(*model, target.toStdString(), toType("q4_0"));
        QVERIFY(!plan);
        QVERIFY(QString::fromStdString(plan.error().message).contains(QLatin1String("refusing to overwrite")));
    }
    QCOMPARE(testsupport::readWholeFile(input), original);
    QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden).filter(QStringLiteral(".input")).size(), 0);

    const auto split = openModelAt(testsupport::fixturePath(QStringLiteral("split-00001-of-00002.gguf")));
    QVERIFY(split);
    QVERIFY(!convertModel(*split, testsupport::fixturePath(QStringLiteral("split-00002-of-00002.gguf")).toStdString(), toType("q8_0")));
}

void ConvertTest::alignmentHonoured()
{
    const auto input = openModelAt(testsupport::fixturePath(QStringLiteral("align64.gguf")));
    QVERIFY(input);
    const QString path = m_dir.filePath(QStringLiteral("align64-q8.gguf"));
    QVERIFY(convertModel(*input, path.toStdString(), toType("q8_0")));
    const auto output = openModelAt(path);  // the reader checks each offset against the alignment
    QVERIFY(output);
    QCOMPARE(output->primary().alignment(), std::uint64_t(64));
    QCOMPARE(output->primary().dataOffset() % 64, std::uint64_t(0));
    for (const TensorInfo& tensor : output->tensors())
        QCOMPARE(tensor.offset % 64, std::uint64_t(0));
}

// A big-endian input and its little-endian twin convert to the same bytes: metadata values and
// copied tensors are turned little-endian, quantized ones go through the same f32 values.
void ConvertTest::bigEndianInputConvertsLikeItsTwin()
{
    QStringList outputs;
    for (const QString& name : {QStringLiteral("be.gguf"), QStringLiteral("be-twin-le.gguf")}) {
        const auto input = openModelAt(testsupport::fixturePath(name));
        QVERIFY(input);
        outputs << m_dir.filePath(QStringLiteral("from-") + name);
        const auto plan = convertModel(*input, outputs.back().toStdString(), toType("f16"));
        QVERIFY2(plan, plan ? "" : plan.error().toString().c_str());
    }
    const QByteArray fromBig = testsupport::readWholeFile(outputs[0]);
    QVERIFY(!fromBig.isEmpty());
    QCOMPARE(fromBig, testsupport::readWholeFile(outputs[1]));
}

void ConvertTest::splitInputBecomesOneFile()
{
    const auto input = openModelAt(testsupport::fixturePath(QStringLiteral("split-00002-of-00002.gguf")));
    QVERIFY(input);
    const QString path = m_dir.filePath(QStringLiteral("joined.gguf"));
    QVERIFY(convertModel(*input, path.toStdString(), toType("q4_K")));
    // Already q4_K, nothing quantized: the split keys go and the result is ggml's unsplit file.
    QCOMPARE(testsupport::readWholeFile(path), testsupport::readWholeFile(testsupport::fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"))));
}

void ConvertTest::writerRewritesByteIdentical_data()
{
    QTest::addColumn<QString>("name");
    for (const char* name : {"kv-all-types.gguf", "kv-nested-arrays.gguf", "be-twin-le.gguf", "align64.gguf", "no-tensors.gguf",
                             "dims.gguf", "all-types.gguf", "tiny-llama-Q4_K.gguf", "tiny-moe-Q2_K.gguf"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

// Metadata copied entry by entry and tensors copied through producers give the original bytes.
void ConvertTest::writerRewritesByteIdentical()
{
    QFETCH(QString, name);
    const auto file = GgufFile::open(testsupport::fixturePath(name).toStdString());
    QVERIFY(file);
    GgufWriter writer;
    QVERIFY(writer.copyMetadata(**file));
    for (const TensorInfo& tensor : (*file)->tensors()) {
        TensorSpec spec{std::string(tensor.name), tensor.typeId, {tensor.ne.begin(), tensor.ne.begin() + tensor.nDims}};
        QVERIFY(writer.addTensor(spec, [&tensor](ByteSink& out) { return out.write(tensor.data, tensor.nbytes); }));
    }
    const QString path = m_dir.filePath(QStringLiteral("rewritten-") + name);
    QVERIFY(writer.writeFile(path.toStdString()));
    QCOMPARE(std::uint64_t(QFileInfo(path).size()), *writer.fileSize());
    QCOMPARE(testsupport::readWholeFile(path), testsupport::readWholeFile(testsupport::fixturePath(name)));
}

void ConvertTest::writerRejectsBadRequests()
{
    const auto bytes = [](std::size_t n) { return [n](ByteSink& out) { return out.write(std::string(n, '\0').data(), n); }; };
    GgufWriter writer;
    QVERIFY(writer.addTensor({"a", 0, {4}}, bytes(16)));
    QVERIFY(!writer.addTensor({"a", 0, {4}}, bytes(16)));                     // duplicate name
    QVERIFY(!writer.addTensor({std::string(64, 'n'), 0, {4}}, bytes(16)));    // name too long for ggml
    QVERIFY(!writer.addTensor({"b", 250, {4}}, bytes(16)));                   // unknown type
    QVERIFY(!writer.addTensor({"c", 12, {100}}, bytes(16)));                  // not whole q4_K blocks
    QVERIFY(!writer.addTensor({"d", 0, {1, 1, 1, 1, 1}}, bytes(4)));          // five dimensions
    QVERIFY(!writer.addTensor({"e", 0, {-1}}, bytes(4)));

    const QString path = m_dir.filePath(QStringLiteral("rejected.gguf"));
    writer.setValue("general.alignment", EncodedValue::u64(32));
    QVERIFY(!writer.writeFile(path.toStdString()));  // alignment must be a u32
    writer.setValue("general.alignment", EncodedValue::u32(48));
    QVERIFY(!writer.writeFile(path.toStdString()));  // and a power of two
    QVERIFY(writer.removeValue("general.alignment"));

    for (const std::size_t wrong : {15u, 17u}) {  // a producer writing too few / too many bytes
        GgufWriter sized;
        QVERIFY(sized.addTensor({"a", 0, {4}}, bytes(wrong)));
        QVERIFY(!sized.writeFile(path.toStdString()));
    }
    QVERIFY(!QFileInfo::exists(path));
    QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden).filter(QStringLiteral(".rejected")).size(), 0);
    QVERIFY(writer.writeFile(path.toStdString()));
    QVERIFY(GgufFile::open(path.toStdString()));
}

// The command-line tool: success writes the file, bad input is one stderr line and non-zero exit.
void ConvertTest::cli()
{
    using testsupport::cliPath;
    QVERIFY2(testsupport::cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
    const auto run = [](const QStringList& arguments, QByteArray* out = nullptr, QByteArray* err = nullptr) {
        const testsupport::CliRun result = testsupport::runProgram(cliPath(), arguments);
        if (out)
            *out = result.out;
        if (err)
            *err = result.err;
        return result.finished && !result.crashed ? result.exitCode : -1;
    };
    const QString f32 = testsupport::fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
    const QString output = m_dir.filePath(QStringLiteral("cli-q6.gguf"));
    QCOMPARE(run({QStringLiteral("convert"), f32, output, QStringLiteral("--type"), QStringLiteral("Q6_K"), QStringLiteral("--quiet")}), 0);
    QCOMPARE(testsupport::readWholeFile(output), testsupport::readWholeFile(testsupport::fixturePath(QStringLiteral("tiny-llama-Q6_K.gguf"))));

    QByteArray out, err;
    for (const QStringList& bad : {QStringList{QStringLiteral("convert"), output, output, QStringLiteral("--type"), QStringLiteral("q8_0")},
                                   QStringList{QStringLiteral("convert"), f32, output, QStringLiteral("--type"), QStringLiteral("iq2_xxs")},
                                   QStringList{QStringLiteral("compare"), f32, m_dir.filePath(QStringLiteral("missing.gguf"))},
                                   QStringList{QStringLiteral("compare"), f32, QStringLiteral("--simulate"), QStringLiteral("q9_Z")}}) {
        QVERIFY2(run(bad, &out, &err) != 0, qPrintable(bad.join(QLatin1Char(' '))));
        QCOMPARE(err.count('\n'), 1);
    }

    QCOMPARE(run({QStringLiteral("compare"), f32, output, QStringLiteral("--simulate"), QStringLiteral("q6_K,q2_K"), QStringLiteral("--json"),
                  QStringLiteral("--filter"), QStringLiteral("^blk\\.0\\.")}, &out, &err), 0);
    const QJsonObject json = QJsonDocument::fromJson(out).object();
    QCOMPARE(json[QStringLiteral("columns")].toArray().size(), 3);
    const QJsonArray tensors = json[QStringLiteral("tensors")].toArray();
    QCOMPARE(tensors.size(), 9);  // blk.0: 4 attention, 3 ffn, 2 norms
    const QJsonArray results = tensors[1].toObject()[QStringLiteral("results")].toArray();  // blk.0.attn_q.weight
    QCOMPARE(results[0].toObject()[QStringLiteral("type")].toString(), QStringLiteral("q6_K"));
    QVERIFY(results[0].toObject()[QStringLiteral("rmse")].toDouble() > 0.0);
    QCOMPARE(results[0].toObject()[QStringLiteral("rmse")].toDouble(), results[1].toObject()[QStringLiteral("rmse")].toDouble());
    QVERIFY(results[2].toObject()[QStringLiteral("rmse")].toDouble() > results[1].toObject()[QStringLiteral("rmse")].toDouble());
}

QTEST_GUILESS_MAIN(ConvertTest)
#include "tst_convert.moc"
