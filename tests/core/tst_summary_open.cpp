// HeaderRetention::Summary (the CLI's `info`): the header is validated exactly as a full open
// validates it, with the same verdict and the same message for every file, but arrays of 64 KiB
// or more are not kept: their values say elided() and their bytes are never copied into memory.
// Also the tensor index by name (one sorted vector) and its duplicate check.

#include "Fixtures.h"
#include "core/gguf/Model.h"
#include "core/gguf/SplitName.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>
#include <regex>
#include <string>

using namespace testsupport;

namespace {

// Little-endian GGUF v3 bytes, written by hand so that every field can be made wrong.
struct Bytes {
    std::string data;
    template <class T>
    Bytes& raw(T value)
    {
        data.append(reinterpret_cast<const char*>(&value), sizeof value);
        return *this;
    }
    Bytes& str(const std::string& text)
    {
        raw<std::uint64_t>(text.size());
        data += text;
        return *this;
    }
};

struct Layout {
    std::uint64_t tokens = 10000;       // strings of tokenText(i): about 150 KiB, so unkept
    std::uint64_t scores = 20000;       // f32: 80 KiB, unkept
    std::uint64_t badTokenLength = 0;   // nonzero: token 7777's length field says this
    bool cutInsideTokens = false;       // the file ends inside the token array
    std::vector<std::string> tensorNames{"a.weight", "b.weight", "c.weight"};
    int badDimsTensor = -1;             // this tensor declares 5 dimensions
};

std::string tokenText(std::uint64_t i)
{
    return "tok" + std::to_string(i * 7919 % 100003);
}

std::string buildFile(const Layout& layout)
{
    Bytes b;
    b.data = "GGUF";
    b.raw<std::uint32_t>(3).raw<std::uint64_t>(layout.tensorNames.size()).raw<std::uint64_t>(6);
    b.str("general.architecture").raw<std::uint32_t>(8).str("llama");
    b.str("tokenizer.ggml.tokens").raw<std::uint32_t>(9).raw<std::uint32_t>(8).raw<std::uint64_t>(layout.tokens);
    for (std::uint64_t i = 0; i < layout.tokens; ++i) {
        if (layout.cutInsideTokens && i == layout.tokens * 9 / 10) {
            b.data.resize(b.data.size() + 3, 'x');  // part of a length field, then the end
            return b.data;
        }
        if (layout.badTokenLength && i == 7777) {
            b.raw<std::uint64_t>(layout.badTokenLength);
            continue;
        }
        b.str(tokenText(i));
    }
    b.str("tokenizer.ggml.scores").raw<std::uint32_t>(9).raw<std::uint32_t>(6).raw<std::uint64_t>(layout.scores);
    for (std::uint64_t i = 0; i < layout.scores; ++i)
        b.raw<float>(-static_cast<float>(i));
    b.str("small.list").raw<std::uint32_t>(9).raw<std::uint32_t>(4).raw<std::uint64_t>(5);
    for (std::uint32_t i = 0; i < 5; ++i)
        b.raw<std::uint32_t>(i * 11);
    b.str("llama.block_count").raw<std::uint32_t>(4).raw<std::uint32_t>(32);
    b.str("general.name").raw<std::uint32_t>(8).str("after the arrays");
    std::uint64_t offset = 0;
    for (std::size_t t = 0; t < layout.tensorNames.size(); ++t) {
        b.str(layout.tensorNames[t]);
        const bool badDims = static_cast<int>(t) == layout.badDimsTensor;
        b.raw<std::uint32_t>(badDims ? 5 : 1).raw<std::int64_t>(32);
        b.raw<std::uint32_t>(0).raw<std::uint64_t>(offset);  // f32
        offset += 128;
    }
    b.data.resize((b.data.size() + 31) / 32 * 32, '\0');
    b.data.resize(b.data.size() + offset, '\0');
    return b.data;
}

bool writeFile(const QString& path, const std::string& bytes)
{
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bool(out);
}

std::string outcome(const QString& path, gguf::HeaderRetention retention)
{
    const auto file = gguf::GgufFile::open(path.toStdString(), retention);
    return file ? std::string("ok") : file.error().toString();
}

// Anonymous (private) kB inside the mapping [begin, end), from /proc/self/smaps.
std::uint64_t privateKiBWithin(const std::uint8_t* begin, const std::uint8_t* end)
{
    QFile smaps(QStringLiteral("/proc/self/smaps"));
    if (!smaps.open(QIODevice::ReadOnly | QIODevice::Text))
        return ~std::uint64_t{0};
    const auto lo = reinterpret_cast<quintptr>(begin);
    const auto hi = reinterpret_cast<quintptr>(end);
    bool inside = false;
    std::uint64_t total = 0;
    for (const QByteArray& line : smaps.readAll().split('\n')) {
        if (line.isEmpty())
            continue;
        const int dash = line.indexOf('-');
        const int space = line.indexOf(' ');
        if (dash > 0 && space > dash && !line.startsWith("Anonymous") && line.at(0) != ' ') {
            bool okA = false, okB = false;
            const quintptr a = line.left(dash).toULongLong(&okA, 16);
            const quintptr b = line.mid(dash + 1, space - dash - 1).toULongLong(&okB, 16);
            if (okA && okB) {
                inside = a < hi && b > lo;
                continue;
            }
        }
        if (inside && line.startsWith("Anonymous:"))
            total += line.mid(10).trimmed().split(' ').front().toULongLong();
    }
    return total;
}

}  // namespace

