// `gguf-explorer-cli meta FILE --set/--delete/--set-file -o OUT`: the copy is reopened with the
// core reader and checked key by key and tensor by tensor (raw bytes by SHA-256); the listing
// of the copy differs from the input's in the edited lines only; bad requests fail with one line
// and leave no file.

#include "CliRunner.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/base/Sha256.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace testsupport;

namespace {
QByteArray rawHash(const gguf::TensorInfo& tensor)
{
    return QByteArray::fromStdString(gguf::Sha256::toHex(gguf::Sha256::of({tensor.data, static_cast<std::size_t>(tensor.nbytes)})));
}

void verifySameTensors(const gguf::Model& a, const gguf::Model& b)
{
    QCOMPARE(b.tensors().size(), a.tensors().size());
    for (std::size_t i = 0; i < a.tensors().size(); ++i) {
        QCOMPARE(b.tensors()[i].name, a.tensors()[i].name);
        QCOMPARE(b.tensors()[i].typeId, a.tensors()[i].typeId);
        QCOMPARE(b.tensors()[i].ne, a.tensors()[i].ne);
        QCOMPARE(rawHash(b.tensors()[i]), rawHash(a.tensors()[i]));
    }
}

QStringList lines(const QByteArray& text)
{
    return QString::fromUtf8(text).split('\n', Qt::SkipEmptyParts);
}

QStringList folderEntries(const QString& path)
{
    return QDir(path).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}
}  // namespace

class TestCliMetaEdit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(cliIsExecutable(), qPrintable(cliPath())); }
    void setDeleteAndSetFile();
    void listingChangesOnlyInEditedLines();
    void bigEndianStaysBigEndian();
    void splitModelSavedAsShards();
    void copyToStandardOutput();
    void badRequestsFailCleanly_data();
    void badRequestsFailCleanly();
    void neverWritesOverTheInput();

private:
    QTemporaryDir m_dir;
};

