// Metadata edits and Save As (core/edit): every key of the fixtures is changed in turn, saved,
// and the copy reopened: the edited key holds the new value, every other key matches the
// fixture's manifest (an independent record of the values), and every tensor's bytes hash as
// the input's. Files ggml wrote come back byte for byte when saved without edits (their
// manifest's sha256_file). Values typed as text are range-checked for their GGUF type.

#include "Fixtures.h"
#include "Manifest.h"
#include "MetadataComparison.h"
#include "OpenFixture.h"
#include "core/base/Sha256.h"
#include "core/edit/MetadataEdits.h"
#include "core/edit/ModelSaver.h"
#include "core/edit/ValueText.h"
#include "core/gguf/SplitName.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace testsupport;

namespace {

// A value of the same type as `value`, different from it; arrays get a short sample of their type.
std::string sampleListText(std::string_view typeName)
{
    if (typeName.starts_with("arr[") && typeName.ends_with("]")) {
        const std::string_view inner = typeName.substr(4, typeName.size() - 5);
        if (inner.starts_with("arr"))
            return "[" + sampleListText(inner) + ", []]";
        if (inner == "str")
            return "[\"edited\", \"tab\\tand \\udcff byte\", \"\"]";
        if (inner == "bool")
            return "[false, false, true, true]";
        if (inner == "f32" || inner == "f64")
            return "[1.5, -0.25, nan, inf]";
        if (inner.starts_with("i"))
            return "[-7, 0, 9]";
        return "[7, 0, 9]";
    }
    return "[]";
}

gguf::EncodedValue changedValue(const gguf::MetadataValue& value)
{
    using gguf::ValueType;
    const std::string type = value.typeName();
    std::string text;
    switch (value.type()) {
    case ValueType::U8: text = std::to_string((*value.toUInt() + 1) % 256); break;
    case ValueType::U16: text = std::to_string((*value.toUInt() + 1) % 65536); break;
    case ValueType::U32: text = std::to_string((*value.toUInt() + 1) % 4294967296ull); break;
    case ValueType::U64: text = std::to_string(*value.toUInt() ^ 1u); break;
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64: text = std::to_string(*value.toInt() ^ 1); break;
    case ValueType::F32: case ValueType::F64: text = *value.toDouble() == 2.5 ? "-3.75" : "2.5"; break;
    case ValueType::Bool: text = *value.toBool() ? "false" : "true"; break;
    case ValueType::String: text = std::string(value.toStringView()) + "\nedited \xff"; break;
    case ValueType::Array: text = sampleListText(type == "arr[arr]" ? "arr[arr[u8]]" : type); break;
    }
    auto encoded = gguf::parseValueText(text, type == "arr[arr]" ? "arr[arr[u8]]" : type);
    if (!encoded)
        qFatal("cannot make a changed value of type %s: %s", type.c_str(), encoded.error().message.c_str());
    return *encoded;
}

QByteArray rawHash(const gguf::TensorInfo& tensor)
{
    const auto digest = gguf::Sha256::of({tensor.data, static_cast<std::size_t>(tensor.nbytes)});
    return QByteArray::fromStdString(gguf::Sha256::toHex(digest));
}

QByteArray wholeFileHash(const QString& path)
{
    const QByteArray bytes = readWholeFile(path);
    return QByteArray::fromStdString(gguf::Sha256::toHex(gguf::Sha256::of(
        {reinterpret_cast<const std::uint8_t*>(bytes.constData()), static_cast<std::size_t>(bytes.size())})));
}

// A saved shard of a split set, without the save id the save appends as its last key: what
// the save wrote before shards carried one, so it can be compared with its source byte for byte.
// Empty when the last key is not the save id. Little-endian files only.
QByteArray withoutSaveId(const QString& path)
{
    const auto file = gguf::GgufFile::open(path.toStdString());
    if (!file || (*file)->bigEndian() || (*file)->metadata().empty() || (*file)->metadata().back().key != gguf::kSplitSaveIdKey)
        return {};
    const gguf::GgufFile& shard = **file;
    const gguf::MetadataEntry& id = shard.metadata().back();
    const std::uint64_t keyStart = id.value.offset() - 4 - id.key.size() - 8;  // u64 length, key, u32 type
    const std::uint64_t valueEnd = id.value.offset() + id.value.encodedSize();
    std::uint64_t infoEnd = valueEnd;
    if (!shard.tensors().empty()) {
        const gguf::TensorInfo& last = shard.tensors().back();
        infoEnd = last.infoOffset + 8 + last.name.size() + 4 + 8 * last.nDims + 4 + 8;
    }
    const QByteArray bytes = readWholeFile(path);
    QByteArray header = bytes.left(static_cast<qsizetype>(keyStart)) + bytes.mid(static_cast<qsizetype>(valueEnd), static_cast<qsizetype>(infoEnd - valueEnd));
    const std::uint64_t keyCount = shard.metadata().size() - 1;
    std::memcpy(header.data() + 16, &keyCount, 8);
    while (static_cast<std::uint64_t>(header.size()) % shard.alignment() != 0)
        header.append('\0');
    return header + bytes.mid(static_cast<qsizetype>(shard.dataOffset()));
}

QByteArray hashOf(const QByteArray& bytes)
{
    return QByteArray::fromStdString(gguf::Sha256::toHex(gguf::Sha256::of(
        {reinterpret_cast<const std::uint8_t*>(bytes.constData()), static_cast<std::size_t>(bytes.size())})));
}

std::string payloadOf(const gguf::MetadataValue& value, bool bigEndian)
{
    auto copy = gguf::EncodedValue::copyOf(value, bigEndian);
    return copy ? copy->payload : std::string("<copy failed>");
}

// Every mismatch with the manifest that is not about `editedKey` (nor, with `extraKeys`,
// about the key count).
QStringList mismatchesBesides(const gguf::GgufFile& file, const Manifest& manifest, const QString& editedKey)
{
    QStringList others;
    for (const QString& line : compareMetadata(file, manifest))
        if (!line.startsWith(editedKey + QLatin1Char(':')) && !line.startsWith(editedKey + QLatin1Char('[')))
            others << line;
    return others;
}

// The saved model against its source: same shards, byte order, magic, tensors (names, shapes,
// types, raw bytes by hash).
void verifyTensorsAndLayout(const gguf::Model& source, const gguf::Model& saved)
{
    QCOMPARE(saved.shards().size(), source.shards().size());
    for (std::size_t k = 0; k < source.shards().size(); ++k) {
        const gguf::GgufFile& a = *source.shards()[k];
        const gguf::GgufFile& b = *saved.shards()[k];
        QCOMPARE(b.bigEndian(), a.bigEndian());
        QCOMPARE(b.magic(), a.magic());
        QCOMPARE(b.version(), a.version() == 1 ? 3u : a.version());
        QCOMPARE(b.tensors().size(), a.tensors().size());
    }
    QCOMPARE(saved.tensors().size(), source.tensors().size());
    for (std::size_t i = 0; i < source.tensors().size(); ++i) {
        const gguf::TensorInfo& a = source.tensors()[i];
        const gguf::TensorInfo& b = saved.tensors()[i];
        QCOMPARE(b.name, a.name);
        QCOMPARE(b.nDims, a.nDims);
        QCOMPARE(b.ne, a.ne);
        QCOMPARE(b.typeId, a.typeId);
        QCOMPARE(b.shard, a.shard);
        QCOMPARE(b.nbytes, a.nbytes);
        QCOMPARE(rawHash(b), rawHash(a));
        QCOMPARE(b.offset % saved.shards()[b.shard]->alignment(), 0u);
    }
}

QStringList roundTripFixtures()
{
    return {"kv-all-types.gguf", "kv-nested-arrays.gguf", "be.gguf", "be-fugg.gguf", "be-twin-le.gguf", "v1.gguf", "v2.gguf",
            "align64.gguf", "no-tensors.gguf", "dims.gguf", "all-types.gguf", "q8-internal-types.gguf", "bad-base.gguf",
            "tiny-llama-Q4_K.gguf"};
}

}  // namespace

