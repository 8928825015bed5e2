// Options whose values come from someone else: regular expressions (--filter, --tensors,
// --tensor-type, rules files people share), rules-file paths, thread counts, importance
// matrices. None may crash, hang or write a broken file: each gives a result or one error line.

#include "CliRunner.h"
#include "Fixtures.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using testsupport::fixturePath;

namespace {

testsupport::CliRun cli(const QStringList& arguments)
{
    return testsupport::runProgram(testsupport::cliPath(), arguments);
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return file.fileName();
}

// A copy of the legacy tiny-llama imatrix whose first value is `value`: llama-quantize's .dat
// layout is i32 entries, then per entry i32 name length, the name, i32 ncall, i32 count, floats.
QString imatrixWithFirstValue(const QTemporaryDir& dir, float value)
{
    QByteArray bytes = testsupport::readWholeFile(fixturePath("llama.cpp/tiny-llama.imatrix.dat"));
    if (bytes.size() < 8)
        return {};
    std::int32_t nameLength = 0;
    std::memcpy(&nameLength, bytes.constData() + 4, 4);
    const qsizetype valueAt = 8 + nameLength + 8;
    if (nameLength <= 0 || valueAt + 4 > bytes.size())
        return {};
    std::memcpy(bytes.data() + valueAt, &value, 4);
    return writeFile(dir, "damaged.imatrix.dat", bytes);
}

bool finishedWithResultOrOneLine(const testsupport::CliRun& run)
{
    return run.finished && !run.crashed && (run.exitCode == 0 || run.failedWithOneLine());
}

}  // namespace

