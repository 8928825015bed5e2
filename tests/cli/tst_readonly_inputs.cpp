// An input model is only ever opened read-only, and no write ever lands on it: outputs are
// written to a temporary file beside the target and renamed into place, and every writer
// (export, convert) refuses a target that is one of its inputs, by name, hard link or symlink.
// The CLI part runs gguf-explorer-cli as a process.

#include "CliRunner.h"
#include "core/write/ByteSink.h"
#include "core/gguf/Dequantize.h"
#include "Fixtures.h"
#include "core/write/GgufWriter.h"
#include "core/gguf/MetadataFormat.h"
#include "core/gguf/Model.h"
#include "core/write/SliceExporter.h"
#include "core/analysis/Statistics.h"
#include "core/blocks/TensorCheck.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace testsupport;

namespace {

const QString kFixture = QStringLiteral("tiny-llama-Q4_K.gguf");

// What must not change about an input: its bytes, size, inode and modification time.
struct Fingerprint {
    QByteArray sha256;
    qint64 size = -1;
    quint64 inode = 0;
    qint64 modifiedNs = 0;
    bool operator==(const Fingerprint&) const = default;
};

Fingerprint fingerprint(const QString& path)
{
    Fingerprint print;
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return print;
    print.size = info.st_size;
    print.inode = info.st_ino;
    print.modifiedNs = qint64(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    print.sha256 = QCryptographicHash::hash(readWholeFile(path), QCryptographicHash::Sha256).toHex();
    return print;
}

// Access modes of this process's descriptors and mappings of `path`.
QStringList descriptorModes(const QString& path)
{
    QStringList modes;
    const QString target = QFileInfo(path).canonicalFilePath();
    for (const QString& fd : QDir(QStringLiteral("/proc/self/fd")).entryList(QDir::Files | QDir::System)) {
        if (QFile::symLinkTarget(QStringLiteral("/proc/self/fd/") + fd) != target)
            continue;
        for (const QByteArray& line : readWholeFile(QStringLiteral("/proc/self/fdinfo/") + fd).split('\n'))
            if (line.startsWith("flags:"))
                modes << ((line.mid(6).trimmed().toUInt(nullptr, 8) & O_ACCMODE) == O_RDONLY ? QStringLiteral("fd read-only")
                                                                                                : QStringLiteral("fd WRITABLE"));
    }
    return modes;
}

QStringList mappingModes(const QString& path)
{
    QStringList modes;
    const QByteArray target = QFile::encodeName(QFileInfo(path).canonicalFilePath());
    for (const QByteArray& line : readWholeFile(QStringLiteral("/proc/self/maps")).split('\n'))
        if (line.endsWith(target))
            modes << (line.split(' ').value(1).contains('w') ? QStringLiteral("map WRITABLE") : QStringLiteral("map read-only"));
    return modes;
}

QStringList leftoverTemporaries(const QString& dir)
{
    return QDir(dir).entryList({QStringLiteral(".*.??????")}, QDir::Files | QDir::Hidden);
}

}  // namespace

class TestReadOnlyInputs : public QObject {
    Q_OBJECT

private slots:
    void init();

    void inputIsOpenedAndMappedReadOnly();
    void opensWithoutWritePermission();
    void readingEverythingLeavesTheInputUntouched();
    void failedWriteLeavesNoTraceAndKeepsTheOldTarget();
    void writesReplaceTheTargetInsteadOfWritingIntoIt();
    void isSameFileSeesThroughLinks();
    void cliRefusesToOverwriteAnInput_data();
    void cliRefusesToOverwriteAnInput();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_input;
};

void TestReadOnlyInputs::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_input = m_dir->filePath(kFixture);
    QVERIFY(QFile::copy(fixturePath(kFixture), m_input));
}

