// What a short command loads before it reads a byte: the CLI's NEEDED libraries are the C
// runtime alone (libc, libm, the loader; libstdc++ is linked in). libcurl and OpenBLAS load on
// first use, so a command that reads a local file does not map ~35 shared objects nor start
// OpenBLAS's threads; a new direct call into either library would make it NEEDED again and
// fail here.

#include "CliRunner.h"

#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>

using namespace testsupport;

class TestCliLibraries : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void needsTheCRuntimeAlone();
};

void TestCliLibraries::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
}

void TestCliLibraries::needsTheCRuntimeAlone()
{
#ifdef GGUFX_SANITIZED
    QSKIP("a sanitizer runtime brings its own libraries (libstdc++, libasan, libubsan)");
#endif
    // readelf comes with binutils, which the compiler needs.
    const QString readelf = QStandardPaths::findExecutable(QStringLiteral("readelf"));
    QVERIFY2(!readelf.isEmpty(), "readelf not found");
    const CliRun run = runProgram(readelf, {QStringLiteral("-dW"), cliPath()});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    const QRegularExpression needed(QStringLiteral(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])"));
    QStringList libraries;
    for (auto match = needed.globalMatch(QString::fromLatin1(run.out)); match.hasNext();)
        libraries << match.next().captured(1);
    QVERIFY2(libraries.contains(QStringLiteral("libc.so.6")), qPrintable(libraries.join(u' ')));
    QStringList unexpected;
    for (const QString& library : libraries)
        if (library != QStringLiteral("libc.so.6") && library != QStringLiteral("libm.so.6") && !library.startsWith(QStringLiteral("ld-linux")))
            unexpected << library;
    QVERIFY2(unexpected.isEmpty(), qPrintable(QStringLiteral("loaded at every start: ") + unexpected.join(u' ')
                                              + QStringLiteral(" (load it on first use, as libcurl and OpenBLAS are)")));
}

QTEST_GUILESS_MAIN(TestCliLibraries)
#include "tst_cli_libraries.moc"
