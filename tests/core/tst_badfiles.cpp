// Every malformed fixture in fixtures/bad/ must be rejected cleanly: an error, never a crash, with
// a message that names what is wrong and a byte offset inside the defective header record.
// The table below pins that precision per file; a new bad file without an entry fails.

#include "Fixtures.h"
#include "core/gguf/Model.h"

#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QtTest>

using namespace testsupport;

namespace {

struct BadFileExpectation {
    const char* file;
    QStringList mustContain;  // all of these, case-sensitive: the key, tensor or field at fault
    // The error offset must fall in [offsetBegin, offsetEnd): the byte range of the defective
    // record (a header field, a metadata entry or a tensor info), worked out from the layout in
    // fixtures/bad/README.md. Any byte of that record is acceptable.
    std::uint64_t offsetBegin;
    std::uint64_t offsetEnd;
};

// bad-base.gguf layout: header 0-23 (version at 4, tensor count at 8, key count at 16); metadata
// entries general.architecture 24-68, general.name 69-108, llama.block_count 109-141,
// test.f32_array 142-211, tokenizer.ggml.tokens 212-301; tensor infos a.f32 302-346,
// b.q4_K 347-392, c.f16 393-429; data at 448. Files with an extra key shift the tensor infos.
const std::vector<BadFileExpectation>& expectations()
{
    static const std::vector<BadFileExpectation> table = {
        {"alignment_0.gguf", {"general.alignment"}, 302, 335},
        {"alignment_3.gguf", {"general.alignment"}, 302, 335},
        {"alignment_wrong_type_u64.gguf", {"general.alignment", "u64"}, 302, 339},
        {"array_len_huge.gguf", {"test.f32_array"}, 142, 212},
        {"array_str_len_huge.gguf", {"tokenizer.ggml.tokens"}, 212, 302},
        {"bad_magic.gguf", {"magic"}, 0, 4},
        {"dim_negative.gguf", {"a.f32", "dimension 0"}, 302, 347},
        {"dims_product_overflow.gguf", {"c.f16"}, 393, 438},
        {"dims_product_overflow_4d.gguf", {"c.f16"}, 393, 454},
        {"dims_product_overflow_nonzero.gguf", {"c.f16"}, 393, 438},
        {"duplicate_kv_key.gguf", {"general.name", "duplicate"}, 302, 340},  // the second occurrence
        {"duplicate_tensor_name.gguf", {"a.f32", "duplicate"}, 393, 430},    // the second occurrence
        {"key_empty.gguf", {"key", "empty"}, 302, 331},
        {"key_len_2e63.gguf", {"key", "length"}, 24, 32},
        {"n_dims_5.gguf", {"c.f16", "dimensions"}, 393, 462},
        {"n_kv_2e62.gguf", {"key count"}, 16, 24},
        {"n_tensors_2e62.gguf", {"tensor count"}, 8, 16},
        // The fourth tensor info would start at 430, in the padding before the data.
        {"n_tensors_one_too_many.gguf", {"tensor 3"}, 430, 454},
        {"nested_array_depth_huge.gguf", {"test.nested"}, 302, 1201152},
        {"offset_not_aligned.gguf", {"b.q4_K", "264"}, 347, 393},
        {"offset_past_eof.gguf", {"c.f16"}, 393, 430},
        // Either of the two overlapping tensors may carry the offset, but both must be named.
        {"overlapping_tensors.gguf", {"b.q4_K", "c.f16"}, 347, 430},
        {"q4_K_ne0_not_multiple_of_256.gguf", {"b.q4_K", "256"}, 347, 393},
        {"string_len_2e63.gguf", {"general.name"}, 69, 109},
        {"tensor_data_exceeds_file.gguf", {"c.f16"}, 393, 430},
        {"tensor_name_too_long.gguf", {"tensor 2", "name"}, 393, 525},
        {"truncated_in_header.gguf", {"tensor count"}, 8, 15},  // the file is 14 bytes
        {"truncated_in_metadata.gguf", {"tokenizer.ggml.tokens"}, 212, 243},
        {"truncated_in_tensor_info.gguf", {"tensor 1", "name"}, 347, 358},
        {"truncated_tensor_data.gguf", {"c.f16"}, 393, 430},
        {"unknown_array_elem_type_99.gguf", {"test.f32_array", "99"}, 142, 212},
        {"unknown_value_type_99.gguf", {"llama.block_count", "99"}, 109, 142},
        {"version_0.gguf", {"version"}, 4, 8},
        {"version_99.gguf", {"version", "99"}, 4, 8},
    };
    return table;
}

const BadFileExpectation* findExpectation(const QString& file)
{
    for (const BadFileExpectation& expectation : expectations()) {
        if (file == QLatin1String(expectation.file))
            return &expectation;
    }
    return nullptr;
}

QString missingParts(const gguf::Error& error, const QStringList& parts)
{
    QStringList missing;
    const QString message = QString::fromStdString(error.message);
    for (const QString& part : parts) {
        if (!message.contains(part))
            missing << QLatin1Char('"') + part + QLatin1Char('"');
    }
    return missing.join(QStringLiteral(", "));
}

}  // namespace

