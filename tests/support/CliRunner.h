#pragma once
// Runs gguf-explorer-cli for the CLI suites. GGUFX_CLI_PATH is defined per test target
// (tests/CMakeLists.txt), so this stays a header: each suite compiles it with its own path.
// The CLI is always built, so a suite without the path is a build error, never a skip.

#include "Waits.h"

#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace testsupport {

struct CliRun {
    bool finished = false;
    bool crashed = false;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;

    QString describe() const
    {
        return QStringLiteral("exit %1%2, stderr: %3").arg(exitCode).arg(crashed ? QStringLiteral(" (crashed)") : QString(), QString::fromUtf8(err));
    }
    // One non-empty line naming the problem, as the CLI promises for every failure.
    bool failedWithOneLine() const
    {
        return finished && !crashed && exitCode != 0 && err.size() > 1 && err.endsWith('\n') && err.count('\n') == 1;
    }
};

// `workingDirectory` empty: the test's own.
inline CliRun runProgram(const QString& program, const QStringList& arguments, const QString& workingDirectory = {})
{
    QProcess process;
    process.setProgram(program);
    process.setArguments(arguments);
    if (!workingDirectory.isEmpty())
        process.setWorkingDirectory(workingDirectory);
    process.start();
    CliRun run;
    if (!process.waitForStarted(kHangGuardMs))
        return run;
    process.closeWriteChannel();
    // For the process to end, bounded only by the hang guard: a sanitized build on a loaded
    // machine is slow, and slow is not a failure.
    run.finished = process.waitForFinished(kHangGuardMs);
    if (!run.finished) {
        process.kill();
        process.waitForFinished();
    }
    run.crashed = process.exitStatus() == QProcess::CrashExit;
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

#ifndef GGUFX_CLI_PATH
#error "GGUFX_CLI_PATH must be defined by the build for suites that run the CLI"
#endif

inline QString cliPath()
{
    return QStringLiteral(GGUFX_CLI_PATH);
}

// For QVERIFY2 at the start of a CLI test: the binary is there and executable.
inline bool cliIsExecutable()
{
    return QFileInfo(cliPath()).isExecutable();
}

inline CliRun runCli(const QStringList& arguments)
{
    return runProgram(cliPath(), arguments);
}

}  // namespace testsupport
