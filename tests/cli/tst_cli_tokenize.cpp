// gguf-explorer-cli tokenize: ids on one line, --no-special as llama.cpp's tokenizer tests
// (add_special and parse_special off), the defaults as llama-tokenize (BOS added, special-token
// text parsed), text from a file read verbatim (the fixture README's P2 and P3 rules), and one-line
// errors for what cannot be tokenized: too much text, too little memory. Long runs of one
// character, which overflowed std::regex's stack in several pre-tokenizers, give ids.

#include "CliRunner.h"
#include "Fixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {
QString vocabulary(const QString& name)
{
    return fixturePath("llama.cpp/vocab/ggml-vocab-" + name + ".gguf");
}

QString architectureModel(const QString& folder)
{
    return fixturePath("llama.cpp/arch/" + folder + "/" + folder + "-F32.gguf");
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}
}  // namespace

class CliTokenizeTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(cliIsExecutable(), qPrintable(cliPath())); }
    void idsOnOneLine_data();
    void idsOnOneLine();
    void textFileIsReadVerbatim();
    void specialTokenTextIsParsedByDefault();
    void failuresAreOneLine_data();
    void failuresAreOneLine();
    void longRunsOfOneCharacterGiveIds_data();
    void longRunsOfOneCharacterGiveIds();
    void textOverTheBoundIsOneLine();
    void runningOutOfMemoryIsOneLine();
};

void CliTokenizeTest::idsOnOneLine_data()
{
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QByteArray>("expected");
    // The first vector of llama.cpp's tests and llama-tokenize's default output (fixture README).
    QTest::newRow("spm --no-special") << "llama-spm" << QStringList{"--no-special"} << QByteArray("474 287 29871 29946 29871 30226 7378\n");
    QTest::newRow("spm default adds BOS") << "llama-spm" << QStringList{} << QByteArray("1 474 287 29871 29946 29871 30226 7378\n");
    QTest::newRow("bpe --no-special") << "llama-bpe" << QStringList{"--no-special"} << QByteArray("1142 220 19 220 27154 4038\n");
    QTest::newRow("bpe default adds BOS") << "llama-bpe" << QStringList{} << QByteArray("128000 1142 220 19 220 27154 4038\n");
}

void CliTokenizeTest::idsOnOneLine()
{
    QFETCH(QString, vocab);
    QFETCH(QStringList, flags);
    QFETCH(QByteArray, expected);
    const CliRun run = runCli(QStringList{"tokenize", vocabulary(vocab), "--text", QString::fromUtf8("ied 4 \xC2\xBD months")} + flags);
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
    QCOMPARE(run.out, expected);
}

void CliTokenizeTest::textFileIsReadVerbatim()
{
    // The tiny model's P2 sequence: GPL-3 starts with 20 spaces and the vocab has no "▁", so
    // BOS then 21 times the three byte tokens of U+2581 (fixture README, section 5).
    const QString gpl = QStringLiteral("/usr/share/common-licenses/GPL-3");
    if (!QFileInfo::exists(gpl))
        QSKIP("no /usr/share/common-licenses/GPL-3 on this machine");
    const CliRun run = runCli({"tokenize", fixturePath("tiny-llama-F32.gguf"), "--text-file", gpl});
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(run.out.endsWith('\n'));
    QCOMPARE(run.out.count('\n'), 1);
    const QList<QByteArray> ids = run.out.trimmed().split(' ');
    QVERIFY(ids.size() > 64);
    QByteArray expectedStart("1");
    for (int i = 0; i < 21; ++i)
        expectedStart += " 229 153 132";
    QCOMPARE(ids.mid(0, 64).join(' '), expectedStart);
    // The whole text is 40,379 tokens in llama.cpp, and P3 is positions 1000..1063 of them.
    QCOMPARE(ids.size(), qsizetype(40379));
    const QJsonObject p3 = QJsonDocument::fromJson(readWholeFile(fixturePath("llama.cpp/logits/tiny-llama-F32.P3.logits.json"))).object();
    const QJsonArray p3Tokens = p3.value("tokens").toArray();
    QCOMPARE(p3Tokens.size(), qsizetype(64));
    for (qsizetype i = 0; i < p3Tokens.size(); ++i)
        QCOMPARE(ids[1000 + i].toInt(), p3Tokens[i].toInt());

    // An empty file is no tokens at all with --no-special, only BOS without it.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile empty(dir.filePath("empty.txt"));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    CliRun none = runCli({"tokenize", vocabulary("llama-spm"), "--text-file", empty.fileName(), "--no-special"});
    QVERIFY2(none.finished && none.exitCode == 0, qPrintable(none.describe()));
    QCOMPARE(none.out, QByteArray("\n"));
    none = runCli({"tokenize", vocabulary("llama-spm"), "--text-file", empty.fileName()});
    QCOMPARE(none.out, QByteArray("1\n"));
}