void TestReadOnlyInputs::inputIsOpenedAndMappedReadOnly()
{
    const auto model = gguf::Model::open(m_input.toStdString());
    QVERIFY(model);
    const QStringList descriptors = descriptorModes(m_input);
    const QStringList mappings = mappingModes(m_input);
    QVERIFY2(!descriptors.isEmpty() && !mappings.isEmpty(), "the open model holds no descriptor or mapping of the file");
    for (const QString& mode : descriptors + mappings)
        QVERIFY2(!mode.contains(QStringLiteral("WRITABLE")), qPrintable((descriptors + mappings).join(QStringLiteral(", "))));
}

void TestReadOnlyInputs::opensWithoutWritePermission()
{
    QVERIFY(QFile::setPermissions(m_input, QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    QVERIFY(QFile::setPermissions(m_dir->path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    const auto model = gguf::Model::open(m_input.toStdString());
    QFile::setPermissions(m_dir->path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    std::vector<float> row(std::size_t((*model)->tensors().front().ne[0]));
    QVERIFY(gguf::dequantizeRows((*model)->tensors().front(), 0, 1, row).ok());
}

void TestReadOnlyInputs::readingEverythingLeavesTheInputUntouched()
{
    const Fingerprint before = fingerprint(m_input);
    {
        const auto model = gguf::Model::open(m_input.toStdString());
        QVERIFY(model);
        for (const gguf::MetadataEntry& entry : (*model)->metadata())
            (void)gguf::formatValue(entry.value);
        for (const gguf::TensorInfo& tensor : (*model)->tensors()) {
            QVERIFY(gguf::computeStatistics(gguf::wholeTensor(tensor), 10).ok());
            QVERIFY(!gguf::checkTensor(tensor).error);
        }
        const gguf::TensorSlice slice = gguf::wholeTensor(*(*model)->findTensor("output.weight"));
        auto sink = gguf::AtomicFileSink::create(m_dir->filePath(QStringLiteral("out.npy")).toStdString());
        QVERIFY(sink);
        QVERIFY(gguf::exportSlice(slice, gguf::ExportFormat::Npy, **sink).ok());
        QVERIFY((*sink)->commit().ok());
        gguf::GgufWriter writer;
        QVERIFY(writer.copyMetadata((*model)->primary()).ok());
        QVERIFY(writer.writeFile(m_dir->filePath(QStringLiteral("copy.gguf")).toStdString()).ok());
        QVERIFY(QFile::exists(m_dir->filePath(QStringLiteral("copy.gguf"))));
    }
    QCOMPARE(fingerprint(m_input), before);
    QVERIFY(leftoverTemporaries(m_dir->path()).isEmpty());
}

void TestReadOnlyInputs::failedWriteLeavesNoTraceAndKeepsTheOldTarget()
{
    const QString target = m_dir->filePath(QStringLiteral("target.npy"));
    {
        auto sink = gguf::AtomicFileSink::create(target.toStdString());
        QVERIFY(sink);
        QVERIFY((*sink)->write("partial", 7).ok());
        // In an unnamed file (O_TMPFILE), or where the filesystem has none, a hidden one beside the target.
        QVERIFY(leftoverTemporaries(m_dir->path()).size() <= 1);
        QVERIFY(!QFile::exists(target));
    }  // destroyed without commit: a failed or cancelled export
    QVERIFY(!QFile::exists(target));
    QVERIFY(leftoverTemporaries(m_dir->path()).isEmpty());

    QFile old(target);
    QVERIFY(old.open(QIODevice::WriteOnly) && old.write("old content") == 11);
    old.close();
    {
        auto sink = gguf::AtomicFileSink::create(target.toStdString());
        QVERIFY(sink);
        QVERIFY((*sink)->write("new", 3).ok());
    }
    QCOMPARE(readWholeFile(target), QByteArray("old content"));
}

void TestReadOnlyInputs::writesReplaceTheTargetInsteadOfWritingIntoIt()
{
    // A target with a second name: writing into the file would change both names' content;
    // renaming a new file over one name leaves the other untouched.
    const QString target = m_dir->filePath(QStringLiteral("target.gguf"));
    const QString otherName = m_dir->filePath(QStringLiteral("other-name.gguf"));
    QVERIFY(QFile::copy(m_input, target));
    QVERIFY(::link(QFile::encodeName(target).constData(), QFile::encodeName(otherName).constData()) == 0);
    const Fingerprint before = fingerprint(otherName);

    gguf::GgufWriter writer;
    writer.setValue("general.name", gguf::EncodedValue::string("replacement"));
    QVERIFY(writer.writeFile(target.toStdString()).ok());
    QCOMPARE(fingerprint(otherName), before);
    QVERIFY(fingerprint(target).inode != before.inode);
    const auto written = gguf::GgufFile::open(target.toStdString());
    QVERIFY(written);
    QCOMPARE((*written)->metadata().size(), std::size_t(1));
}

void TestReadOnlyInputs::isSameFileSeesThroughLinks()
{
    const QString hardLink = m_dir->filePath(QStringLiteral("hard.gguf"));
    const QString symLink = m_dir->filePath(QStringLiteral("sym.gguf"));
    QVERIFY(::link(QFile::encodeName(m_input).constData(), QFile::encodeName(hardLink).constData()) == 0);
    QVERIFY(QFile::link(m_input, symLink));
    QVERIFY(gguf::isSameFile(m_input.toStdString(), m_input.toStdString()));
    QVERIFY(gguf::isSameFile(hardLink.toStdString(), m_input.toStdString()));
    QVERIFY(gguf::isSameFile(symLink.toStdString(), m_input.toStdString()));
    QVERIFY(gguf::isSameFile((m_dir->path() + QStringLiteral("/./") + kFixture).toStdString(), m_input.toStdString()));
    QVERIFY(!gguf::isSameFile(fixturePath(kFixture).toStdString(), m_input.toStdString()));  // same bytes, another file
}

void TestReadOnlyInputs::cliRefusesToOverwriteAnInput_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("outputKind");
    for (const QString& command : {QStringLiteral("export"), QStringLiteral("convert")})
        for (const QString& kind : {QStringLiteral("same path"), QStringLiteral("hard link"), QStringLiteral("symlink")})
            QTest::newRow(qPrintable(command + QLatin1Char(' ') + kind)) << command << kind;
}

void TestReadOnlyInputs::cliRefusesToOverwriteAnInput()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
    QFETCH(QString, command);
    QFETCH(QString, outputKind);
    QString output = m_input;
    if (outputKind == QLatin1String("hard link")) {
        output = m_dir->filePath(QStringLiteral("hard.gguf"));
        QVERIFY(::link(QFile::encodeName(m_input).constData(), QFile::encodeName(output).constData()) == 0);
    } else if (outputKind == QLatin1String("symlink")) {
        output = m_dir->filePath(QStringLiteral("sym.gguf"));
        QVERIFY(QFile::link(m_input, output));
    }
    const Fingerprint before = fingerprint(m_input);
    const QStringList arguments = command == QLatin1String("export")
        ? QStringList{command, m_input, QStringLiteral("output.weight"), QStringLiteral("-o"), output}
        : QStringList{command, m_input, output, QStringLiteral("--type"), QStringLiteral("f16"), QStringLiteral("--quiet")};
    const CliRun run = runCli(arguments);
    QVERIFY(run.finished && !run.crashed);
    QVERIFY2(run.exitCode != 0, "the CLI wrote over its input");
    QVERIFY2(run.err.contains("refusing"), run.err.constData());
    QCOMPARE(fingerprint(m_input), before);
    QVERIFY(leftoverTemporaries(m_dir->path()).isEmpty());
}

QTEST_GUILESS_MAIN(TestReadOnlyInputs)
#include "tst_readonly_inputs.moc"
