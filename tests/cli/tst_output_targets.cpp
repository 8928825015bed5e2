// What an output may do to the files around it: never replace an input of the same run (a
// model, an importance matrix, a text, rules or value file), whatever names it (the same path,
// a symlink, a hard link, /dev/fd/N, a redirected standard output); `-` is standard output,
// never a file named `-`; an existing target keeps its mode and owner; a FIFO without a reader
// is announced; standard output that cannot take the bytes fails the command; messages name the
// right file.

#include "FileBytes.h"
#include "CliRunner.h"
#include "Fixtures.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace testsupport;

namespace {
// `script` run by bash with $0 = the CLI and $1... = `arguments`.
CliRun runShell(const QString& script, const QStringList& arguments)
{
    return runProgram(QStringLiteral("/bin/bash"), QStringList{QStringLiteral("-c"), script, cliPath()} + arguments);
}

struct StatOf {
    mode_t mode = 0;
    uid_t uid = 0;
    gid_t gid = 0;
};

StatOf statOf(const QString& path)
{
    struct stat info {};
    if (::lstat(QFile::encodeName(path).constData(), &info) != 0)
        return {};
    return {info.st_mode, info.st_uid, info.st_gid};
}

// Arrays nested `depth` deep: the type arr[arr[...u8]] and the value [[...1]].
QString nestedSetting(int depth)
{
    return QStringLiteral("test.nested=") + QString(depth, QLatin1Char('[')) + QStringLiteral("1") + QString(depth, QLatin1Char(']'))
         + QStringLiteral(":") + QStringLiteral("arr[").repeated(depth) + QStringLiteral("u8") + QString(depth, QLatin1Char(']'));
}
}  // namespace

class TestOutputTargets : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void inputOfAnyKindIsRefusedAsOutput_data();
    void inputOfAnyKindIsRefusedAsOutput();
    void standardOutputIntoAnInputIsRefused_data();
    void standardOutputIntoAnInputIsRefused();
    void dashIsStandardOutput_data();
    void dashIsStandardOutput();
    void existingTargetKeepsModeAndOwner_data();
    void existingTargetKeepsModeAndOwner();
    void fifoWithoutReaderIsAnnouncedThenWritten();
    void fullStandardOutputFailsTheCommand_data();
    void fullStandardOutputFailsTheCommand();
    void arraysDeeperThanTheReaderTakesAreRefused();
    void nonzeroFloatStoredAsZeroIsRefused_data();
    void nonzeroFloatStoredAsZeroIsRefused();
    void emptyOutputPathIsNamed();
    void fullDiskDuringSaveNamesTheOutput();
    void kldNamesTheModelOnce();
    void outOfMemoryIsOneLine();

private:
    // The files of one test, fresh copies in a folder of its own.
    QString path(const QString& name) const { return m_dir->filePath(name); }
    QString expand(const QString& word) const;

    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestOutputTargets::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(cliPath()));
}

void TestOutputTargets::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-F32.gguf")), path(QStringLiteral("model.gguf"))));
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf")), path(QStringLiteral("im.gguf"))));
    QVERIFY(writeFile(path(QStringLiteral("text.txt")), "The quick brown fox jumps over the lazy dog.\n"));
    QVERIFY(writeFile(path(QStringLiteral("rules.txt")), "# base preset: Q4_K_M\noutput\\.weight=q8_0\n"));
    QVERIFY(writeFile(path(QStringLiteral("value.txt")), "a name from a file"));
}

// {model} {im} {text} {rules} {value} {dir}: the files init() made.
QString TestOutputTargets::expand(const QString& word) const
{
    QString text = word;
    for (const char* name : {"model.gguf", "im.gguf", "text.txt", "rules.txt", "value.txt"}) {
        const QString file = QString::fromLatin1(name);
        text.replace(QLatin1Char('{') + file.section(QLatin1Char('.'), 0, 0) + QLatin1Char('}'), path(file));
    }
    return text.replace(QStringLiteral("{dir}"), m_dir->path());
}