class TestBadFiles : public QObject {
    Q_OBJECT

private slots:
    void tableCoversExactlyTheBadFiles();

    void fileIsRejected_data() { addBadFileRows(); }
    void fileIsRejected();
    void modelOpenIsRejected_data() { addBadFileRows(); }
    void modelOpenIsRejected();

    void missingPathFails();
    void directoryFails();
    void emptyFileFails();

private:
    static void addBadFileRows();
};

void TestBadFiles::addBadFileRows()
{
    QTest::addColumn<QString>("file");
    for (const QString& name : fixtureNames(QStringLiteral("bad"), QStringLiteral("*.gguf")))
        QTest::newRow(qPrintable(name)) << name;
}

void TestBadFiles::tableCoversExactlyTheBadFiles()
{
    const QStringList files = fixtureNames(QStringLiteral("bad"), QStringLiteral("*.gguf"));
    QVERIFY2(files.size() >= 30, qPrintable(QStringLiteral("too few bad fixtures in ") + fixturePath(QStringLiteral("bad"))));
    for (const QString& file : files)
        QVERIFY2(findExpectation(file), qPrintable(QStringLiteral("no expectation for new bad file %1: add it to the table").arg(file)));
    for (const BadFileExpectation& expectation : expectations())
        QVERIFY2(files.contains(QLatin1String(expectation.file)), qPrintable(QStringLiteral("stale table entry %1").arg(expectation.file)));
}

void TestBadFiles::fileIsRejected()
{
    QFETCH(QString, file);
    const BadFileExpectation* expectation = findExpectation(file);
    QVERIFY2(expectation, "no expectation for this file: add it to the table");
    const QString path = fixturePath(QStringLiteral("bad/") + file);
    const auto fileSize = static_cast<std::uint64_t>(QFileInfo(path).size());

    const auto opened = gguf::GgufFile::open(path.toStdString());
    QVERIFY2(!opened, "a malformed file was accepted");
    const gguf::Error& error = opened.error();
    const QString shown = QString::fromStdString(error.toString());
    QVERIFY2(!error.message.empty(), "empty error message");
    QVERIFY2(error.message.find('\n') == std::string::npos, qPrintable(QStringLiteral("message spans lines: ") + shown));
    const QString missing = missingParts(error, expectation->mustContain);
    QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("message lacks %1: %2").arg(missing, shown)));
    QCOMPARE(QString::fromStdString(error.path), path);
    QVERIFY2(error.offset != gguf::Error::kNoOffset, qPrintable(QStringLiteral("no byte offset: ") + shown));
    QVERIFY2(error.offset >= expectation->offsetBegin && error.offset < expectation->offsetEnd && error.offset <= fileSize,
             qPrintable(QStringLiteral("offset %1 is outside the defective record [%2, %3): %4")
                            .arg(error.offset).arg(expectation->offsetBegin).arg(expectation->offsetEnd).arg(shown)));
}

void TestBadFiles::modelOpenIsRejected()
{
    QFETCH(QString, file);
    const BadFileExpectation* expectation = findExpectation(file);
    QVERIFY2(expectation, "no expectation for this file: add it to the table");
    const auto opened = gguf::Model::open(fixturePath(QStringLiteral("bad/") + file).toStdString());
    QVERIFY2(!opened, "a malformed file was accepted as a model");
    const QString missing = missingParts(opened.error(), expectation->mustContain);
    QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("message lacks %1: %2").arg(missing, QString::fromStdString(opened.error().toString()))));
}

void TestBadFiles::missingPathFails()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("does-not-exist.gguf")).toStdString();
    const auto file = gguf::GgufFile::open(path);
    QVERIFY(!file);
    QVERIFY(!file.error().message.empty());
    QCOMPARE(file.error().path, path);
    const auto model = gguf::Model::open(path);
    QVERIFY(!model);
    QVERIFY(!model.error().message.empty());
}

void TestBadFiles::directoryFails()
{
    // A folder whose name looks like a model, so only the file-type check can stop it.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = dir.filePath(QStringLiteral("folder.gguf"));
    QVERIFY(QDir().mkdir(folder));
    for (const QString& path : {fixturesDir(), folder}) {
        const auto file = gguf::GgufFile::open(path.toStdString());
        QVERIFY(!file);
        QVERIFY(!file.error().message.empty());
        const auto model = gguf::Model::open(path.toStdString());
        QVERIFY(!model);
        QVERIFY(!model.error().message.empty());
    }
}

void TestBadFiles::emptyFileFails()
{
    QTemporaryFile empty;
    QVERIFY(empty.open());
    const auto file = gguf::GgufFile::open(empty.fileName().toStdString());
    QVERIFY(!file);
    QVERIFY(!file.error().message.empty());
}

QTEST_GUILESS_MAIN(TestBadFiles)
#include "tst_badfiles.moc"