void TestCliMetaEdit::setDeleteAndSetFile()
{
    const QString templatePath = m_dir.filePath("template.jinja");
    const QByteArray chatTemplate = "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m[\"content\"] }}\t\\\n{% endfor %}";
    {
        QFile file(templatePath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(chatTemplate);
    }
    const QString out = m_dir.filePath("edited.gguf");
    const CliRun run = runCli({"meta", fixturePath("tiny-llama-Q4_K.gguf"), "--set", "tokenizer.ggml.bos_token_id=7",
                               "--set", "tokenizer.ggml.add_bos_token=false", "--set", "general.name=a: name:with colons",
                               "--set", "test.ratio=0.125:f64", "--set", "test.ids=[1, 2, 3]:arr[i32]",
                               "--set", "test.words=[\"x\", \"y:z\"]:arr[str]", "--delete", "tokenizer.ggml.scores",
                               "--set-file", "tokenizer.chat_template=" + templatePath, "-o", out});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY(run.out.isEmpty());
    QVERIFY(run.err.contains("wrote"));
    const auto source = openFixtureModel("tiny-llama-Q4_K.gguf");
    const auto saved = openModelAt(out);
    QVERIFY(source && saved);
    verifySameTensors(*source, *saved);
    QCOMPARE(*saved->findMetadata("tokenizer.ggml.bos_token_id")->value.toUInt(), 7u);
    QCOMPARE(saved->findMetadata("tokenizer.ggml.bos_token_id")->value.typeName(),
             source->findMetadata("tokenizer.ggml.bos_token_id")->value.typeName());
    QCOMPARE(*saved->findMetadata("tokenizer.ggml.add_bos_token")->value.toBool(), false);
    QCOMPARE(saved->metadataString("general.name"), std::string("a: name:with colons"));
    QCOMPARE(saved->findMetadata("test.ratio")->value.typeName(), std::string("f64"));
    QCOMPARE(*saved->findMetadata("test.ratio")->value.toDouble(), 0.125);
    QCOMPARE(saved->findMetadata("test.ids")->value.typeName(), std::string("arr[i32]"));
    QCOMPARE(*saved->findMetadata("test.ids")->value.element(2).toInt(), 3);
    QCOMPARE(std::string(saved->findMetadata("test.words")->value.element(1).toStringView()), std::string("y:z"));
    QVERIFY(!saved->findMetadata("tokenizer.ggml.scores"));
    QCOMPARE(saved->metadataString("tokenizer.chat_template"), chatTemplate.toStdString());
    QCOMPARE(saved->metadata().size(), source->metadata().size() - 1 + 3);
}

void TestCliMetaEdit::listingChangesOnlyInEditedLines()
{
    const QString out = m_dir.filePath("one-change.gguf");
    const QString input = fixturePath("kv-all-types.gguf");
    const CliRun save = runCli({"meta", input, "--set", "test.u16=4242", "-o", out});
    QVERIFY2(save.exitCode == 0, qPrintable(save.describe()));
    const CliRun before = runCli({"meta", input});
    const CliRun after = runCli({"meta", out});
    QCOMPARE(before.exitCode, 0);
    QCOMPARE(after.exitCode, 0);
    const QStringList a = lines(before.out);
    const QStringList b = lines(after.out);
    QCOMPARE(b.size(), a.size());
    int changed = 0;
    for (int i = 0; i < a.size(); ++i) {
        if (a[i] == b[i])
            continue;
        ++changed;
        QVERIFY2(b[i].startsWith("test.u16  u16  4242"), qPrintable(b[i]));
    }
    QCOMPARE(changed, 1);
    // Without edit options meta lists, exactly as before this option existed: --json too.
    QCOMPARE(runCli({"meta", input, "--json"}).exitCode, 0);
}

void TestCliMetaEdit::bigEndianStaysBigEndian()
{
    const QString out = m_dir.filePath("be-edited.gguf");
    const CliRun run = runCli({"meta", fixturePath("be.gguf"), "--set", "general.name=big endian still", "--set", "test.added=-5:i16", "-o", out});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    const auto source = openFixtureModel("be.gguf");
    const auto saved = openModelAt(out);
    QVERIFY(source && saved);
    QVERIFY(saved->primary().bigEndian());
    verifySameTensors(*source, *saved);
    QCOMPARE(saved->metadataString("general.name"), std::string("big endian still"));
    QCOMPARE(*saved->findMetadata("test.added")->value.toInt(), -5);
}

void TestCliMetaEdit::splitModelSavedAsShards()
{
    QTemporaryDir dir;
    const CliRun run = runCli({"meta", fixturePath("split-00001-of-00002.gguf"), "--set", "general.name=resplit", "-o", dir.filePath("m.gguf")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QCOMPARE(folderEntries(dir.path()), (QStringList{"m-00001-of-00002.gguf", "m-00002-of-00002.gguf"}));
    const auto source = openFixtureModel("split-00001-of-00002.gguf");
    const auto saved = openModelAt(dir.filePath("m-00002-of-00002.gguf"));
    QVERIFY(source && saved);
    QCOMPARE(saved->shards().size(), std::size_t{2});
    verifySameTensors(*source, *saved);
    QCOMPARE(saved->metadataString("general.name"), std::string("resplit"));
}

void TestCliMetaEdit::copyToStandardOutput()
{
    const QString file = m_dir.filePath("to-file.gguf");
    QCOMPARE(runCli({"meta", fixturePath("v2.gguf"), "--set", "general.name=piped", "-o", file}).exitCode, 0);
    const CliRun piped = runCli({"meta", fixturePath("v2.gguf"), "--set", "general.name=piped", "-o", "-"});
    QVERIFY2(piped.exitCode == 0, qPrintable(piped.describe()));
    QCOMPARE(piped.out, readWholeFile(file));
}

void TestCliMetaEdit::badRequestsFailCleanly_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString in = fixturePath("tiny-llama-Q4_K.gguf");
    const QString out = QStringLiteral("OUT");
    QTest::newRow("out of range") << QStringList{"meta", in, "--set", "llama.block_count=-1", "-o", out} << "out of range";
    QTest::newRow("u32 too big") << QStringList{"meta", in, "--set", "llama.block_count=4294967296", "-o", out} << "out of range";
    QTest::newRow("not a bool") << QStringList{"meta", in, "--set", "tokenizer.ggml.add_bos_token=yes", "-o", out} << "bool";
    QTest::newRow("new key without type") << QStringList{"meta", in, "--set", "test.new=1", "-o", out} << "say its type";
    QTest::newRow("unknown type") << QStringList{"meta", in, "--set", "test.new=1:u7", "-o", out} << "say its type";
    QTest::newRow("no equals") << QStringList{"meta", in, "--set", "general.name", "-o", out} << "KEY=VALUE";
    QTest::newRow("no output") << QStringList{"meta", in, "--set", "general.name=x"} << "-o OUT";
    QTest::newRow("delete missing") << QStringList{"meta", in, "--delete", "no.such.key", "-o", out} << "no such key";
    QTest::newRow("split key") << QStringList{"meta", in, "--set", "split.count=2:u16", "-o", out} << "split";
    QTest::newRow("missing value file") << QStringList{"meta", in, "--set-file", "tokenizer.chat_template=/no/such/file", "-o", out} << "value file";
    QTest::newRow("value file for number") << QStringList{"meta", in, "--set-file", "llama.block_count=" + in, "-o", out} << "str";
    QTest::newRow("bad list") << QStringList{"meta", in, "--set", "test.l=[1,:arr[u8]", "-o", out} << "list";
    QTest::newRow("dangling option") << QStringList{"meta", in, "--set"} << "needs a value";
}

void TestCliMetaEdit::badRequestsFailCleanly()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QTemporaryDir dir;
    arguments.replaceInStrings(QRegularExpression("^OUT$"), dir.filePath("out.gguf"));
    const CliRun run = runCli(arguments);
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(run.describe()));
    QCOMPARE(folderEntries(dir.path()), QStringList());
}

void TestCliMetaEdit::neverWritesOverTheInput()
{
    QTemporaryDir dir;
    const QString copy = dir.filePath("model.gguf");
    QVERIFY(QFile::copy(fixturePath("v2.gguf"), copy));
    const QByteArray before = readWholeFile(copy);
    const CliRun run = runCli({"meta", copy, "--set", "general.name=x", "-o", copy});
    QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
    QCOMPARE(readWholeFile(copy), before);
    QCOMPARE(folderEntries(dir.path()), QStringList{"model.gguf"});
}

QTEST_GUILESS_MAIN(TestCliMetaEdit)
#include "tst_cli_meta_edit.moc"