void TestOutputTargets::inputOfAnyKindIsRefusedAsOutput_data()
{
    QTest::addColumn<QStringList>("command");  // {out} is the output that leads to the input
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("via");
    const QList<std::tuple<const char*, QStringList, QString>> commands{
        {"convert --imatrix", {"convert", "{model}", "{out}", "--type", "q4_K", "--imatrix", "{im}"}, "im.gguf"},
        {"plan --imatrix", {"plan", "{model}", "--size", "4.5bpw", "--imatrix", "{im}", "-o", "{out}"}, "im.gguf"},
        {"logits --text-file", {"logits", "{model}", "--text-file", "{text}", "-o", "{out}"}, "text.txt"},
        {"logits --hidden", {"logits", "{model}", "--text-file", "{text}", "-o", "{dir}/logits.f32", "--hidden", "{out}"}, "text.txt"},
        {"convert --recipe", {"convert", "{model}", "{out}", "--type", "Q4_K_M", "--recipe", "{rules}"}, "rules.txt"},
        {"meta --set-file", {"meta", "{model}", "--set-file", "general.name={value}", "-o", "{out}"}, "value.txt"},
        {"export over the model", {"export", "{model}", "output_norm.weight", "-o", "{out}"}, "model.gguf"},
    };
    for (const auto& [name, command, input] : commands)
        for (const char* via : {"name", "symlink", "hard link", "/dev/fd"})
            QTest::newRow(qPrintable(QString::fromLatin1(name) + QStringLiteral(", by ") + QString::fromLatin1(via))) << command << input << QString::fromLatin1(via);
}

void TestOutputTargets::inputOfAnyKindIsRefusedAsOutput()
{
    QFETCH(QStringList, command);
    QFETCH(QString, input);
    QFETCH(QString, via);
    const QString victim = path(input);
    const QByteArray before = contentOf(victim);
    QString output = victim;
    if (via == QLatin1String("symlink")) {
        output = path(QStringLiteral("link"));
        QVERIFY(QFile::link(input, output));
    } else if (via == QLatin1String("hard link")) {
        output = path(QStringLiteral("second-name"));
        QCOMPARE(::link(QFile::encodeName(victim).constData(), QFile::encodeName(output).constData()), 0);
    } else if (via == QLatin1String("/dev/fd")) {
        output = QStringLiteral("/dev/fd/3");  // opened read-write on the input by the shell
    }
    QStringList words;
    for (const QString& word : command)
        words << expand(word).replace(QStringLiteral("{out}"), output);
    const CliRun run = via == QLatin1String("/dev/fd") ? runShell(QStringLiteral("f=$1; shift; exec \"$0\" \"$@\" 3<> \"$f\""), QStringList{victim} + words)
                                                       : runCli(words);
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("is an input of this run") || run.err.contains("is the input"), qPrintable(run.describe()));
    QVERIFY2(contentOf(victim) == before, "the input was changed");
    if (via == QLatin1String("symlink"))
        QVERIFY(S_ISLNK(statOf(output).mode));
    QStringList hidden = QDir(m_dir->path()).entryList(QDir::Files | QDir::Hidden).filter(QRegularExpression(QStringLiteral("^\\.")));
    QVERIFY2(hidden.isEmpty(), qPrintable(hidden.join(QLatin1Char(' '))));
}

void TestOutputTargets::standardOutputIntoAnInputIsRefused_data()
{
    QTest::addColumn<QString>("script");  // $1 is the model
    QTest::newRow("export -o - 1<> model") << QStringLiteral("exec \"$0\" export \"$1\" output_norm.weight -o - 1<> \"$1\"");
    QTest::newRow("export to its default stdout 1<> model") << QStringLiteral("exec \"$0\" export \"$1\" output_norm.weight 1<> \"$1\"");
    QTest::newRow("logits -o - >> model") << QStringLiteral("exec \"$0\" logits \"$1\" --tokens 1,2,3 -o - >> \"$1\"");
    QTest::newRow("convert model - >> model") << QStringLiteral("exec \"$0\" convert \"$1\" - --type q8_0 >> \"$1\"");
    QTest::newRow("info >> model") << QStringLiteral("exec \"$0\" info \"$1\" >> \"$1\"");
    QTest::newRow("meta --json 1<> model") << QStringLiteral("exec \"$0\" meta \"$1\" --json 1<> \"$1\"");
    QTest::newRow("estimate >> model") << QStringLiteral("exec \"$0\" estimate \"$1\" >> \"$1\"");
    QTest::newRow("meta -o - 1<> model") << QStringLiteral("exec \"$0\" meta \"$1\" --set general.name=x -o - 1<> \"$1\"");
}

