// Exporting slices of tiny-moe-Q4_K.gguf to .npy, raw f32 and CSV through AtomicFileSink: each
// file is read back independently (the .npy header parsed by hand) and must hold exactly the
// values whose SHA-256 the manifest records. The sink must never leave temp files behind.

#include "Fixtures.h"
#include "Manifest.h"
#include "core/gguf/Model.h"
#include "app/threads/ParallelRows.h"
#include "SliceDigest.h"
#include "core/write/SliceExporter.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <charconv>
#include <sys/stat.h>

using namespace testsupport;

namespace {

constexpr int kNoExpert = -1;

gguf::Status exportToFile(const gguf::TensorSlice& slice, gguf::ExportFormat format, const QString& path,
                          gguf::ParallelRows* pool = nullptr)
{
    auto sink = gguf::AtomicFileSink::create(path.toStdString());
    if (!sink)
        return sink.error();
    if (gguf::Status s = gguf::exportSlice(slice, format, **sink, {}, pool); !s)
        return s;
    return sink.value()->commit();
}

// Every entry of the folder, hidden ones included: a leftover ".name.XXXXXX" must show up.
QStringList folderEntries(const QString& path)
{
    return QDir(path).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

}  // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void npy_data() { addSliceRows(true); }
    void npy();
    void rawF32_data() { addSliceRows(true); }
    void rawF32();
    void rawF32OnThreads_data() { addSliceRows(true); }
    void rawF32OnThreads();
    void csv_data() { addSliceRows(false); }
    void csv();

    void commitReplacesAnExistingFile();
    void uncommittedSinkLeavesNothing();
    void sinkInMissingFolderFails();
    void committedFileFollowsTheUmask();

private:
    // The whole 3-D tensor (a million values) is left out of CSV, whose text is slow to write and
    // parse in sanitizer builds; its rows are the same code path as the expert's.
    static void addSliceRows(bool withWholeExpertTensor);
    // The slice a data row names, and the SHA-256 its f32 values must have.
    gguf::TensorSlice fetchSlice(QByteArray* expectedSha256);
    void checkRawF32(gguf::ParallelRows* pool);

    std::optional<Manifest> m_manifest;
    std::shared_ptr<const gguf::Model> m_model;
};

void TestExport::initTestCase()
{
    QString error;
    m_manifest = Manifest::load(fixturePath(QStringLiteral("tiny-moe-Q4_K.gguf.json")), &error);
    QVERIFY2(m_manifest, qPrintable(error));
    auto model = gguf::Model::open(m_manifest->filePath().toStdString());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    m_model = model.value();
}

void TestExport::addSliceRows(bool withWholeExpertTensor)
{
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<int>("expert");
    QTest::addColumn<QString>("shape");  // as the .npy header must spell it
    QTest::newRow("expert 3 of a 3-D q4_K") << QStringLiteral("blk.0.ffn_up_exps.weight") << 3 << QStringLiteral("(512, 256)");
    if (withWholeExpertTensor)
        QTest::newRow("3-D q4_K") << QStringLiteral("blk.1.ffn_down_exps.weight") << kNoExpert << QStringLiteral("(8, 256, 512)");
    QTest::newRow("2-D q4_K") << QStringLiteral("token_embd.weight") << kNoExpert << QStringLiteral("(512, 256)");
    QTest::newRow("2-D f32") << QStringLiteral("blk.0.ffn_gate_inp.weight") << kNoExpert << QStringLiteral("(8, 256)");
    QTest::newRow("1-D f32") << QStringLiteral("blk.0.attn_norm.weight") << kNoExpert << QStringLiteral("(256,)");
}

gguf::TensorSlice TestExport::fetchSlice(QByteArray* expectedSha256)
{
    QFETCH(QString, tensor);
    QFETCH(int, expert);
    const gguf::TensorInfo* info = m_model->findTensor(tensor.toStdString());
    const ManifestTensor* expected = m_manifest->findTensor(tensor);
    if (!info || !expected)
        return {};
    if (expert == kNoExpert) {
        *expectedSha256 = expected->sha256;
        return gguf::wholeTensor(*info);
    }
    for (const ManifestExpert& e : expected->experts) {
        if (e.index == static_cast<std::uint64_t>(expert))
            *expectedSha256 = e.sha256;
    }
    auto slice = gguf::expertSlice(*info, static_cast<std::uint64_t>(expert));
    return slice ? slice.value() : gguf::TensorSlice{};
}