class TestMetadataEdit : public QObject {
    Q_OBJECT

private slots:
    void everyKeyRoundTrips_data();
    void everyKeyRoundTrips();
    void textOfEveryValueReadsBack_data();
    void textOfEveryValueReadsBack();
    void addAndRemoveKeys_data();
    void addAndRemoveKeys();
    void unknownAndOddTensorsAreCopied_data();
    void unknownAndOddTensorsAreCopied();
    void uneditedGgmlFilesComeBackByteForByte_data();
    void uneditedGgmlFilesComeBackByteForByte();
    void splitModelSavedAsSplitModel();
    void alignmentEditMovesTheData();
    void everyCopyMethodWritesTheSameBytes();
    void pipeOutputGetsTheSameBytes();
    void refusesToWriteOverAnInput();
    void cancelledSaveLeavesNothing();
    void inputRewrittenWhileOpenIsNotSaved();
    void splitKeysAreNotEditable();
    void rangeChecks_data();
    void rangeChecks();
    void listSyntax();

private:
    QTemporaryDir m_dir;
};

void TestMetadataEdit::everyKeyRoundTrips_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<int>("keyIndex");
    QVERIFY(!roundTripFixtures().isEmpty());
    for (const QString& name : roundTripFixtures()) {
        auto file = gguf::GgufFile::open(fixturePath(name).toStdString());
        if (!file)
            continue;  // the test row below fails on it
        const int count = static_cast<int>((*file)->metadata().size());
        // A large file: a few keys are enough (the rest of the keys go through the same code).
        const int step = (*file)->fileSize() > 100000 ? std::max(1, count / 4) : 1;
        for (int k = 0; k < count; k += step)
            QTest::addRow("%s/%d", qPrintable(name), k) << name << k;
    }
}