class TestCliUntrustedOptions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath())); }

    // Every way a pattern reaches the tool, with a pattern std::regex could not survive: one
    // nested 50,000 groups deep (its recursive compiler overflows the stack) and `(.*)*z`,
    // which a backtracking matcher explores for minutes on the 21 names of tiny-llama.
    void patternsNeitherHangNorCrash_data()
    {
        QTest::addColumn<QString>("route");
        QTest::addColumn<QString>("pattern");
        const QString deep = QString(50000, '(') + "a" + QString(50000, ')');
        const QStringList routes{"tensors --filter", "compare --filter", "convert --tensors", "convert --tensor-type",
                                 "recipe --tensor-type-file", "convert --recipe"};
        for (const QString& route : routes) {
            QTest::newRow(qPrintable(route + ", nested 50000 deep")) << route << deep;
            QTest::newRow(qPrintable(route + ", (.*)*z")) << route << QStringLiteral("(.*)*z");
            QTest::newRow(qPrintable(route + ", (a|aa)*(b|bb)*c repeated")) << route << QStringLiteral("(a|aa)*(b|bb)*").repeated(200) + "c";
        }
    }

    void patternsNeitherHangNorCrash()
    {
        QFETCH(QString, route);
        QFETCH(QString, pattern);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = fixturePath("tiny-llama-F32.gguf");
        const QString out = dir.filePath("out.gguf");
        const QString rulesFile = writeFile(dir, "rules.txt", (pattern + "=q8_0\n").toUtf8());
        QVERIFY(!rulesFile.isEmpty());
        QStringList arguments;
        if (route == "tensors --filter")
            arguments = {"tensors", model, "--filter", pattern};
        else if (route == "compare --filter")
            arguments = {"compare", model, fixturePath("tiny-llama-Q4_K.gguf"), "--filter", pattern};
        else if (route == "convert --tensors")
            arguments = {"convert", model, out, "--type", "q8_0", "--tensors", pattern};
        else if (route == "convert --tensor-type")
            arguments = {"convert", model, out, "--preset", "Q4_K_M", "--tensor-type", pattern + "=q8_0"};
        else if (route == "recipe --tensor-type-file")
            arguments = {"recipe", model, "--preset", "Q4_K_M", "--tensor-type-file", rulesFile};
        else
            arguments = {"convert", model, out, "--preset", "Q4_K_M", "--recipe", rulesFile};
        const auto run = cli(arguments);
        QVERIFY2(finishedWithResultOrOneLine(run), qPrintable(route + ": " + run.describe().left(2000)));
    }

    // What the linear-time engine cannot run is refused with a reason, never run differently.
    void lookaroundsAndBackReferencesAreRefused()
    {
        for (const QString& pattern : {QStringLiteral("(attn)\\1"), QStringLiteral("attn(?=_v)")}) {
            const auto filter = cli({"tensors", fixturePath("tiny-llama-F32.gguf"), "--filter", pattern});
            QVERIFY2(filter.failedWithOneLine(), qPrintable(filter.describe()));
            QVERIFY2(filter.err.contains("not supported"), qPrintable(filter.describe()));
            const auto rule = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q4_K_M", "--tensor-type", pattern + "=q8_0"});
            QVERIFY2(rule.failedWithOneLine(), qPrintable(rule.describe()));
        }
        // The ECMAScript forms people write for llama-quantize still work.
        const auto ok = cli({"tensors", fixturePath("tiny-llama-F32.gguf"), "--filter", "^blk\\.\\d+\\.(attn_v|ffn_down)\\.weight$"});
        QVERIFY2(ok.exitCode == 0, qPrintable(ok.describe()));
        QCOMPARE(ok.out.count('\n'), 4);
    }

    // A folder opens as a stream that reads nothing; it must not pass for an empty rules file.
    void aFolderIsNoRulesFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = fixturePath("tiny-llama-F32.gguf");
        for (const QStringList& arguments : {QStringList{"convert", model, dir.filePath("out.gguf"), "--preset", "Q4_K_M", "--recipe", dir.path()},
                                             QStringList{"recipe", model, "--preset", "Q4_K_M", "--tensor-type-file", dir.path()}}) {
            const auto run = cli(arguments);
            QVERIFY2(run.failedWithOneLine(), qPrintable(arguments.join(' ') + ": " + run.describe()));
            QVERIFY2(run.err.contains("folder"), qPrintable(run.describe()));
        }
        QVERIFY(!QFile::exists(dir.filePath("out.gguf")));
    }

    // A rules file is bounded: more rules than any model has tensors is refused.
    void rulesFilesAreBounded()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray many;
        for (int i = 0; i < 20000; ++i)
            many += "blk\\." + QByteArray::number(i) + "\\.=q8_0\n";
        const auto run = cli({"recipe", fixturePath("tiny-llama-F32.gguf"), "--preset", "Q4_K_M", "--tensor-type-file",
                              writeFile(dir, "many.txt", many)});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY(run.err.contains("rules"));
    }

    void planThreadsAreCapped()
    {
        const QString model = fixturePath("tiny-llama-F32.gguf");
        const auto tooMany = cli({"plan", model, "--size", "1.2MB", "--threads", "1025"});
        QVERIFY2(tooMany.failedWithOneLine(), qPrintable(tooMany.describe()));
        QCOMPARE(tooMany.exitCode, 2);
        QVERIFY(tooMany.err.contains("1024"));
#if !defined(GGUFX_SANITIZED)
        // Threads the system refuses (here: 1024 thread stacks do not fit 1.5 GB of address
        // space) are an error line, not std::system_error's abort.
        const QString command = QStringLiteral("ulimit -v 1500000 && exec \"$0\" plan \"$1\" --size 1.2MB --threads 1024");
        const auto refused = testsupport::runProgram("/bin/sh", {"-c", command, testsupport::cliPath(), model});
        QVERIFY2(refused.failedWithOneLine(), qPrintable(refused.describe()));
        QVERIFY2(refused.err.contains("cannot start thread"), qPrintable(refused.describe()));
#endif
    }

    // One flipped exponent bit makes an importance sum 3.4e38: finite, so it passed every check,
    // and convert then wrote zeros with NaN scales. Every command that reads an imatrix refuses it.
    void hugeImportanceIsRefused()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString damaged = imatrixWithFirstValue(dir, 3.4e38f);
        QVERIFY(!damaged.isEmpty());
        const QString model = fixturePath("tiny-llama-F32.gguf");
        const QString out = dir.filePath("out.gguf");
        const QList<QStringList> commands{
            {"convert", model, out, "--preset", "Q4_K_M", "--imatrix", damaged},
            {"convert", model, out, "--type", "q4_K", "--imatrix", damaged},
            {"plan", model, "--size", "1.2MB", "--imatrix", damaged},
            {"compare", model, fixturePath("tiny-llama-Q4_K.gguf"), "--imatrix", damaged},
            {"compare", model, fixturePath("tiny-llama-Q4_K.gguf"), "--imatrix", damaged, "--json"},
        };
        for (const QStringList& arguments : commands) {
            const auto run = cli(arguments);
            QVERIFY2(run.failedWithOneLine(), qPrintable(arguments.join(' ') + ": " + run.describe()));
            QVERIFY2(run.err.contains("blk.0.attn_k.weight"), qPrintable(run.describe()));
        }
        QVERIFY(!QFile::exists(out));
        // The same file with an ordinary value still works.
        const QString fine = imatrixWithFirstValue(dir, 40.0f);
        const auto run = cli({"convert", model, out, "--preset", "Q4_K_M", "--imatrix", fine, "--quiet"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    }

    // llama-imatrix pairs blk.N.x with blk.(N-1).x by a regex; the tool's copy of it recursed
    // once per digit and crashed on an entry named "blk." and 100,000 digits.
    void imatrixEntryWithAHugeLayerNumber()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray bytes;
        auto appendInt = [&bytes](std::int32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); };
        appendInt(2);
        for (const QByteArray& name : {"blk." + QByteArray(100000, '1') + ".attn_k.weight", QByteArray("blk.0.attn_k.weight")}) {
            appendInt(std::int32_t(name.size()));
            bytes += name;
            appendInt(1);  // ncall
            appendInt(4);  // values
            for (const float v : {1.0f, 2.0f, 3.0f, 4.0f})
                bytes.append(reinterpret_cast<const char*>(&v), 4);
        }
        const auto run = cli({"imatrix", writeFile(dir, "long-name.imatrix.dat", bytes)});
        QVERIFY2(finishedWithResultOrOneLine(run), qPrintable(run.describe()));
    }

    // compare refuses what convert, kld and plan refuse, in text and in --json: here a negative
    // sum of squares.
    void compareRefusesAMatrixThatFailsValidation()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString negative = imatrixWithFirstValue(dir, -1.0f);
        for (const QStringList& extra : {QStringList{}, QStringList{"--json"}}) {
            const auto run = cli(QStringList{"compare", fixturePath("tiny-llama-F32.gguf"), fixturePath("tiny-llama-Q4_K.gguf"),
                                             "--imatrix", negative} + extra);
            QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
            QVERIFY2(run.err.contains("negative"), qPrintable(run.describe()));
            QVERIFY(run.out.isEmpty());
            const auto plan = cli({"plan", fixturePath("tiny-llama-F32.gguf"), "--size", "1.2MB", "--imatrix", negative});
            QVERIFY2(plan.failedWithOneLine(), qPrintable(plan.describe()));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliUntrustedOptions)
#include "tst_cli_untrusted_options.moc"