void TestExport::npy()
{
    QFETCH(QString, shape);
    QByteArray expectedSha256;
    const gguf::TensorSlice slice = fetchSlice(&expectedSha256);
    QVERIFY(slice.tensor && !expectedSha256.isEmpty());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("slice.npy"));
    const gguf::Status exported = exportToFile(slice, gguf::ExportFormat::Npy, path);
    QVERIFY2(exported, exported ? "" : exported.error().toString().c_str());
    QCOMPARE(folderEntries(dir.path()), QStringList{QStringLiteral("slice.npy")});

    // NPY format 1.0: magic, major 1, minor 0, u16 LE header length, an ASCII dict, then data.
    const QByteArray bytes = readWholeFile(path);
    QVERIFY(bytes.size() >= 10);
    QCOMPARE(bytes.left(6), QByteArray("\x93NUMPY"));
    QCOMPARE(static_cast<int>(bytes[6]), 1);
    QCOMPARE(static_cast<int>(bytes[7]), 0);
    const int headerLength = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    const qsizetype dataStart = 10 + headerLength;
    QVERIFY(dataStart <= bytes.size());
    QCOMPARE(dataStart % 64, qsizetype(0));  // aligned data, as numpy writes it
    const QString header = QString::fromLatin1(bytes.mid(10, headerLength));
    QVERIFY2(header.endsWith(QLatin1Char('\n')), qPrintable(header));
    static const QRegularExpression dict(QStringLiteral("^\\{'descr': '([^']*)', 'fortran_order': (True|False), 'shape': (\\([0-9, ]*\\)), \\} *\\n$"));
    const QRegularExpressionMatch match = dict.match(header);
    QVERIFY2(match.hasMatch(), qPrintable(header));
    QCOMPARE(match.captured(1), QStringLiteral("<f4"));
    QCOMPARE(match.captured(2), QStringLiteral("False"));
    QCOMPARE(match.captured(3), shape);

    const QByteArray data = bytes.mid(dataStart);
    QCOMPARE(static_cast<std::uint64_t>(data.size()), slice.elementCount() * 4);
    QCOMPARE(sha256Hex(data), expectedSha256);
}

void TestExport::rawF32()
{
    checkRawF32(nullptr);
}

// The CLI's path: every chunk cut into block-aligned pieces for three threads. An odd thread
// count makes pieces that start inside a row, so a piece written to the wrong place shows.
void TestExport::rawF32OnThreads()
{
    gguf::ParallelRows pool(3);
    checkRawF32(&pool);
}

void TestExport::checkRawF32(gguf::ParallelRows* pool)
{
    QByteArray expectedSha256;
    const gguf::TensorSlice slice = fetchSlice(&expectedSha256);
    QVERIFY(slice.tensor && !expectedSha256.isEmpty());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("slice.f32"));
    const gguf::Status exported = exportToFile(slice, gguf::ExportFormat::RawF32, path, pool);
    QVERIFY2(exported, exported ? "" : exported.error().toString().c_str());
    QCOMPARE(folderEntries(dir.path()), QStringList{QStringLiteral("slice.f32")});

    const QByteArray bytes = readWholeFile(path);
    QCOMPARE(static_cast<std::uint64_t>(bytes.size()), slice.elementCount() * 4);
    QCOMPARE(sha256Hex(bytes), expectedSha256);
}