void TestMetadataEdit::everyKeyRoundTrips()
{
    QFETCH(QString, fixture);
    QFETCH(int, keyIndex);
    const auto source = openFixtureModel(fixture);
    QVERIFY(source);
    const auto manifest = loadFixtureManifest(fixture);
    QVERIFY(manifest);
    const gguf::MetadataEntry& entry = source->metadata()[static_cast<std::size_t>(keyIndex)];
    if (entry.key == "general.alignment")
        QSKIP("general.alignment is checked by alignmentEditMovesTheData");
    const gguf::EncodedValue newValue = changedValue(entry.value);
    QVERIFY(newValue.payload != payloadOf(entry.value, source->primary().bigEndian()));

    gguf::MetadataEdits edits;
    edits.set(entry.key, newValue);
    const QString out = m_dir.filePath(QStringLiteral("edited-%1-%2").arg(keyIndex).arg(fixture));
    const auto report = gguf::saveModelAs(*source, edits, out.toStdString());
    QVERIFY2(report, report ? "" : report.error().toString().c_str());
    QCOMPARE(report->bytesWritten, static_cast<std::uint64_t>(QFileInfo(out).size()));

    const auto saved = openModelAt(out);
    QVERIFY(saved);
    verifyTensorsAndLayout(*source, *saved);
    QCOMPARE(saved->metadata().size(), source->metadata().size());
    const gguf::MetadataEntry& edited = saved->metadata()[static_cast<std::size_t>(keyIndex)];
    QCOMPARE(edited.key, entry.key);  // an edited key keeps its place
    QCOMPARE(edited.value.type(), newValue.type);
    QCOMPARE(payloadOf(edited.value, saved->primary().bigEndian()), newValue.payload);
    const QStringList others = mismatchesBesides(saved->primary(), *manifest, QString::fromUtf8(entry.key.data(), entry.key.size()));
    QVERIFY2(others.isEmpty(), qPrintable(others.join('\n')));
}

void TestMetadataEdit::textOfEveryValueReadsBack_data()
{
    QTest::addColumn<QString>("fixture");
    for (const char* name : {"kv-all-types.gguf", "kv-nested-arrays.gguf", "be.gguf", "v1.gguf", "tiny-llama-F32.gguf"})
        QTest::newRow(name) << QString(name);
}

void TestMetadataEdit::textOfEveryValueReadsBack()
{
    QFETCH(QString, fixture);
    const auto source = openFixtureModel(fixture);
    QVERIFY(source);
    for (const gguf::MetadataEntry& entry : source->metadata()) {
        const std::string text = gguf::valueAsText(entry.value);
        const auto parsed = gguf::parseValueText(text, entry.value.typeName());
        QVERIFY2(parsed, qPrintable(QString::fromUtf8(entry.key.data(), entry.key.size()) + ": "
                                    + QString::fromStdString(parsed ? "" : parsed.error().message)));
        QCOMPARE(parsed->type, entry.value.type());
        // copyOf on both: the text must give the value's bits, NaN payloads aside
        QCOMPARE(parsed->payload, payloadOf(entry.value, source->primary().bigEndian()));
        QCOMPARE(gguf::encodedTypeName(*parsed), entry.value.typeName());
    }
}