class TestSummaryOpen : public QObject {
    Q_OBJECT

private slots:
    void keepsScalarsAndCountsAndElidesBigArrays();
    void sameVerdictAsFullOpenOnEveryFixture();
    void sameMessagesForFaultsInsideUnkeptArrays_data();
    void sameMessagesForFaultsInsideUnkeptArrays();
    void unkeptArraysAreNeverCopied();
    void modelOpensShardsAsSummaries();
    void tensorIndexFindsEveryNameAndNoOther();
    void duplicateBeforeALaterFaultIsReportedFirst();
    void splitNamesAsThePatternReadsThem();

private:
    QTemporaryDir m_dir;
};

void TestSummaryOpen::keepsScalarsAndCountsAndElidesBigArrays()
{
    const QString path = m_dir.filePath(QStringLiteral("arrays.gguf"));
    QVERIFY(writeFile(path, buildFile({})));
    const auto full = gguf::GgufFile::open(path.toStdString());
    const auto summary = gguf::GgufFile::open(path.toStdString(), gguf::HeaderRetention::Summary);
    QVERIFY2(full, full ? "" : full.error().toString().c_str());
    QVERIFY2(summary, summary ? "" : summary.error().toString().c_str());
    const gguf::GgufFile& f = *full.value();
    const gguf::GgufFile& s = *summary.value();
    QCOMPARE(s.metadata().size(), f.metadata().size());
    for (std::size_t i = 0; i < f.metadata().size(); ++i) {
        QVERIFY(s.metadata()[i].key == f.metadata()[i].key);
        QCOMPARE(s.metadata()[i].value.typeName(), f.metadata()[i].value.typeName());
        QCOMPARE(s.metadata()[i].value.encodedSize(), f.metadata()[i].value.encodedSize());
        QCOMPARE(s.metadata()[i].value.storedLength(), f.metadata()[i].value.storedLength());
    }
    const gguf::MetadataValue& tokens = s.findMetadata("tokenizer.ggml.tokens")->value;
    QVERIFY(tokens.elided());
    QCOMPARE(tokens.arrayLength(), std::uint64_t(0));
    QCOMPARE(tokens.storedLength(), std::uint64_t(10000));
    QVERIFY(!f.findMetadata("tokenizer.ggml.tokens")->value.elided());
    QCOMPARE(f.findMetadata("tokenizer.ggml.tokens")->value.arrayLength(), std::uint64_t(10000));
    QVERIFY(f.findMetadata("tokenizer.ggml.tokens")->value.element(9999).toStringView() == tokenText(9999));
    QVERIFY(s.findMetadata("tokenizer.ggml.scores")->value.elided());
    QCOMPARE(s.findMetadata("tokenizer.ggml.scores")->value.storedLength(), std::uint64_t(20000));
    // A small array is kept, and so is everything after the unkept ones.
    const gguf::MetadataValue& small = s.findMetadata("small.list")->value;
    QVERIFY(!small.elided());
    QCOMPARE(small.arrayLength(), std::uint64_t(5));
    QVERIFY(small.element(4).toUInt() == std::optional<std::uint64_t>(44));
    QVERIFY(s.findMetadata("llama.block_count")->value.toUInt() == std::optional<std::uint64_t>(32));
    QVERIFY(s.findMetadata("general.name")->value.toStringView() == "after the arrays");
    QCOMPARE(s.dataOffset(), f.dataOffset());
    QCOMPARE(s.tensors().size(), f.tensors().size());
    for (std::size_t t = 0; t < f.tensors().size(); ++t) {
        QVERIFY(s.tensors()[t].name == f.tensors()[t].name);
        QCOMPARE(s.tensors()[t].fileOffset, f.tensors()[t].fileOffset);
        QCOMPARE(s.tensors()[t].nbytes, f.tensors()[t].nbytes);
    }
    QVERIFY(s.mapping().checkUnchanged());
}