void TestExport::csv()
{
    QByteArray expectedSha256;
    const gguf::TensorSlice slice = fetchSlice(&expectedSha256);
    QVERIFY(slice.tensor && !expectedSha256.isEmpty());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("slice.csv"));
    const gguf::Status exported = exportToFile(slice, gguf::ExportFormat::Csv, path);
    QVERIFY2(exported, exported ? "" : exported.error().toString().c_str());
    QCOMPARE(folderEntries(dir.path()), QStringList{QStringLiteral("slice.csv")});

    // One line per row of ne[0] values; every value must read back as the same float.
    const QByteArray text = readWholeFile(path);
    QVERIFY(text.endsWith('\n'));
    const QList<QByteArray> lines = text.left(text.size() - 1).split('\n');
    QCOMPARE(static_cast<std::uint64_t>(lines.size()), slice.rowCount);
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(slice.elementCount()));
    for (qsizetype row = 0; row < lines.size(); ++row) {
        const QList<QByteArray> fields = lines[row].split(',');
        QCOMPARE(static_cast<std::uint64_t>(fields.size()), slice.rowLength());
        for (const QByteArray& field : fields) {
            // from_chars is strtof without the locale QCoreApplication may have installed.
            float value = 0;
            const auto [end, error] = std::from_chars(field.constData(), field.constData() + field.size(), value);
            QVERIFY2(error == std::errc() && end == field.constData() + field.size(), qPrintable(QStringLiteral("row %1: '%2'").arg(row).arg(QString::fromLatin1(field))));
            values.push_back(value);
        }
    }
    const QByteArrayView asBytes(reinterpret_cast<const char*>(values.data()), static_cast<qsizetype>(values.size() * sizeof(float)));
    QCOMPARE(sha256Hex(asBytes), expectedSha256);
}

void TestExport::commitReplacesAnExistingFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("existing.f32"));
    {
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("stale content that is longer than nothing");
    }
    auto sink = gguf::AtomicFileSink::create(path.toStdString());
    QVERIFY2(sink, sink ? "" : sink.error().toString().c_str());
    QVERIFY(sink.value()->write("abcd", 4));
    // Until the commit the target keeps its old content; the new bytes sit in an unnamed file
    // (O_TMPFILE), or where the filesystem has none, a hidden one.
    QCOMPARE(readWholeFile(path), QByteArray("stale content that is longer than nothing"));
    QVERIFY(folderEntries(dir.path()).size() <= 2);
    QVERIFY(sink.value()->commit());
    QCOMPARE(readWholeFile(path), QByteArray("abcd"));
    sink.value().reset();
    QCOMPARE(folderEntries(dir.path()), QStringList{QStringLiteral("existing.f32")});
}

void TestExport::uncommittedSinkLeavesNothing()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("abandoned.npy"));
    {
        const gguf::TensorInfo* tensor = m_model->findTensor("blk.0.ffn_up_exps.weight");
        QVERIFY(tensor);
        auto sink = gguf::AtomicFileSink::create(path.toStdString());
        QVERIFY2(sink, sink ? "" : sink.error().toString().c_str());
        // A cancelled export: the progress callback says stop after the first chunk.
        const gguf::Status exported = gguf::exportSlice(gguf::wholeTensor(*tensor), gguf::ExportFormat::Npy, **sink,
                                                        [](std::uint64_t, std::uint64_t) { return false; });
        QVERIFY(!exported);
        QVERIFY(folderEntries(dir.path()).size() <= 1);  // at most a hidden temp file, and no target yet
        QVERIFY(!QFileInfo::exists(path));
    }
    QCOMPARE(folderEntries(dir.path()), QStringList());
}

void TestExport::sinkInMissingFolderFails()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto sink = gguf::AtomicFileSink::create(dir.filePath(QStringLiteral("no/such/folder/out.npy")).toStdString());
    QVERIFY(!sink);
    QVERIFY(!sink.error().message.empty());
}

QTEST_GUILESS_MAIN(TestExport)

// mkstemp creates the temp file 0600; the committed export must get the mode any new file of
// the user gets (0666 less the umask), not a fixed one. The test is single-threaded, so it may
// change the umask.
void TestExport::committedFileFollowsTheUmask()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const gguf::TensorSlice slice = gguf::wholeTensor(*m_model->findTensor("blk.0.attn_norm.weight"));
    for (const mode_t mask : {mode_t(022), mode_t(077), mode_t(002)}) {
        const mode_t previous = ::umask(mask);
        const QString path = dir.filePath(QStringLiteral("norm-%1.npy").arg(mask, 3, 8, QLatin1Char('0')));
        const gguf::Status exported = exportToFile(slice, gguf::ExportFormat::Npy, path);
        ::umask(previous);
        QVERIFY2(exported, exported ? "" : exported.error().toString().c_str());
        struct stat info {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0666 & ~mask);
    }
}

#include "tst_export.moc"