void TestMetadataEdit::addAndRemoveKeys_data()
{
    QTest::addColumn<QString>("fixture");
    for (const char* name : {"kv-all-types.gguf", "be.gguf", "be-fugg.gguf", "v1.gguf", "kv-nested-arrays.gguf"})
        QTest::newRow(name) << QString(name);
}

void TestMetadataEdit::addAndRemoveKeys()
{
    QFETCH(QString, fixture);
    const auto source = openFixtureModel(fixture);
    QVERIFY(source);
    const std::vector<std::pair<std::string, std::string>> added = {
        {"u8", "255"}, {"i8", "-128"}, {"u16", "65535"}, {"i16", "-32768"}, {"u32", "4294967295"}, {"i32", "-2147483648"},
        {"u64", "18446744073709551615"}, {"i64", "-9223372036854775808"}, {"f32", "3.4028235e38"}, {"f64", "-1e-300"},
        {"bool", "true"}, {"str", "{% for m in messages %}\n{{ m['content'] }}\n{% endfor %}"},
        {"arr[u32]", "[1, 2, 4294967295]"}, {"arr[str]", "[\"<s>\", \"</s>\"]"}, {"arr[arr[i8]]", "[[1, -1], [], [127]]"},
        {"arr[arr[arr[str]]]", "[[[\"a\"], []], []]"}, {"arr[f64]", "[]"}};
    gguf::MetadataEdits edits;
    for (const auto& [type, text] : added) {
        auto value = gguf::parseValueText(text, type);
        QVERIFY2(value, value ? "" : value.error().message.c_str());
        edits.set("test.added." + type, *value);
    }
    const std::string removed(source->metadata().front().key);
    edits.remove(removed);
    const QString out = m_dir.filePath("added-" + fixture);
    const auto report = gguf::saveModelAs(*source, edits, out.toStdString());
    QVERIFY2(report, report ? "" : report.error().toString().c_str());
    const auto saved = openModelAt(out);
    QVERIFY(saved);
    verifyTensorsAndLayout(*source, *saved);
    QVERIFY(!saved->findMetadata(removed));
    QCOMPARE(saved->metadata().size(), source->metadata().size() - 1 + added.size());
    // Kept keys in their order, then the added ones in the order they were added.
    for (std::size_t i = 1; i < source->metadata().size(); ++i) {
        QCOMPARE(saved->metadata()[i - 1].key, source->metadata()[i].key);
        QCOMPARE(payloadOf(saved->metadata()[i - 1].value, saved->primary().bigEndian()),
                 payloadOf(source->metadata()[i].value, source->primary().bigEndian()));
    }
    for (std::size_t i = 0; i < added.size(); ++i) {
        const gguf::MetadataEntry& entry = saved->metadata()[source->metadata().size() - 1 + i];
        QCOMPARE(std::string(entry.key), "test.added." + added[i].first);
        QCOMPARE(entry.value.typeName(), added[i].first == "arr[f64]" ? std::string("arr[f64]") : added[i].first);
        QCOMPARE(gguf::valueAsText(entry.value), gguf::valueAsText(entry.value));
        QCOMPARE(payloadOf(entry.value, saved->primary().bigEndian()), edits.find(entry.key)->value->payload);
    }
    // A string as typed, byte for byte (newlines, quotes), in either byte order.
    QCOMPARE(saved->metadataString("test.added.str"), added[11].second);
}

void TestMetadataEdit::unknownAndOddTensorsAreCopied_data()
{
    QTest::addColumn<QString>("fixture");
    const QStringList names = fixtureNames("odd", "*.gguf");
    QVERIFY2(!names.isEmpty(), qPrintable(QStringLiteral("no fixtures in ") + fixturePath("odd")));
    for (const QString& name : names)
        QTest::newRow(qPrintable(name)) << QStringLiteral("odd/") + name;
}