void CliTokenizeTest::specialTokenTextIsParsedByDefault()
{
    const CliRun parsed = runCli({"tokenize", vocabulary("llama-bpe"), "--text", "<|eot_id|>"});
    QVERIFY2(parsed.finished && parsed.exitCode == 0, qPrintable(parsed.describe()));
    QCOMPARE(parsed.out, QByteArray("128000 128009\n"));
    const CliRun literal = runCli({"tokenize", vocabulary("llama-bpe"), "--text", "<|eot_id|>", "--no-special"});
    QVERIFY2(literal.finished && literal.exitCode == 0, qPrintable(literal.describe()));
    QVERIFY(!literal.out.contains("128009"));
    QVERIFY(!literal.out.startsWith("128000"));
}

void CliTokenizeTest::failuresAreOneLine_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("no text") << QStringList{"tokenize", vocabulary("gpt-2")} << "usage: tokenize";
    QTest::newRow("both texts") << QStringList{"tokenize", vocabulary("gpt-2"), "--text", "a", "--text-file", "/dev/null"} << "usage: tokenize";
    QTest::newRow("folder as text") << QStringList{"tokenize", vocabulary("gpt-2"), "--text-file", fixturesDir()} << "a folder";
    QTest::newRow("missing text file") << QStringList{"tokenize", vocabulary("gpt-2"), "--text-file", fixturePath("no-such.txt")} << "cannot read";
    // A file without tokenizer metadata: the error says so; ids still work elsewhere.
    QTest::newRow("no tokenizer") << QStringList{"tokenize", fixturePath("dims.gguf"), "--text", "a"} << "tokenizer.ggml.model is not set";
}

void CliTokenizeTest::failuresAreOneLine()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, mentions);
    const CliRun run = runCli(arguments);
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(QString::fromUtf8(run.err).contains(mentions), qPrintable(run.describe()));
    QVERIFY(run.out.isEmpty());
}

void CliTokenizeTest::longRunsOfOneCharacterGiveIds_data()
{
    // Each model whose pre-tokenizer ran std::regex (deepseek-llm, deepseek-v3, gpt-4o, qwen35,
    // glm4) or a hand-written splitter, on 40,000 equal letters, spaces, '!' or CJK characters.
    QTest::addColumn<QString>("model");
    QTest::addColumn<QByteArray>("character");
    const QList<QPair<QString, QString>> models{{"deepseek-llm", vocabulary("deepseek-llm")},
                                                {"deepseek-v3", architectureModel("deepseek2")},
                                                {"gpt-4o", architectureModel("gpt-oss")},
                                                {"qwen35", architectureModel("qwen35")},
                                                {"glm4", architectureModel("glm4moe")},
                                                {"gemma4", architectureModel("gemma4")},
                                                {"llama-bpe", vocabulary("llama-bpe")}};
    for (const auto& [name, path] : models)
        for (const QByteArray& character : {QByteArray("a"), QByteArray(" "), QByteArray("!"), QByteArray("\xE4\xB8\xAD")})
            QTest::newRow(qPrintable(name + " '" + QString::fromUtf8(character) + "'")) << path << character;
}

void CliTokenizeTest::longRunsOfOneCharacterGiveIds()
{
    QFETCH(QString, model);
    QFETCH(QByteArray, character);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString text = dir.filePath("run.txt");
    QVERIFY(writeFile(text, character.repeated(40000)));
    const CliRun run = runCli({"tokenize", model, "--text-file", text, "--no-special"});
    QVERIFY2(run.finished && !run.crashed && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(run.out.endsWith('\n') && run.out.count('\n') == 1 && run.out.size() > 2);
}

void CliTokenizeTest::textOverTheBoundIsOneLine()
{
    // 64 MiB and one byte (a sparse file: reading it is cheap): refused before tokenizing.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile big(dir.filePath("big.txt"));
    QVERIFY(big.open(QIODevice::WriteOnly) && big.resize((qint64(64) << 20) + 1));
    big.close();
    const CliRun run = runCli({"tokenize", vocabulary("gpt-2"), "--text-file", big.fileName()});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("more than 64 MiB of text"), qPrintable(run.describe()));
}

void CliTokenizeTest::runningOutOfMemoryIsOneLine()
{
#if defined(GGUFX_SANITIZED)
    QSKIP("AddressSanitizer reserves more address space than the limit this test sets");
#else
    // One 16 MiB word needs ~650 MB; with 400 MB of address space the allocation fails, and
    // that is a message, not std::bad_alloc's abort.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QByteArray word(16 << 20, 'a');
    for (qsizetype i = 0; i < word.size(); ++i)
        word[i] = static_cast<char>('a' + (i * 7 + i / 3) % 26);
    const QString text = dir.filePath("word.txt");
    QVERIFY(writeFile(text, word));
    const CliRun run = runProgram("/bin/sh", {"-c", "ulimit -v 400000 && exec \"$0\" tokenize \"$1\" --text-file \"$2\"", cliPath(),
                                              vocabulary("gpt-2"), text});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains("not enough memory to tokenize 16777216 bytes"), qPrintable(run.describe()));
#endif
}

QTEST_GUILESS_MAIN(CliTokenizeTest)
#include "tst_cli_tokenize.moc"
