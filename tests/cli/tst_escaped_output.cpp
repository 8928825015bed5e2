// Text from the file reaches terminals and line-per-record outputs escaped: a tensor
// name or `general.architecture` holding ESC, OSC, BEL, CR or LF must not reach stdout or stderr
// raw, nor forge a line of `check`. And `meta --json` keeps keys that differ only in invalid
// UTF-8 bytes apart, reversibly.

#include "CliRunner.h"
#include "SmallModels.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {
const std::string kEvilName = "evil\x1b]0;pwned\x07\nforged  f32  ok\r\x1b[2J\xc2\x9b" "31m";
const std::string kEvilArchitecture = "ar\x1b[31mch\r\ninjected: yes";

// Bytes a terminal acts on: C0 controls other than the line feed ending each line, DEL, and
// the UTF-8 encoding of the C1 controls (U+0080..U+009F is C2 80..C2 9F).
QString controlIn(const QByteArray& text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7f)
            return QStringLiteral("byte 0x%1 at %2").arg(c, 2, 16, QLatin1Char('0')).arg(i);
        if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) <= 0x9f)
            return QStringLiteral("C1 control at %1").arg(i);
    }
    return {};
}
}  // namespace

class TestEscapedOutput : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void noControlCharactersReachTheTerminal_data();
    void noControlCharactersReachTheTerminal();
    void checkKeepsOneLinePerTensor();
    void errorMessagesAreEscaped();
    void invalidUtf8KeysStayApartInJson();
    void invalidUtf8KeysStayApartInText();

private:
    QTemporaryDir m_dir;
    QString m_evil;
};

void TestEscapedOutput::initTestCase()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
    m_evil = m_dir.filePath(QStringLiteral("evil.gguf"));
    const std::string written = writeSmallModel(m_evil.toStdString(),
                                                {{"general.architecture", gguf::EncodedValue::string(kEvilArchitecture)},
                                                 {"general.name", gguf::EncodedValue::string("name\x1b[1m")}},
                                                {{kEvilName, {64}}, {"plain", {64}}});
    QVERIFY2(written.empty(), written.c_str());
}

void TestEscapedOutput::noControlCharactersReachTheTerminal_data()
{
    QTest::addColumn<QStringList>("arguments");
    const QString name = QString::fromUtf8(kEvilName.data(), static_cast<qsizetype>(kEvilName.size()));
    QTest::newRow("info") << QStringList{QStringLiteral("info")};
    QTest::newRow("tensors") << QStringList{QStringLiteral("tensors")};
    QTest::newRow("meta") << QStringList{QStringLiteral("meta")};
    QTest::newRow("check") << QStringList{QStringLiteral("check")};
    QTest::newRow("stats") << QStringList{QStringLiteral("stats"), QStringLiteral("@FILE"), name};
    QTest::newRow("stats, no such expert") << QStringList{QStringLiteral("stats"), QStringLiteral("@FILE"), name, QStringLiteral("--expert"), QStringLiteral("3")};
    QTest::newRow("compare") << QStringList{QStringLiteral("compare"), QStringLiteral("@FILE"), QStringLiteral("@FILE")};
}

void TestEscapedOutput::noControlCharactersReachTheTerminal()
{
    QFETCH(QStringList, arguments);
    if (arguments.size() == 1)
        arguments << m_evil;
    arguments.replaceInStrings(QStringLiteral("@FILE"), m_evil);
    const CliRun run = runCli(arguments);
    QVERIFY2(run.finished && !run.crashed, qPrintable(run.describe()));
    QVERIFY2(controlIn(run.out).isEmpty(), qPrintable(controlIn(run.out) + QStringLiteral(" in stdout: ") + QString::fromUtf8(run.out)));
    QVERIFY2(controlIn(run.err).isEmpty(), qPrintable(controlIn(run.err) + QStringLiteral(" in stderr: ") + QString::fromUtf8(run.err)));
    QVERIFY2(run.out.contains("evil\\x1b]0;pwned\\x07\\nforged") || run.err.contains("evil\\x1b]0;pwned\\x07\\nforged")
                 || arguments.first() == QLatin1String("info") || arguments.first() == QLatin1String("meta"),
             qPrintable(QString::fromUtf8(run.out + run.err)));
    if (arguments.first() == QLatin1String("info"))
        QVERIFY2(run.out.contains("ar\\x1b[31mch\\r\\ninjected: yes"), run.out.constData());
}