void TestMetadataEdit::unknownAndOddTensorsAreCopied()
{
    QFETCH(QString, fixture);
    const auto source = openFixtureModel(fixture);
    QVERIFY(source);
    gguf::MetadataEdits edits;
    edits.set("general.name", gguf::EncodedValue::string("odd copy"));
    const QString out = m_dir.filePath(QFileInfo(fixture).fileName());
    const auto report = gguf::saveModelAs(*source, edits, out.toStdString());
    QVERIFY2(report, report ? "" : report.error().toString().c_str());
    const auto saved = openModelAt(out);
    QVERIFY(saved);
    verifyTensorsAndLayout(*source, *saved);
    QCOMPARE(saved->metadataString("general.name"), std::string("odd copy"));
}

void TestMetadataEdit::uneditedGgmlFilesComeBackByteForByte_data()
{
    QTest::addColumn<QString>("fixture");
    // Written by ggml's writer (or gguf-py's endian converter): the same header and offsets.
    for (const char* name : {"tiny-llama-Q4_K.gguf", "tiny-llama-F16.gguf", "tiny-moe-Q2_K.gguf", "kv-all-types.gguf", "be.gguf",
                                "be-fugg.gguf", "align64.gguf", "v2.gguf", "all-types.gguf", "no-tensors.gguf",
                                "split-00001-of-00002.gguf"})
        QTest::newRow(name) << QString(name);
}

void TestMetadataEdit::uneditedGgmlFilesComeBackByteForByte()
{
    QFETCH(QString, fixture);
    const auto source = openFixtureModel(fixture);
    QVERIFY(source);
    const QString out = m_dir.filePath(QStringLiteral("unedited-") + fixture);
    const auto report = gguf::saveModelAs(*source, {}, out.toStdString());
    QVERIFY2(report, report ? "" : report.error().toString().c_str());
    QCOMPARE(report->paths.size(), source->shards().size());
    for (std::size_t k = 0; k < report->paths.size(); ++k) {
        const QString input = QString::fromStdString(source->shards()[k]->path());
        const auto manifest = Manifest::load(input + ".json", nullptr);
        QVERIFY(manifest);
        const QString saved = QString::fromStdString(report->paths[k]);
        // The shards of a split set carry the id of the save that wrote them, and only that.
        QCOMPARE(source->shards().size() > 1 ? hashOf(withoutSaveId(saved)) : wholeFileHash(saved), manifest->fileSha256);
    }
}

void TestMetadataEdit::splitModelSavedAsSplitModel()
{
    const auto source = openFixtureModel("split-00002-of-00002.gguf");
    QVERIFY(source);
    QCOMPARE(source->shards().size(), std::size_t{2});
    gguf::MetadataEdits edits;
    edits.set("tokenizer.ggml.add_eos_token", gguf::EncodedValue::boolean(true));
    edits.set("general.name", gguf::EncodedValue::string("split, edited"));
    const QString out = m_dir.filePath("resplit.gguf");
    const auto report = gguf::saveModelAs(*source, edits, out.toStdString());
    QVERIFY2(report, report ? "" : report.error().toString().c_str());
    QCOMPARE(report->paths, (std::vector<std::string>{m_dir.filePath("resplit-00001-of-00002.gguf").toStdString(),
                                                      m_dir.filePath("resplit-00002-of-00002.gguf").toStdString()}));
    QVERIFY(!QFileInfo::exists(out));
    const auto saved = openModelAt(m_dir.filePath("resplit-00002-of-00002.gguf"));
    QVERIFY(saved);
    verifyTensorsAndLayout(*source, *saved);
    QCOMPARE(saved->metadataString("general.name"), std::string("split, edited"));
    QCOMPARE(*saved->findMetadata("tokenizer.ggml.add_eos_token")->value.toBool(), true);
    // The second shard is unchanged: only the split keys, and its tensors.
    const auto manifest = Manifest::load(fixturePath("split-00002-of-00002.gguf.json"), nullptr);
    QVERIFY(manifest);
    QCOMPARE(hashOf(withoutSaveId(QString::fromStdString(report->paths[1]))), manifest->fileSha256);
    // The tensors hash as in the one-file model they were split from.
    const auto whole = openFixtureModel("tiny-llama-Q4_K.gguf");
    QVERIFY(whole);
    for (std::size_t i = 0; i < whole->tensors().size(); ++i)
        QCOMPARE(rawHash(saved->tensors()[i]), rawHash(whole->tensors()[i]));
}