void TestOutputTargets::standardOutputIntoAnInputIsRefused()
{
    QFETCH(QString, script);
    const QString model = path(QStringLiteral("model.gguf"));
    const QByteArray before = contentOf(model);
    const CliRun run = runShell(script, {model});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("input"), qPrintable(run.describe()));
    QVERIFY2(contentOf(model) == before, "the model was changed through standard output");
}

void TestOutputTargets::dashIsStandardOutput_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<QByteArray>("outputStart");
    QTest::newRow("convert IN -") << QStringList{"convert", "{model}", "-", "--type", "q8_0"} << QByteArray("GGUF");
    QTest::newRow("plan -o -") << QStringList{"plan", "{model}", "--size", "4.5bpw", "-o", "-"} << QByteArray();
}

void TestOutputTargets::dashIsStandardOutput()
{
    QFETCH(QStringList, command);
    QFETCH(QByteArray, outputStart);
    QStringList words;
    for (const QString& word : command)
        words << expand(word);
    const CliRun run = runProgram(cliPath(), words, m_dir->path());
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(!QFileInfo::exists(path(QStringLiteral("-"))), "a file named '-' was written");
    QVERIFY2(run.out.startsWith(outputStart), run.out.left(64).constData());
    // The command's report goes to stderr: standard output holds the output alone.
    QVERIFY2(!run.out.contains("wrote ") && !run.out.contains("presets ("), run.out.left(256).constData());
    QVERIFY2(!run.err.isEmpty(), qPrintable(run.describe()));
}

void TestOutputTargets::existingTargetKeepsModeAndOwner_data()
{
    QTest::addColumn<QStringList>("command");  // {out} is the existing target
    QTest::newRow("export -o") << QStringList{"export", "{model}", "output_norm.weight", "-o", "{out}"};
    QTest::newRow("meta -o") << QStringList{"meta", "{model}", "--set", "general.name=x", "-o", "{out}"};
    QTest::newRow("convert") << QStringList{"convert", "{model}", "{out}", "--type", "q8_0", "--quiet"};
    QTest::newRow("convert --type PRESET") << QStringList{"convert", "{model}", "{out}", "--type", "Q4_K_M", "--quiet"};
    QTest::newRow("plan -o") << QStringList{"plan", "{model}", "--size", "4.5bpw", "-o", "{out}"};
    QTest::newRow("logits -o") << QStringList{"logits", "{model}", "--tokens", "1,2,3", "-o", "{out}"};
}

void TestOutputTargets::existingTargetKeepsModeAndOwner()
{
    QFETCH(QStringList, command);
    const QString target = path(QStringLiteral("target.out"));
    QVERIFY(writeFile(target, "old"));
    const QByteArray name = QFile::encodeName(target);
    QCOMPARE(::chmod(name.constData(), 0604), 0);  // not what any umask gives a new file
    // Another owner can only be given (and kept) by root.
    const bool privileged = ::geteuid() == 0;
    if (privileged)
        QCOMPARE(::chown(name.constData(), 4242, 4343), 0);
    const StatOf before = statOf(target);
    QStringList words;
    for (const QString& word : command)
        words << expand(word).replace(QStringLiteral("{out}"), target);
    const CliRun run = runCli(words);
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(contentOf(target) != "old");
    const StatOf after = statOf(target);
    QCOMPARE(after.mode & 07777, before.mode & 07777);
    if (privileged) {
        QCOMPARE(after.uid, uid_t{4242});
        QCOMPARE(after.gid, gid_t{4343});
    }
}

