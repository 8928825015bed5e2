// What `download` does to the folder it writes into, which others may write to too: NAME.part
// and NAME.part.source planted as symlinks or hard links are never written through, NAME never
// ends up a link to someone else's file, a failed write says how much is really kept, and a
// folder that does not exist is called that.

#include "FileBytes.h"
#include "CliRunner.h"
#include "Fixtures.h"
#include "LocalWebServer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace testsupport;

namespace {
const QString kName = QStringLiteral("tiny-llama-Q4_K.gguf");

bool isSymlink(const QString& path)
{
    struct stat info {};
    return ::lstat(QFile::encodeName(path).constData(), &info) == 0 && S_ISLNK(info.st_mode);
}
}  // namespace

class TestDownloadFiles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void plantedLinkIsNotWrittenThrough_data();
    void plantedLinkIsNotWrittenThrough();
    void failedWriteSaysWhatIsKept();
    void missingFolderIsCalledThat();

private:
    QString url() const { return QString::fromStdString(m_server.url("/" + kName.toStdString())); }

    QTemporaryDir m_root;
    QTemporaryDir m_work;
    LocalWebServer m_server;
};

void TestDownloadFiles::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(cliPath()));
    QVERIFY(m_root.isValid() && m_work.isValid());
    QVERIFY(QFile::link(fixturePath(kName), m_root.filePath(kName)));
    std::string error;
    if (!m_server.start(m_root.path().toStdString(), m_work.path().toStdString(), error))
        QSKIP(qPrintable(QStringLiteral("no web server: ") + QString::fromStdString(error)));
}

void TestDownloadFiles::plantedLinkIsNotWrittenThrough_data()
{
    QTest::addColumn<QString>("planted");  // the name in the download folder
    QTest::addColumn<bool>("hardLink");
    QTest::newRow("NAME.part, symlink") << kName + QStringLiteral(".part") << false;
    QTest::newRow("NAME.part, hard link") << kName + QStringLiteral(".part") << true;
    QTest::newRow("NAME.part.source, symlink") << kName + QStringLiteral(".part.source") << false;
    QTest::newRow("NAME.part.source, hard link") << kName + QStringLiteral(".part.source") << true;
}

void TestDownloadFiles::plantedLinkIsNotWrittenThrough()
{
    QFETCH(QString, planted);
    QFETCH(bool, hardLink);
    QTemporaryDir shared;  // a folder others can write to
    QTemporaryDir elsewhere;
    QVERIFY(shared.isValid() && elsewhere.isValid());
    const QString victim = elsewhere.filePath(QStringLiteral("victim"));
    QVERIFY(writeFile(victim, "a file of the user's that must stay as it is"));
    const QString trap = shared.filePath(planted);
    if (hardLink)
        QCOMPARE(::link(QFile::encodeName(victim).constData(), QFile::encodeName(trap).constData()), 0);
    else
        QVERIFY(QFile::link(victim, trap));
    const CliRun run = runCli({QStringLiteral("download"), url(), QStringLiteral("-o"), shared.path()});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains(QFile::encodeName(trap)) && run.err.contains("refusing"), qPrintable(run.describe()));
    QCOMPARE(contentOf(victim), QByteArray("a file of the user's that must stay as it is"));
    const QString target = shared.filePath(kName);
    QVERIFY2(!isSymlink(target), "NAME was left a link to another file");
    QVERIFY(!QFileInfo::exists(target));
}

void TestDownloadFiles::failedWriteSaysWhatIsKept()
{
    // A file size limit fails the write (EFBIG) as a full disk does (ENOSPC): the message says
    // how many bytes are kept, and the .part file holds exactly that many.
    QTemporaryDir target;
    QVERIFY(target.isValid());
    const CliRun run = runProgram(QStringLiteral("/bin/bash"),
                                  {QStringLiteral("-c"), QStringLiteral("ulimit -f 256 && trap '' XFSZ && exec \"$0\" download \"$1\" -o \"$2\""), cliPath(),
                                   url(), target.path()});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    const QRegularExpressionMatch kept = QRegularExpression(QStringLiteral("(\\d+) bytes are kept in (\\S+);")).match(QString::fromUtf8(run.err));
    QVERIFY2(kept.hasMatch(), qPrintable(run.describe()));
    QCOMPARE(QFileInfo(kept.captured(2)).size(), kept.captured(1).toLongLong());
}

void TestDownloadFiles::missingFolderIsCalledThat()
{
    QTemporaryDir parent;
    QVERIFY(parent.isValid());
    const QString missing = parent.filePath(QStringLiteral("no-such-folder"));
    const CliRun run = runCli({QStringLiteral("download"), url(), QStringLiteral("-o"), missing});
    QVERIFY2(run.failedWithOneLine() && run.err.contains("no such folder"), qPrintable(run.describe()));
    const QString file = parent.filePath(QStringLiteral("a-file"));
    QVERIFY(writeFile(file, "x"));
    const CliRun notFolder = runCli({QStringLiteral("download"), url(), QStringLiteral("-o"), file});
    QVERIFY2(notFolder.failedWithOneLine() && notFolder.err.contains("not a folder"), qPrintable(notFolder.describe()));
}

QTEST_GUILESS_MAIN(TestDownloadFiles)
#include "tst_download_files.moc"