void TestMetadataEdit::alignmentEditMovesTheData()
{
    const auto source = openFixtureModel("v2.gguf");
    QVERIFY(source);
    QCOMPARE(source->primary().alignment(), 32u);
    for (const std::uint32_t alignment : {64u, 4096u, 1u}) {
        gguf::MetadataEdits edits;
        edits.set("general.alignment", gguf::EncodedValue::u32(alignment));
        const QString out = m_dir.filePath(QStringLiteral("aligned-%1.gguf").arg(alignment));
        const auto report = gguf::saveModelAs(*source, edits, out.toStdString());
        QVERIFY2(report, report ? "" : report.error().toString().c_str());
        const auto saved = openModelAt(out);
        QVERIFY(saved);
        QCOMPARE(saved->primary().alignment(), std::uint64_t{alignment});
        QCOMPARE(saved->primary().dataOffset() % alignment, 0u);
        verifyTensorsAndLayout(*source, *saved);
    }
    // Removing it falls back to 32 (align64.gguf has it as its first key).
    const auto align64 = openFixtureModel("align64.gguf");
    QVERIFY(align64);
    gguf::MetadataEdits edits;
    edits.remove("general.alignment");
    const QString out = m_dir.filePath("unaligned.gguf");
    QVERIFY(gguf::saveModelAs(*align64, edits, out.toStdString()));
    const auto saved = openModelAt(out);
    QVERIFY(saved);
    QCOMPARE(saved->primary().alignment(), 32u);
    verifyTensorsAndLayout(*align64, *saved);

    edits.set("general.alignment", gguf::EncodedValue::u32(48));
    const auto refused = gguf::saveModelAs(*align64, edits, out.toStdString());
    QVERIFY(!refused);
    QVERIFY(refused.error().message.find("power of two") != std::string::npos);
    edits.set("general.alignment", gguf::EncodedValue::u64(64));
    QVERIFY(!gguf::saveModelAs(*align64, edits, out.toStdString()));
}

void TestMetadataEdit::everyCopyMethodWritesTheSameBytes()
{
    const auto source = openFixtureModel("tiny-moe-Q4_K.gguf");
    QVERIFY(source);
    const auto manifest = loadFixtureManifest("tiny-moe-Q4_K.gguf");
    QVERIFY(manifest);
    using Method = gguf::FileRangeCopy::Method;
    for (const Method method : {Method::CopyFileRange, Method::SendFile, Method::ReadWrite}) {
        gguf::SaveOptions options;
        options.firstCopyMethod = method;
        std::uint64_t lastDone = 0;
        std::uint64_t total = 0;
        options.progress = [&](std::uint64_t done, std::uint64_t all) { lastDone = done, total = all; };
        const QString out = m_dir.filePath(QStringLiteral("method-%1.gguf").arg(int(method)));
        const auto report = gguf::saveModelAs(*source, {}, out.toStdString(), options);
        QVERIFY2(report, report ? "" : report.error().toString().c_str());
        QCOMPARE(wholeFileHash(out), manifest->fileSha256);
        QCOMPARE(lastDone, total);
        QCOMPARE(total, source->summary().tensorBytes);
        // A regular file output never needs the read/write fallback.
        if (method != Method::ReadWrite)
            QVERIFY(report->copyMethod != Method::ReadWrite);
    }
}

void TestMetadataEdit::pipeOutputGetsTheSameBytes()
{
    const auto source = openFixtureModel("tiny-llama-Q8_0.gguf");
    QVERIFY(source);
    const auto manifest = loadFixtureManifest("tiny-llama-Q8_0.gguf");
    QVERIFY(manifest);
    const QString fifo = m_dir.filePath("out.fifo");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    QByteArray received;
    std::thread reader([&] {
        const int fd = ::open(fifo.toLocal8Bit().constData(), O_RDONLY);
        char buffer[65536];
        for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
            received.append(buffer, n);
        ::close(fd);
    });
    const auto report = gguf::saveModelAs(*source, {}, fifo.toStdString());
    reader.join();
    QVERIFY2(report, report ? "" : report.error().toString().c_str());
    QCOMPARE(QByteArray::fromStdString(gguf::Sha256::toHex(gguf::Sha256::of(
                 {reinterpret_cast<const std::uint8_t*>(received.constData()), static_cast<std::size_t>(received.size())}))),
             manifest->fileSha256);
    QVERIFY(QFileInfo(fifo).isSymLink() || !QFileInfo(fifo).isFile());  // still the FIFO
}