void TestOutputTargets::fifoWithoutReaderIsAnnouncedThenWritten()
{
    // The command says what it waits for, then writes once a reader comes: `cmd -o fifo &
    // reader < fifo` may start the reader second.
    const QString fifo = path(QStringLiteral("out.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QProcess cli;
    cli.start(cliPath(), {QStringLiteral("export"), path(QStringLiteral("model.gguf")), QStringLiteral("output_norm.weight"), QStringLiteral("-o"), fifo});
    cli.setReadChannel(QProcess::StandardError);
    QVERIFY(cli.waitForStarted(kHangGuardMs));
    QByteArray err;
    while (!err.contains("waiting for a reader of " + QFile::encodeName(fifo)) && cli.state() == QProcess::Running) {
        if (!cli.waitForReadyRead(kHangGuardMs))
            break;
        err += cli.readAllStandardError();
    }
    QVERIFY2(err.contains("waiting for a reader of " + QFile::encodeName(fifo)), err.constData());
    QFile reader(fifo);
    QVERIFY(reader.open(QIODevice::ReadOnly));  // the writer is waiting: this open returns at once
    const QByteArray received = reader.readAll();  // until the writer closes
    QVERIFY(cli.waitForFinished(kHangGuardMs));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(received.size(), 256 * 4);  // output_norm.weight: 256 f32 values
}

void TestOutputTargets::fullStandardOutputFailsTheCommand_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::newRow("meta --json") << QStringList{"meta", "{model}", "--json"};
    QTest::newRow("meta") << QStringList{"meta", "{model}"};
    QTest::newRow("check") << QStringList{"check", "{model}"};
    QTest::newRow("tensors") << QStringList{"tensors", "{model}"};
    QTest::newRow("tensors --json") << QStringList{"tensors", "{model}", "--json"};
    QTest::newRow("info") << QStringList{"info", "{model}"};
    QTest::newRow("recipe") << QStringList{"recipe", "{model}"};
    QTest::newRow("estimate") << QStringList{"estimate", "{model}"};
    QTest::newRow("imatrix --json") << QStringList{"imatrix", "{im}", "--json"};
    QTest::newRow("export --format csv") << QStringList{"export", "{model}", "output_norm.weight", "--format", "csv"};
}

void TestOutputTargets::fullStandardOutputFailsTheCommand()
{
    QFETCH(QStringList, command);
    QStringList words;
    for (const QString& word : command)
        words << expand(word);
    const CliRun run = runShell(QStringLiteral("exec \"$0\" \"$@\" > /dev/full"), words);
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("standard output") && run.err.contains("No space left on device"), qPrintable(run.describe()));
}

void TestOutputTargets::arraysDeeperThanTheReaderTakesAreRefused()
{
    // The reader takes 16 levels: Save As writes those and refuses a 17th when editing, not a
    // file that nothing then opens.
    const QString model = path(QStringLiteral("model.gguf"));
    const QString deepest = path(QStringLiteral("sixteen.gguf"));
    const CliRun sixteen = runCli({QStringLiteral("meta"), model, QStringLiteral("--set"), nestedSetting(16), QStringLiteral("-o"), deepest});
    QVERIFY2(sixteen.exitCode == 0, qPrintable(sixteen.describe()));
    const CliRun reads = runCli({QStringLiteral("meta"), deepest});
    QVERIFY2(reads.exitCode == 0, qPrintable(reads.describe()));
    const QString tooDeep = path(QStringLiteral("seventeen.gguf"));
    const CliRun seventeen = runCli({QStringLiteral("meta"), model, QStringLiteral("--set"), nestedSetting(17), QStringLiteral("-o"), tooDeep});
    QVERIFY2(seventeen.failedWithOneLine() && seventeen.err.contains("nested more than 16"), qPrintable(seventeen.describe()));
    QVERIFY(!QFileInfo::exists(tooDeep));
}

void TestOutputTargets::nonzeroFloatStoredAsZeroIsRefused_data()
{
    QTest::addColumn<QString>("setting");
    QTest::newRow("f32 1e-50") << QStringLiteral("llama.rope.freq_base=1e-50:f32");
    QTest::newRow("f32 -1e-46") << QStringLiteral("test.tiny=-1e-46:f32");
    QTest::newRow("f64 1e-400") << QStringLiteral("test.tiny=1e-400:f64");
}