void TestSummaryOpen::sameVerdictAsFullOpenOnEveryFixture()
{
    QStringList files;
    for (const QString& folder : {fixturesDir(), fixturesDir() + QStringLiteral("/bad")})
        for (const QString& name : QDir(folder).entryList({QStringLiteral("*.gguf")}, QDir::Files))
            files << folder + QLatin1Char('/') + name;
    QVERIFY(files.size() > 20);
    for (const QString& path : files) {
        const std::string full = outcome(path, gguf::HeaderRetention::Full);
        const std::string summary = outcome(path, gguf::HeaderRetention::Summary);
        QVERIFY2(full == summary, qPrintable(path + QStringLiteral(": full: ") + QString::fromStdString(full)
                                             + QStringLiteral("; summary: ") + QString::fromStdString(summary)));
    }
}

void TestSummaryOpen::sameMessagesForFaultsInsideUnkeptArrays_data()
{
    QTest::addColumn<int>("fault");
    QTest::addColumn<QString>("expected");
    QTest::newRow("string longer than the file") << 0 << QStringLiteral("the value of key 'tokenizer.ggml.tokens'[7777] is a string of");
    QTest::newRow("file ends inside a length") << 1 << QStringLiteral("file ends inside the value of key 'tokenizer.ggml.tokens'[9000]");
}

void TestSummaryOpen::sameMessagesForFaultsInsideUnkeptArrays()
{
    QFETCH(int, fault);
    QFETCH(QString, expected);
    Layout layout;
    if (fault == 0)
        layout.badTokenLength = std::uint64_t{1} << 40;
    else
        layout.cutInsideTokens = true;
    const QString path = m_dir.filePath(QStringLiteral("fault%1.gguf").arg(fault));
    QVERIFY(writeFile(path, buildFile(layout)));
    const std::string full = outcome(path, gguf::HeaderRetention::Full);
    const std::string summary = outcome(path, gguf::HeaderRetention::Summary);
    QVERIFY2(QString::fromStdString(full).contains(expected), full.c_str());
    QVERIFY2(summary == full, summary.c_str());
}

void TestSummaryOpen::unkeptArraysAreNeverCopied()
{
    Layout layout;
    layout.tokens = 300000;  // about 4.5 MB of strings
    const QString path = m_dir.filePath(QStringLiteral("big.gguf"));
    QVERIFY(writeFile(path, buildFile(layout)));
    std::uint64_t fullKiB = 0;
    {
        const auto full = gguf::GgufFile::open(path.toStdString());
        QVERIFY(full);
        const std::uint8_t* data = full.value()->mapping().data();
        fullKiB = privateKiBWithin(data, data + full.value()->fileSize());
    }
    const auto summary = gguf::GgufFile::open(path.toStdString(), gguf::HeaderRetention::Summary);
    QVERIFY(summary);
    const std::uint8_t* data = summary.value()->mapping().data();
    const std::uint64_t summaryKiB = privateKiBWithin(data, data + summary.value()->fileSize());
    qInfo("private header copy: %llu KiB in full, %llu KiB as a summary", static_cast<unsigned long long>(fullKiB),
          static_cast<unsigned long long>(summaryKiB));
    QVERIFY(fullKiB >= 4000);   // the whole header, as before
    QVERIFY(summaryKiB < 512);  // the keys and tensor infos only
    QVERIFY(summary.value()->findMetadata("general.name")->value.toStringView() == "after the arrays");
}

void TestSummaryOpen::modelOpensShardsAsSummaries()
{
    const QString path = m_dir.filePath(QStringLiteral("model.gguf"));
    QVERIFY(writeFile(path, buildFile({})));
    const auto model = gguf::Model::open(path.toStdString(), gguf::HeaderRetention::Summary);
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    QVERIFY(model.value()->findMetadata("tokenizer.ggml.tokens")->value.elided());
    QVERIFY(model.value()->metadataUInt("llama.block_count") == std::optional<std::uint64_t>(32));
    // One file: the model shows the file's own index, not a copy.
    QCOMPARE(&model.value()->tensors(), &model.value()->primary().tensors());
    QCOMPARE(model.value()->findTensor("b.weight"), &model.value()->primary().tensors()[1]);
    QCOMPARE(model.value()->summary().parameterCount, std::uint64_t(96));
}