void TestEscapedOutput::checkKeepsOneLinePerTensor()
{
    const CliRun run = runCli({QStringLiteral("check"), m_evil});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    const QList<QByteArray> lines = run.out.split('\n');
    QCOMPARE(lines.size(), 4);  // two tensors, the summary, and the empty rest after the last '\n'
    QVERIFY(lines[0].contains("evil\\x1b") && lines[0].endsWith("  f32  ok"));
    QVERIFY(lines[1].contains("  plain  f32  ok"));
    QVERIFY(lines[2].startsWith("checked 2 tensors"));
}

void TestEscapedOutput::errorMessagesAreEscaped()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("dup.gguf"));
    const std::string written = writeSmallModel(file.toStdString(), {}, {{"dup\x1b[2J", {32}}, {std::string("dup\x1b[2J\0", 8), {32}}});
    QVERIFY2(written.empty(), written.c_str());
    const CliRun run = runCli({QStringLiteral("info"), file});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(controlIn(run.err).isEmpty(), qPrintable(controlIn(run.err)));
    QVERIFY2(run.err.contains("duplicate tensor name") && run.err.contains("dup\\x1b[2J"), run.err.constData());
}

void TestEscapedOutput::invalidUtf8KeysStayApartInJson()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("keys.gguf"));
    std::vector<std::pair<std::string, gguf::EncodedValue>> keys;
    for (const char* key : {"test.\xff", "test.\xfe", "test.\xef\xbf\xbd", "test.\\udcff", "test.a", "test.\xc3", "test.\xc3\xa9"})
        keys.emplace_back(key, gguf::EncodedValue::string(std::string("v") + key));
    const std::string written = writeSmallModel(file.toStdString(), keys, {{"t", {32}}});
    QVERIFY2(written.empty(), written.c_str());
    const CliRun run = runCli({QStringLiteral("meta"), file, QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    // Each invalid byte is the escape of one lone low surrogate: U+DC00 + byte.
    QVERIFY2(run.out.contains("\"test.\\udcff\":") && run.out.contains("\"test.\\udcfe\":") && run.out.contains("\"test.\\udcc3\":"),
             run.out.constData());
    QVERIFY2(run.out.contains("\"test.\\\\udcff\":"), "a literal backslash-u in a key must stay a backslash");
    QVERIFY2(run.out.contains("\"value\":\"vtest.\\udcff\""), run.out.constData());
    // All seven keys are distinct JSON strings: count the "type" members, one per key, and
    // check that no two keys are the same text.
    QCOMPARE(run.out.count("{\"type\":"), 7);
    QSet<QByteArray> seen;
    for (qsizetype at = run.out.indexOf("\"test."); at >= 0; at = run.out.indexOf("\"test.", at + 1)) {
        const qsizetype end = run.out.indexOf("\":{", at);
        if (end > at)
            seen.insert(run.out.mid(at, end - at));
    }
    QCOMPARE(seen.size(), 7);
}

void TestEscapedOutput::invalidUtf8KeysStayApartInText()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("keys.gguf"));
    const std::string written = writeSmallModel(file.toStdString(),
                                                {{"test.\xff", gguf::EncodedValue::u8(1)}, {"test.\xfe", gguf::EncodedValue::u8(2)}}, {{"t", {32}}});
    QVERIFY2(written.empty(), written.c_str());
    const CliRun run = runCli({QStringLiteral("meta"), file});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("test.\\xff  u8  1") && run.out.contains("test.\\xfe  u8  2"), run.out.constData());
}

QTEST_GUILESS_MAIN(TestEscapedOutput)
#include "tst_escaped_output.moc"