void TestOutputTargets::nonzeroFloatStoredAsZeroIsRefused()
{
    QFETCH(QString, setting);
    const QString out = path(QStringLiteral("edited.gguf"));
    const CliRun run = runCli({QStringLiteral("meta"), path(QStringLiteral("model.gguf")), QStringLiteral("--set"), setting, QStringLiteral("-o"), out});
    QVERIFY2(run.failedWithOneLine() && run.err.contains("stored as 0"), qPrintable(run.describe()));
    QVERIFY(!QFileInfo::exists(out));
    // The smallest subnormal is kept, not refused.
    const CliRun smallest = runCli({QStringLiteral("meta"), path(QStringLiteral("model.gguf")), QStringLiteral("--set"),
                                    QStringLiteral("test.tiny=1.5e-45:f32"), QStringLiteral("-o"), out});
    QVERIFY2(smallest.exitCode == 0, qPrintable(smallest.describe()));
}

void TestOutputTargets::emptyOutputPathIsNamed()
{
    for (const QStringList& command : {QStringList{"export", "{model}", "output_norm.weight", "-o", ""},
                                       QStringList{"meta", "{model}", "--set", "general.name=x", "-o", ""},
                                       QStringList{"plan", "{model}", "--size", "4.5bpw", "-o", ""}}) {
        QStringList words;
        for (const QString& word : command)
            words << expand(word);
        const CliRun run = runCli(words);
        QVERIFY2(run.failedWithOneLine() && run.err.contains("output path is empty"), qPrintable(run.describe()));
    }
}

void TestOutputTargets::fullDiskDuringSaveNamesTheOutput()
{
    // A file size limit fails the kernel copy (EFBIG) the way a full disk does (ENOSPC): the
    // output is to blame, not the input, and at no offset of the input.
    const QString model = path(QStringLiteral("model.gguf"));
    const QString out = path(QStringLiteral("saved.gguf"));
    const CliRun run = runShell(QStringLiteral("ulimit -f 256 && trap '' XFSZ && exec \"$0\" meta \"$1\" --set general.name=x -o \"$2\""), {model, out});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains(QFile::encodeName(out) + ": writing the output failed: File too large"), qPrintable(run.describe()));
    QVERIFY2(!run.err.contains(QFile::encodeName(model)) && !run.err.contains("at byte"), qPrintable(run.describe()));
    QVERIFY(!QFileInfo::exists(out));
}

void TestOutputTargets::kldNamesTheModelOnce()
{
    const QString other = fixturePath(QStringLiteral("bad-base.gguf"));
    const CliRun run = runCli({QStringLiteral("kld"), path(QStringLiteral("model.gguf")), other, QStringLiteral("--tokens"), QStringLiteral("1,2,3")});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QCOMPARE(run.err.count(QFile::encodeName(other)), 1);
}

void TestOutputTargets::outOfMemoryIsOneLine()
{
#if defined(GGUFX_SANITIZED)
    QSKIP("a sanitizer's shadow memory does not run under an address-space limit");
#endif
    // One long word takes the tokenizer far more memory than a 400 MB address space holds: the
    // allocation fails, and the command says so in one line instead of aborting.
    const QString text = path(QStringLiteral("long-word.txt"));
    QVERIFY(writeFile(text, QByteArray(20 << 20, 'a')));
    const CliRun run = runShell(QStringLiteral("ulimit -v 400000 && exec \"$0\" tokenize \"$1\" --text-file \"$2\""),
                                {path(QStringLiteral("model.gguf")), text});
    QVERIFY2(!run.crashed, qPrintable(run.describe()));
    if (run.exitCode == 0)
        QSKIP("the tokenizer fits this text in 400 MB now; nothing to fail");
    // The tokenizer names the text it could not fit; a failure elsewhere says "out of memory".
    QVERIFY2(run.failedWithOneLine() && (run.err.contains("not enough memory to tokenize") || run.err.contains("out of memory")),
             qPrintable(run.describe()));
}

QTEST_GUILESS_MAIN(TestOutputTargets)
#include "tst_output_targets.moc"