void TestSummaryOpen::tensorIndexFindsEveryNameAndNoOther()
{
    Layout layout;
    layout.tokens = 10;
    layout.scores = 10;
    layout.tensorNames.clear();
    for (int i = 2999; i >= 0; --i)  // not in name order
        layout.tensorNames.push_back("blk." + std::to_string(i / 10) + ".t" + std::to_string(i % 10));
    const QString path = m_dir.filePath(QStringLiteral("many.gguf"));
    QVERIFY(writeFile(path, buildFile(layout)));
    const auto file = gguf::GgufFile::open(path.toStdString());
    QVERIFY2(file, file ? "" : file.error().toString().c_str());
    for (std::size_t t = 0; t < layout.tensorNames.size(); ++t)
        QCOMPARE(file.value()->findTensor(layout.tensorNames[t]), &file.value()->tensors()[t]);
    for (const char* absent : {"", "blk.0", "blk.0.t", "blk.299.t10", "blk.300.t0", "zzz", "blk.0.t0 "})
        QVERIFY2(!file.value()->findTensor(absent), absent);
}

void TestSummaryOpen::duplicateBeforeALaterFaultIsReportedFirst()
{
    // Tensor 2 repeats tensor 0's name as ggml reads it (up to the NUL); tensor 3 is malformed
    // too. A reader going through the file meets the duplicate first, and so does the message.
    Layout layout;
    layout.tokens = 10;
    layout.scores = 10;
    layout.tensorNames = {"a.weight", "b.weight", std::string("a.weight\0x", 10), "d.weight"};
    layout.badDimsTensor = 3;
    const QString path = m_dir.filePath(QStringLiteral("duplicate.gguf"));
    QVERIFY(writeFile(path, buildFile(layout)));
    const std::string message = outcome(path, gguf::HeaderRetention::Full);
    QVERIFY2(QString::fromStdString(message).contains(QStringLiteral("duplicate tensor name")), message.c_str());
    QVERIFY2(QString::fromStdString(message).contains(QStringLiteral("(tensors 0 and 2)")), message.c_str());
    // Without the duplicate the later fault is what is reported.
    layout.tensorNames[2] = "c.weight";
    QVERIFY(writeFile(path, buildFile(layout)));
    const std::string later = outcome(path, gguf::HeaderRetention::Full);
    QVERIFY2(QString::fromStdString(later).contains(QStringLiteral("'d.weight' has 5 dimensions")), later.c_str());
}

// SplitName::parse matches by hand what it matched with std::regex: same verdict, same parts.
void TestSummaryOpen::splitNamesAsThePatternReadsThem()
{
    const std::regex pattern(R"(^(.*)-([0-9]{5})-of-([0-9]{5})\.gguf$)");
    const std::vector<std::string> names = {
        "m-00001-of-00003.gguf", "/a/b/model-00003-of-00003.gguf", "-00001-of-00001.gguf", "m-00004-of-00003.gguf",
        "m-00000-of-00003.gguf", "m-00001-of-00000.gguf", "m-0001-of-00003.gguf", "m-00001-of-000003.gguf",
        "m-00001-of-00003.GGUF", "m-00001-of-00003.gguf ", "m-00001_of-00003.gguf", "m-0000a-of-00003.gguf",
        "m-00001-of-0000\xd9.gguf", "line\nbreak-00001-of-00002.gguf", "cr\r-00001-of-00002.gguf", std::string("nul\0-00001-of-00002.gguf", 24),
        "00001-of-00002.gguf", "", "m-00001-of-00003.gguf.gguf", "a-00001-of-00002.gguf-00001-of-00002.gguf", "m-99999-of-99999.gguf"};
    for (const std::string& name : names) {
        std::smatch match;
        const bool matches = std::regex_match(name, match, pattern);
        std::optional<gguf::SplitName> expected;
        if (matches) {
            gguf::SplitName parts{match[1].str(), std::stoi(match[2].str()), std::stoi(match[3].str())};
            if (parts.index >= 1 && parts.count >= 1 && parts.index <= parts.count)
                expected = parts;
        }
        const auto parsed = gguf::SplitName::parse(name);
        QVERIFY2(parsed.has_value() == expected.has_value(), name.c_str());
        if (parsed) {
            QVERIFY2(parsed->prefix == expected->prefix, name.c_str());
            QCOMPARE(parsed->index, expected->index);
            QCOMPARE(parsed->count, expected->count);
        }
    }
}

QTEST_GUILESS_MAIN(TestSummaryOpen)
#include "tst_summary_open.moc"
