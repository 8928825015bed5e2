// What a short command costs before it reads a byte (issue 20): the CLI's executable itself.
// - It needs only the C library at start-up: libcurl, OpenBLAS and libm load on first use
//   (app/cli/LazyLibraries.cpp, LazyMath.cpp). A new call into one of them that bypasses those
//   files would load the library at every start again, and fail here.
// - The code `info` runs is laid out first (app/cli/StartupOrder.ld): a stale layout (a renamed
//   parser function) fails here until tools/link-order/update-cli-link-order.py is rerun.
// - Math through the lazily loaded libm gives the results of a direct link: `stats` against the
//   same statistics computed in this process, which links libm directly. (tst_cli_forward holds
//   the forward pass, with its expf, powf and sincosf, to llama.cpp's logits.)

#include "CliRunner.h"
#include "Fixtures.h"
#include "gguf/Model.h"
#include "analysis/Statistics.h"
#include "experts/TensorSlice.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>

using namespace testsupport;

namespace {

// What a binutils tool prints about the CLI; empty when it is missing or fails.
QByteArray toolOutput(const QString& tool, const QStringList& arguments)
{
    const QString program = QStandardPaths::findExecutable(tool);
    if (program.isEmpty())
        return {};
    const CliRun run = runProgram(program, arguments);
    return run.finished && !run.crashed && run.exitCode == 0 ? run.out : QByteArray();
}

}  // namespace

class TestCliStartup : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void startsWithTheCLibraryAlone();
    void infoCodeIsLaidOutFirst();
    void mathThroughTheLazyLibmMatchesADirectLink();
};

void TestCliStartup::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
    if (QStandardPaths::findExecutable(QStringLiteral("readelf")).isEmpty() || QStandardPaths::findExecutable(QStringLiteral("nm")).isEmpty())
        QSKIP("binutils (readelf, nm) not installed");
}

void TestCliStartup::startsWithTheCLibraryAlone()
{
#ifdef GGUFX_SANITIZED
    QSKIP("a sanitizer runtime brings its own libraries (libm, libstdc++)");
#endif
    const QByteArray dynamic = toolOutput(QStringLiteral("readelf"), {QStringLiteral("-dW"), cliPath()});
    QVERIFY(!dynamic.isEmpty());
    const QRegularExpression needed(QStringLiteral(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])"));
    QStringList libraries;
    for (auto match = needed.globalMatch(QString::fromLatin1(dynamic)); match.hasNext();)
        libraries << match.next().captured(1);
    QVERIFY2(libraries.contains(QStringLiteral("libc.so.6")), qPrintable(libraries.join(u' ')));
    QStringList unexpected;
    for (const QString& library : libraries)
        if (library != QStringLiteral("libc.so.6") && !library.startsWith(QStringLiteral("ld-linux")))
            unexpected << library;
    QVERIFY2(unexpected.isEmpty(), qPrintable(QStringLiteral("loaded at every start: ") + unexpected.join(u' ')
                                              + QStringLiteral(" (route the new call through app/cli/Lazy*.cpp)")));
}

void TestCliStartup::infoCodeIsLaidOutFirst()
{
#ifndef GGUFX_CLI_STARTUP_ORDER
    QSKIP("this linker does not take app/cli/StartupOrder.ld");
#endif
    const QByteArray sections = toolOutput(QStringLiteral("readelf"), {QStringLiteral("-SW"), cliPath()});
    const QRegularExpression ordered(QStringLiteral(R"(\.text\.startup_order\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+))"));
    const auto section = ordered.match(QString::fromLatin1(sections));
    QVERIFY2(section.hasMatch(), "no .text.startup_order section");
    const quint64 begin = section.captured(1).toULongLong(nullptr, 16);
    const quint64 end = begin + section.captured(2).toULongLong(nullptr, 16);

    const QByteArray symbols = toolOutput(QStringLiteral("nm"), {QStringLiteral("-C"), cliPath()});
    QVERIFY(!symbols.isEmpty());
    // Functions of every `info` run that other files call, so that no build inlines them away:
    // the command, the opening of the file and the model, the summary it prints.
    const QStringList wanted = {QStringLiteral("main"), QStringLiteral("runInfo("), QStringLiteral("gguf::MappedFile::open("),
                                QStringLiteral("gguf::GgufFile::open("), QStringLiteral("gguf::Model::open("),
                                QStringLiteral("gguf::Model::summary() const")};
    for (const QString& name : wanted) {
        bool found = false;
        bool laidOut = false;
        for (const QByteArray& line : symbols.split('\n')) {
            const QList<QByteArray> fields = line.split(' ');
            if (fields.size() < 3 || !(fields[1] == "T" || fields[1] == "t"))
                continue;
            const QString symbol = QString::fromLatin1(line.mid(fields[0].size() + fields[1].size() + 2));
            // "f(" stands for the overloads of f, of which `info` runs one. A "[clone .cold]"
            // part stays with the cold code.
            if ((symbol != name && !(name.endsWith(u'(') && symbol.startsWith(name))) || symbol.contains(QStringLiteral(" [clone ")))
                continue;
            found = true;
            const quint64 address = fields[0].toULongLong(nullptr, 16);
            laidOut = laidOut || (address >= begin && address < end);
        }
        QVERIFY2(found, qPrintable(name + QStringLiteral(" not found in the CLI's symbols")));
        QVERIFY2(laidOut, qPrintable(name + QStringLiteral(" lies outside the start-up layout: rerun tools/link-order/update-cli-link-order.py")));
    }
}

void TestCliStartup::mathThroughTheLazyLibmMatchesADirectLink()
{
    const QString path = fixturePath(QStringLiteral("tiny-llama-Q4_K.gguf"));
    const auto model = gguf::Model::open(path.toStdString());
    QVERIFY(model);
    const gguf::TensorInfo* tensor = (*model)->findTensor("blk.0.attn_q.weight");
    QVERIFY(tensor);
    const CliRun run = runCli({QStringLiteral("stats"), path, QStringLiteral("blk.0.attn_q.weight"), QStringLiteral("--json")});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    const QJsonObject stats = QJsonDocument::fromJson(run.out).object();
    const auto expected = gguf::computeStatistics(gguf::wholeTensor(*tensor), 20);
    QVERIFY(expected);
    // std and rms take square roots (the CLI's go through the wrapped sqrt); %.17g round-trips.
    QCOMPARE(stats.value(QStringLiteral("std")).toDouble(), expected->statistics.stddev);
    QCOMPARE(stats.value(QStringLiteral("rms")).toDouble(), expected->statistics.rms);
    QCOMPARE(stats.value(QStringLiteral("mean")).toDouble(), expected->statistics.mean);
}

QTEST_GUILESS_MAIN(TestCliStartup)
#include "tst_cli_startup.moc"