void TestMetadataEdit::refusesToWriteOverAnInput()
{
    const QString copy = m_dir.filePath("input.gguf");
    QVERIFY(QFile::copy(fixturePath("v2.gguf"), copy));
    const QString link = m_dir.filePath("link-to-input.gguf");
    QVERIFY(QFile::link(copy, link));
    const QString hard = m_dir.filePath("hard-link.gguf");
    QCOMPARE(::link(copy.toLocal8Bit().constData(), hard.toLocal8Bit().constData()), 0);
    const QByteArray before = wholeFileHash(copy);
    const auto source = openModelAt(copy);
    QVERIFY(source);
    gguf::MetadataEdits edits;
    edits.set("general.name", gguf::EncodedValue::string("overwritten?"));
    for (const QString& target : {copy, link, hard}) {
        const auto report = gguf::saveModelAs(*source, edits, target.toStdString());
        QVERIFY(!report);
        QVERIFY2(report.error().message.find("input") != std::string::npos, report.error().message.c_str());
    }
    QCOMPARE(wholeFileHash(copy), before);
}

void TestMetadataEdit::cancelledSaveLeavesNothing()
{
    QTemporaryDir dir;
    const auto source = openFixtureModel("tiny-llama-F32.gguf");
    QVERIFY(source);
    std::atomic<bool> cancel{true};
    gguf::SaveOptions options;
    options.cancel = &cancel;
    const auto report = gguf::saveModelAs(*source, {}, dir.filePath("cancelled.gguf").toStdString(), options);
    QVERIFY(!report);
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
}

void TestMetadataEdit::inputRewrittenWhileOpenIsNotSaved()
{
    QTemporaryDir dir;
    const QString input = dir.filePath("input.gguf");
    QVERIFY(QFile::copy(fixturePath("tiny-llama-Q8_0.gguf"), input));
    QFile::setPermissions(input, QFile::ReadOwner | QFile::WriteOwner);
    const auto source = openModelAt(input);
    QVERIFY(source);
    {
        // Rewritten in place, same size (a download resumed over it, `cp` onto it).
        QFile file(input);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.seek(file.size() - 4096));
        QVERIFY(file.write(QByteArray(4096, '\x55')) == 4096);
    }
    const auto report = gguf::saveModelAs(*source, {}, dir.filePath("out.gguf").toStdString());
    QVERIFY(!report);
    QVERIFY2(report.error().message.find("changed on disk") != std::string::npos, report.error().message.c_str());
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{"input.gguf"});
}

void TestMetadataEdit::splitKeysAreNotEditable()
{
    const auto source = openFixtureModel("split-00001-of-00002.gguf");
    QVERIFY(source);
    gguf::MetadataEdits edits;
    edits.set("split.count", gguf::EncodedValue::u16(3));
    QVERIFY(!edits.validateFor(*source));
    gguf::MetadataEdits removal;
    removal.remove("no.such.key");
    const auto status = removal.validateFor(*source);
    QVERIFY(!status);
    QVERIFY(status.error().message.find("no such key") != std::string::npos);
    QVERIFY(removal.revert("no.such.key"));
    QVERIFY(removal.empty());
}

