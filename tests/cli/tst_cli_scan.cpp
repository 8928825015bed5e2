// `scan` and `plan --scan` through the CLI: shards merged give the one-process scan file byte
// for byte; a scan killed half way resumes to the same file; the plan by measured KLD reports
// "predicted_kld" and writes rules `convert --recipe` takes; wrong uses fail with one line: a scan
// of another model or with figures that are no KLD given to plan, a part of another scan given
// to merge, a second scan writing the same file, a --layers range past the model's blocks.

#include "CliRunner.h"
#include "Fixtures.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace testsupport;

namespace {

QByteArray fileBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

// `text` with the first value of `"key":` replaced by `value`.
QByteArray withValue(QByteArray text, const QByteArray& key, const QByteArray& value)
{
    const qsizetype at = text.indexOf("\"" + key + "\":");
    if (at < 0)
        return {};
    const qsizetype start = at + key.size() + 3;
    qsizetype end = start;
    while (end < text.size() && text[end] != ',' && text[end] != '}')
        ++end;
    return text.replace(start, end - start, value);
}

}  // namespace

class TestCliScan : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_text;
    QString m_whole;

    QStringList scanArguments(const QString& out) const
    {
        return {QStringLiteral("scan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--text-file"), m_text, QStringLiteral("--chunk"),
                QStringLiteral("64"), QStringLiteral("--max-tokens"), QStringLiteral("128"), QStringLiteral("--types"), QStringLiteral("q4_K,q8_0"),
                QStringLiteral("--layers"), QStringLiteral("1"), QStringLiteral("--quiet"), QStringLiteral("-o"), out};
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(cliIsExecutable(), qPrintable(cliPath()));
        QVERIFY(m_dir.isValid());
        QFile gpl(QStringLiteral("/usr/share/common-licenses/GPL-3"));
        QVERIFY(gpl.open(QIODevice::ReadOnly));
        m_text = m_dir.filePath(QStringLiteral("calibration.txt"));
        QFile text(m_text);
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write(gpl.read(3000));
        text.close();
        m_whole = m_dir.filePath(QStringLiteral("whole.json"));
        const CliRun run = runCli(scanArguments(m_whole));
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        QVERIFY(run.out.contains("mean KLD when only that group is quantized"));
        QVERIFY2(run.out.contains("mean      trimmed"), qPrintable(run.out));  // the trimmed mean beside the mean
        const QJsonObject scan = QJsonDocument::fromJson(fileBytes(m_whole)).object();
        QCOMPARE(scan.value(QStringLiteral("probes_total")).toInt(), 18);  // (output, token_embd, 7 of block 1) x 2 types
        QCOMPARE(scan.value(QStringLiteral("probes_measured")).toInt(), 18);
    }

    void shardsMergeToTheWholeFile()
    {
        QStringList parts;
        for (const char* shard : {"1/2", "2/2"}) {
            const QString out = m_dir.filePath(QStringLiteral("shard%1.json").arg(QString(shard).left(1)));
            const CliRun run = runCli(scanArguments(out) << QStringLiteral("--shard") << QString(shard));
            QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
            QCOMPARE(QJsonDocument::fromJson(fileBytes(out)).object().value(QStringLiteral("probes_measured")).toInt(), 9);
            parts << out;
        }
        const QString merged = m_dir.filePath(QStringLiteral("merged.json"));
        const CliRun run = runCli(QStringList{QStringLiteral("scan"), QStringLiteral("--merge")} << parts << QStringLiteral("-o") << merged);
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        QCOMPARE(fileBytes(merged), fileBytes(m_whole));
    }

    void resumesAfterAKill()
    {
        const QString out = m_dir.filePath(QStringLiteral("killed.json"));
        QProcess process;
        process.start(cliPath(), scanArguments(out));
        QVERIFY(process.waitForStarted());
        // Killed once some probe is in the file (or it finished first: then resume has nothing to do).
        for (int i = 0; i < 6000 && process.state() != QProcess::NotRunning; ++i) {
            if (QJsonDocument::fromJson(fileBytes(out)).object().value(QStringLiteral("probes_measured")).toInt() > 0) {
                process.kill();
                break;
            }
            process.waitForFinished(20);
        }
        process.waitForFinished();
        const int before = QJsonDocument::fromJson(fileBytes(out)).object().value(QStringLiteral("probes_measured")).toInt();
        qInfo("killed with %d of 18 probes in the file", before);
        const CliRun run = runCli(scanArguments(out) << QStringLiteral("--resume"));
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        QCOMPARE(fileBytes(out), fileBytes(m_whole));

        // Resuming another scan's file is refused.
        QStringList other = scanArguments(out) << QStringLiteral("--resume");
        other[other.indexOf(QStringLiteral("q4_K,q8_0"))] = QStringLiteral("q4_K");
        const CliRun refused = runCli(other);
        QVERIFY2(refused.failedWithOneLine(), qPrintable(refused.describe()));
        QVERIFY(refused.err.contains("another model, text or settings"));
    }

    void planByMeasuredKld()
    {
        const QString rules = m_dir.filePath(QStringLiteral("rules.txt"));
        const CliRun run = runCli({QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"),
                                   QStringLiteral("--scan"), m_whole, QStringLiteral("--json"), QStringLiteral("-o"), rules});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        const QJsonObject plan = QJsonDocument::fromJson(run.out).object().value(QStringLiteral("plan")).toObject();
        QVERIFY(plan.value(QStringLiteral("predicted_kld")).toDouble() > 0);
        QVERIFY(plan.value(QStringLiteral("file_bytes")).toDouble() <= 1.3e6);
        const QString base = plan.value(QStringLiteral("base_preset")).toString();
        const CliRun convert = runCli({QStringLiteral("convert"), fixturePath("tiny-llama-F32.gguf"), m_dir.filePath(QStringLiteral("planned.gguf")),
                                       QStringLiteral("--type"), base, QStringLiteral("--recipe"), rules, QStringLiteral("--quiet")});
        QVERIFY2(convert.finished && convert.exitCode == 0, qPrintable(convert.describe()));
        QCOMPARE(QFileInfo(m_dir.filePath(QStringLiteral("planned.gguf"))).size(), qint64(plan.value(QStringLiteral("file_bytes")).toDouble()));
    }

    // tiny-llama's scan given to plan another llama (three blocks, other shapes), which had it
    // plan with the scan's figures and role averages for the rest; and to plan tiny-moe.
    // A plan is measured before it is offered: with the scan's text, the plan and the best presets
    // within the budget are run on the tokens past the scan's 128, and the plan is offered only
    // when it beats the best of them by more than twice the paired difference's standard error
    // (the median difference agreeing); otherwise that preset is offered and written.
    void planIsMeasuredOnHeldOutText()
    {
        const QString rules = m_dir.filePath(QStringLiteral("held-out-rules.txt"));
        const CliRun run = runCli({QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"),
                                   QStringLiteral("--scan"), m_whole, QStringLiteral("--text-file"), m_text, QStringLiteral("--held-out"),
                                   QStringLiteral("256"), QStringLiteral("--json"), QStringLiteral("-o"), rules});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
        const QJsonObject root = QJsonDocument::fromJson(run.out).object();
        const QJsonObject heldOut = root.value(QStringLiteral("held_out")).toObject();
        QCOMPARE(heldOut.value(QStringLiteral("tokens")).toInt(), 256);
        QCOMPARE(heldOut.value(QStringLiteral("positions")).toInt(), 4 * (64 - 1 - 32));
        const QJsonArray mixes = heldOut.value(QStringLiteral("mixes")).toArray();
        QVERIFY(mixes.size() >= 2);
        QCOMPARE(mixes[0].toObject().value(QStringLiteral("label")).toString(), QStringLiteral("plan"));
        const QString best = heldOut.value(QStringLiteral("best_preset")).toString();
        QJsonObject bestMix;
        for (const QJsonValue& mix : mixes) {
            const QJsonObject m = mix.toObject();
            QVERIFY(m.value(QStringLiteral("mean_kld")).toDouble() > 0);
            QVERIFY(m.value(QStringLiteral("mean_kld_error")).toDouble() > 0);
            if (m.value(QStringLiteral("label")).toString() == best)
                bestMix = m;
        }
        QVERIFY(!bestMix.isEmpty());
        const double difference = bestMix.value(QStringLiteral("difference_mean")).toDouble();
        const double error = bestMix.value(QStringLiteral("difference_error")).toDouble();
        const bool wins = difference > 2 * error && bestMix.value(QStringLiteral("difference_median")).toDouble() > 0;
        QCOMPARE(heldOut.value(QStringLiteral("plan_wins")).toBool(), wins);
        qInfo("held out: plan %.6f, %s %.6f; %s minus plan %.6f +- %.6f: %s offered", mixes[0].toObject().value(QStringLiteral("mean_kld")).toDouble(),
              qPrintable(best), bestMix.value(QStringLiteral("mean_kld")).toDouble(), qPrintable(best), difference, error, wins ? "the plan" : "the preset");
        const QJsonObject offered = root.value(QStringLiteral("offered")).toObject();
        QCOMPARE(offered.value(QStringLiteral("kind")).toString(), wins ? QStringLiteral("plan") : QStringLiteral("preset"));
        const QJsonObject plan = root.value(QStringLiteral("plan")).toObject();
        if (wins) {
            QCOMPARE(offered.value(QStringLiteral("rules")).toArray(), plan.value(QStringLiteral("rules")).toArray());
        } else {
            QCOMPARE(offered.value(QStringLiteral("base_preset")).toString(), best);
            QVERIFY(offered.value(QStringLiteral("rules")).toArray().isEmpty());
            QVERIFY(fileBytes(rules).isEmpty());  // the preset alone: no rules
        }

        // The text must be the scan's, and long enough to hold a chunk past it.
        const QString other = m_dir.filePath(QStringLiteral("other.txt"));
        QVERIFY(writeFile(other, QByteArray(3000, 'x')));
        CliRun refused = runCli({QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"),
                                 QStringLiteral("--scan"), m_whole, QStringLiteral("--text-file"), other});
        QVERIFY2(refused.failedWithOneLine() && refused.err.contains("not the one the scan was measured on"), qPrintable(refused.describe()));
        const QString shortText = m_dir.filePath(QStringLiteral("short.txt"));
        QVERIFY(writeFile(shortText, fileBytes(m_text).left(40)));
        refused = runCli({QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"),
                          QStringLiteral("--scan"), m_whole, QStringLiteral("--text-file"), shortText});
        QVERIFY2(refused.failedWithOneLine(), qPrintable(refused.describe()));
    }

    void planRefusesAScanOfAnotherModel_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("size");
        QTest::addColumn<QString>("expected");
        QTest::newRow("llama of other shapes") << fixturePath("llama.cpp/arch/llama/llama-F32.gguf") << QStringLiteral("1MB")
                                               << QStringLiteral("output.weight has 131072 elements in rows of 256 in the scan, 49152 in rows of 128");
        QTest::newRow("moe") << fixturePath("tiny-moe-F16.gguf") << QStringLiteral("30MB") << QStringLiteral("is not a tensor of this one");
    }

    void planRefusesAScanOfAnotherModel()
    {
        QFETCH(QString, model);
        QFETCH(QString, size);
        QFETCH(QString, expected);
        const CliRun run = runCli({QStringLiteral("plan"), model, QStringLiteral("--size"), size, QStringLiteral("--scan"), m_whole});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("the scan is of another model") && run.err.contains(expected.toUtf8()), qPrintable(run.describe()));
    }

    // Figures that are no mean KL divergence are refused when read, naming the probe and value.
    void planRefusesFiguresThatAreNoKld_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("nan") << QByteArray("\"nan\"") << QStringLiteral("\"kld\" is nan");
        QTest::newRow("-inf") << QByteArray("\"-inf\"") << QStringLiteral("\"kld\" is -inf");
        QTest::newRow("negative") << QByteArray("-0.5") << QStringLiteral("\"kld\" is -0.5");
    }

    void planRefusesFiguresThatAreNoKld()
    {
        QFETCH(QByteArray, value);
        QFETCH(QString, expected);
        const QString edited = m_dir.filePath(QStringLiteral("kld-%1.json").arg(QString::fromLatin1(QTest::currentDataTag())));
        QVERIFY(writeFile(edited, withValue(fileBytes(m_whole), "kld", value)));
        const CliRun run = runCli({QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"),
                                   QStringLiteral("--scan"), edited});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains(expected.toUtf8()) && run.err.contains("probe 0 (output.weight as q4_K)") && run.err.contains("(at byte "),
                 qPrintable(run.describe()));
    }

    // A part with other labels, tokens, chunks or model, its fingerprint left as it was, is not
    // merged: the refusal names what differs.
    void mergeRefusesAPartOfAnotherScan_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("tensor label") << QByteArray("tensor") << QByteArray("\"blk.1.attn_qq.weight\"") << QStringLiteral("group 0's tensors differ");
        QTest::newRow("tokens") << QByteArray("tokens") << QByteArray("192") << QStringLiteral("the tokens differ: part 2 has 192, part 1 128");
        QTest::newRow("chunk") << QByteArray("\"chunk_size\":64,\"tokens\":128,\"scored_per_chunk\":31")
                               << QByteArray("\"chunk_size\":32,\"tokens\":128,\"scored_per_chunk\":15")
                               << QStringLiteral("the chunks differ: part 2 has chunks of 32, part 1 chunks of 64");
        QTest::newRow("model") << QByteArray("model") << QByteArray("\"/elsewhere/m.gguf\"") << QStringLiteral("the models differ");
        QTest::newRow("types") << QByteArray("\"types\":[\"q4_K\",\"q8_0\"]") << QByteArray("\"types\":[\"q4_K\",\"q8_0\",\"q6_K\"]")
                               << QStringLiteral("the types differ: part 2 has q4_K,q8_0,q6_K, part 1 q4_K,q8_0");
        QTest::newRow("imatrix") << QByteArray("\"imatrix\":null") << QByteArray("\"imatrix\":\"/x.imatrix\"")
                                 << QStringLiteral("the importance matrices differ: part 2 has /x.imatrix, part 1 none");
        QTest::newRow("fingerprint") << QByteArray("fingerprint") << QByteArray('"' + QByteArray(64, 'f') + '"') << QStringLiteral("the fingerprint differs");
    }

    void mergeRefusesAPartOfAnotherScan()
    {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, value);
        QFETCH(QString, expected);
        const QString edited = m_dir.filePath(QStringLiteral("part-%1.json").arg(QString::fromLatin1(QTest::currentDataTag()).replace(' ', '-')));
        // A key in quotes: that text replaced as it is.
        const QByteArray bytes = key.startsWith('"') ? fileBytes(m_whole).replace(key, value) : withValue(fileBytes(m_whole), key, value);
        QVERIFY(!bytes.isEmpty() && bytes != fileBytes(m_whole));
        QVERIFY(writeFile(edited, bytes));
        const QString merged = m_dir.filePath(QStringLiteral("not-merged.json"));
        const CliRun run = runCli({QStringLiteral("scan"), QStringLiteral("--merge"), m_whole, edited, QStringLiteral("-o"), merged});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("part 2 is not a part of the scan part 1 is of") && run.err.contains(expected.toUtf8()), qPrintable(run.describe()));
        QVERIFY(!QFileInfo::exists(merged));
    }

    // While another process holds the output's lock (this test, as a second scan would), a scan
    // and a merge into that output are refused at once and write nothing.
    void secondWriterIsRefused()
    {
        const QString out = m_dir.filePath(QStringLiteral("shared.json"));
        const QByteArray lockPath = QFile::encodeName(out + QStringLiteral(".lock"));
        const int fd = ::open(lockPath.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);
        const CliRun scan = runCli(scanArguments(out) << QStringLiteral("--shard") << QStringLiteral("2/2"));
        const CliRun merge = runCli({QStringLiteral("scan"), QStringLiteral("--merge"), m_whole, QStringLiteral("-o"), out});
        ::close(fd);
        for (const CliRun& run : {scan, merge}) {
            QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
            QVERIFY2(run.err.contains("another process is writing this output") && run.err.contains("shared.json.lock"), qPrintable(run.describe()));
        }
        QVERIFY(!QFileInfo::exists(out));
        // Released, the output is free again, and a run leaves no lock file behind.
        const CliRun free = runCli({QStringLiteral("scan"), QStringLiteral("--merge"), m_whole, QStringLiteral("-o"), out});
        QVERIFY2(free.finished && free.exitCode == 0, qPrintable(free.describe()));
        QVERIFY(!QFileInfo::exists(out + QStringLiteral(".lock")));
        QVERIFY(!QFileInfo::exists(m_whole + QStringLiteral(".lock")));
    }

    // A range far past the model's two blocks is refused (it once ran for minutes first).
    void hugeLayerRangeIsRefused()
    {
        QStringList arguments = scanArguments(m_dir.filePath(QStringLiteral("huge-range.json")));
        arguments[arguments.indexOf(QStringLiteral("--layers")) + 1] = QStringLiteral("0-1048576");
        const CliRun run = runCli(arguments);
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("layer 1048576 is not one of the model's 2 blocks"), qPrintable(run.describe()));
    }

    void wrongUsesFailWithOneLine()
    {
        const QString partial = m_dir.filePath(QStringLiteral("shard1.json"));
        const QList<QStringList> cases = {
            scanArguments(m_dir.filePath(QStringLiteral("x.json"))) << QStringLiteral("--shard") << QStringLiteral("3/2"),
            {QStringLiteral("scan"), fixturePath("tiny-llama-F32.gguf")},
            {QStringLiteral("scan"), fixturePath("tiny-llama-Q4_K.gguf"), QStringLiteral("--tokens"), QStringLiteral("1,2,3,4,5,6,7,8")},
            {QStringLiteral("scan"), QStringLiteral("--merge"), m_whole},
            {QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"), QStringLiteral("--scan"), partial},
            {QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"), QStringLiteral("--scan"),
             m_whole, QStringLiteral("--imatrix"), fixturePath("llama.cpp/tiny-llama.imatrix.gguf")},
            {QStringLiteral("plan"), fixturePath("tiny-llama-F32.gguf"), QStringLiteral("--size"), QStringLiteral("1.3MB"), QStringLiteral("--scan"), m_text},
        };
        for (const QStringList& arguments : cases) {
            const CliRun run = runCli(arguments);
            QVERIFY2(run.failedWithOneLine(), qPrintable(arguments.join(' ') + ": " + run.describe()));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliScan)
#include "tst_cli_scan.moc"