void TestMetadataEdit::rangeChecks_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::newRow("u8 max") << "u8" << "255" << true;
    QTest::newRow("u8 over") << "u8" << "256" << false;
    QTest::newRow("u8 negative") << "u8" << "-1" << false;
    QTest::newRow("u8 hex") << "u8" << "0xff" << true;
    QTest::newRow("i8 min") << "i8" << "-128" << true;
    QTest::newRow("i8 under") << "i8" << "-129" << false;
    QTest::newRow("i8 over") << "i8" << "128" << false;
    QTest::newRow("u16 over") << "u16" << "65536" << false;
    QTest::newRow("i16 over") << "i16" << "32768" << false;
    QTest::newRow("u32 over") << "u32" << "4294967296" << false;
    QTest::newRow("i32 under") << "i32" << "-2147483649" << false;
    QTest::newRow("u64 max") << "u64" << "18446744073709551615" << true;
    QTest::newRow("u64 over") << "u64" << "18446744073709551616" << false;
    QTest::newRow("i64 min") << "i64" << "-9223372036854775808" << true;
    QTest::newRow("i64 under") << "i64" << "-9223372036854775809" << false;
    QTest::newRow("int with fraction") << "u32" << "1.5" << false;
    QTest::newRow("int with space") << "u32" << " 1" << false;
    QTest::newRow("empty int") << "i32" << "" << false;
    QTest::newRow("f32 max") << "f32" << "3.4028235e38" << true;
    QTest::newRow("f32 over") << "f32" << "3.5e38" << false;
    QTest::newRow("f64 over") << "f64" << "1e309" << false;
    QTest::newRow("f64 tiny") << "f64" << "1e-320" << true;
    QTest::newRow("f32 nan") << "f32" << "nan" << true;
    QTest::newRow("f32 -inf") << "f32" << "-inf" << true;
    QTest::newRow("f32 word") << "f32" << "one" << false;
    QTest::newRow("bool") << "bool" << "false" << true;
    QTest::newRow("bool word") << "bool" << "yes" << false;
    QTest::newRow("str anything") << "str" << "a:b\n\"c\"" << true;
    QTest::newRow("array element over") << "arr[u8]" << "[1, 256]" << false;
    QTest::newRow("array i8 ok") << "arr[i8]" << "[-128, 127]" << true;
    QTest::newRow("unknown type") << "u128" << "1" << false;
    QTest::newRow("nested element type") << "arr[arr[u16]]" << "[[1], [70000]]" << false;
}

void TestMetadataEdit::rangeChecks()
{
    QFETCH(QString, type);
    QFETCH(QString, text);
    QFETCH(bool, valid);
    const auto value = gguf::parseValueText(text.toStdString(), type.toStdString());
    QCOMPARE(value.ok(), valid);
    if (!valid)
        QVERIFY(!value.error().message.empty());
}

void TestMetadataEdit::listSyntax()
{
    const auto strings = gguf::parseValueText(R"([ "a\"b", "\u00e9\ud83d\ude00", "\udcff" ,"" ])", "arr[str]");
    QVERIFY2(strings, strings ? "" : strings.error().message.c_str());
    // u32 type, u64 count, then per string a u64 length and the bytes.
    std::string expected;
    const auto le32 = [&](std::uint32_t v) { for (int i = 0; i < 4; ++i) expected += char(v >> (8 * i)); };
    const auto le64 = [&](std::uint64_t v) { for (int i = 0; i < 8; ++i) expected += char(v >> (8 * i)); };
    le32(8), le64(4);
    for (const std::string& s : {std::string("a\"b"), std::string("\xc3\xa9\xf0\x9f\x98\x80"), std::string("\xff"), std::string()})
        le64(s.size()), expected += s;
    QCOMPARE(strings->payload, expected);
    QVERIFY(!gguf::parseValueText("[1, 2", "arr[u8]"));
    QVERIFY(!gguf::parseValueText("[1 2]", "arr[u8]"));
    QVERIFY(!gguf::parseValueText("[1], [2]", "arr[u8]"));
    QVERIFY(!gguf::parseValueText("1, 2", "arr[u8]"));
    QVERIFY(!gguf::parseValueText("[\"a]", "arr[str]"));
    QVERIFY(!gguf::parseValueText("[a]", "arr[str]"));
    QVERIFY(!gguf::parseValueText("[\"\\ud800\"]", "arr[str]"));
    QVERIFY(gguf::parseValueText("[]", "arr[arr]"));
    QVERIFY(!gguf::parseValueText("[[]]", "arr[arr]"));
    std::string deep;
    for (int i = 0; i < 100; ++i)
        deep = "arr[" + (deep.empty() ? std::string("u8") : deep) + "]";
    QVERIFY(!gguf::parseValueText(std::string(100, '[') + std::string(100, ']'), deep));
}

QTEST_GUILESS_MAIN(TestMetadataEdit)
#include "tst_metadata_edit.moc"
