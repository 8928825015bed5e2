// convert --imatrix: the importance-weighted conversion against llama-quantize --imatrix. For
// the fixtures of ../shared/fixtures/llama.cpp/ (README §4), every tensor that llama-quantize
// wrote in the conversion's target type must come out byte-identical (the recipe's other
// types are --type PRESET's); through the CLI, and through convertModel with small
// chunks on several threads so chunks straddle rows of different experts.

#include "TestPools.h"
#include "CliRunner.h"
#include "Fixtures.h"
#include "OpenFixture.h"
#include "core/gguf/Model.h"
#include "core/quantize/Conversion.h"
#include "core/quantize/ImportanceWeights.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace gguf;
using testsupport::fixturePath;

namespace {

// Tensors of `expected` stored in `typeName` and how many of them `produced` holds byte for byte.
struct Agreement {
    int inType = 0;
    int identical = 0;
    QStringList differing;
};

Agreement compareTensors(const Model& produced, const GgufFile& expected, const char* typeName)
{
    Agreement agreement;
    for (const TensorInfo& tensor : expected.tensors()) {
        if (std::strcmp(tensor.traits->name, typeName) != 0)
            continue;
        ++agreement.inType;
        const TensorInfo* ours = produced.findTensor(tensor.name);
        if (ours && ours->typeId == tensor.typeId && ours->nbytes == tensor.nbytes
            && std::memcmp(ours->data, tensor.data, std::size_t(tensor.nbytes)) == 0)
            ++agreement.identical;
        else
            agreement.differing << QLatin1String(tensor.name);
    }
    return agreement;
}

}  // namespace

class ConvertImatrixTest : public QObject {
    Q_OBJECT

private slots:
    void cliMatchesLlamaQuantize_data();
    void cliMatchesLlamaQuantize();
    void chunkedThreadedMatches();
    void rejectsBadImatrix();

private:
    QTemporaryDir m_dir;
};

void ConvertImatrixTest::cliMatchesLlamaQuantize_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("imatrix");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("type");
    QTest::addColumn<int>("tensors");
    const QString llama = QStringLiteral("llama.cpp/tiny-llama.imatrix.gguf");
    const QString moe = QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf");
    QTest::newRow("tiny-llama q2_K") << "tiny-llama-F32.gguf" << llama << "llama.cpp/tiny-llama-imat-Q2_K_S.gguf" << "q2_K" << 15;
    QTest::newRow("tiny-llama q4_K") << "tiny-llama-F32.gguf" << llama << "llama.cpp/tiny-llama-imat-Q4_K_M.gguf" << "q4_K" << 13;
    QTest::newRow("tiny-llama iq4_nl") << "tiny-llama-F32.gguf" << llama << "llama.cpp/tiny-llama-imat-IQ4_NL.gguf" << "iq4_nl" << 15;
    QTest::newRow("tiny-llama q5_1") << "tiny-llama-F32.gguf" << llama << "llama.cpp/tiny-llama-imat-Q5_1.gguf" << "q5_1" << 15;
    QTest::newRow("tiny-moe q4_K") << "tiny-moe-F16.gguf" << moe << "llama.cpp/tiny-moe-imat-Q4_K_M.gguf" << "q4_K" << 8;
    QTest::newRow("tiny-moe iq4_xs") << "tiny-moe-F16.gguf" << moe << "llama.cpp/tiny-moe-imat-IQ4_XS.gguf" << "iq4_xs" << 9;
}

void ConvertImatrixTest::cliMatchesLlamaQuantize()
{
    QFETCH(QString, source);
    QFETCH(QString, imatrix);
    QFETCH(QString, expected);
    QFETCH(QString, type);
    QFETCH(int, tensors);
    QVERIFY(m_dir.isValid());
    QVERIFY2(testsupport::cliIsExecutable(), qPrintable(testsupport::cliPath()));
    const QString output = m_dir.filePath(QStringLiteral("%1-%2.gguf").arg(QFileInfo(source).baseName(), type));
    const testsupport::CliRun run = testsupport::runCli(
        {QStringLiteral("convert"), fixturePath(source), output, QStringLiteral("--type"), type, QStringLiteral("--imatrix"), fixturePath(imatrix)});
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("with importance weights"), run.out.constData());

    const auto produced = testsupport::openModelAt(output);
    const auto reference = testsupport::openFixtureFile(expected);
    QVERIFY(produced && reference);
    const Agreement agreement = compareTensors(*produced, *reference, qPrintable(type));
    QVERIFY2(agreement.differing.isEmpty(), qPrintable(agreement.differing.join(QStringLiteral(", "))));
    QCOMPARE(agreement.inType, tensors);
    QCOMPARE(agreement.identical, tensors);
    const MetadataEntry* entries = produced->primary().findMetadata("quantize.imatrix.entries_count");
    QVERIFY(entries);
    QCOMPARE(entries->value.toUInt().value_or(0), std::uint64_t(imatrix.contains(QLatin1String("moe")) ? 16 : 14));
}

void ConvertImatrixTest::chunkedThreadedMatches()
{
    auto model = Model::open(fixturePath(QStringLiteral("tiny-moe-F16.gguf")).toStdString());
    QVERIFY(model);
    auto importance = ImportanceWeights::load(fixturePath(QStringLiteral("llama.cpp/tiny-moe.imatrix.gguf")).toStdString());
    QVERIFY(importance);
    ConversionOptions options;
    options.targetType = typeIdValue(GgmlTypeId::Q4_K);
    options.importance = &*importance;
    options.chunkElements = 5000;  // 19 rows of 256: chunks cross expert boundaries (512 rows each)
    options.executor = &testsupport::poolOf(3);
    const QString output = m_dir.filePath(QStringLiteral("chunked.gguf"));
    auto plan = convertModel(**model, output.toStdString(), options);
    QVERIFY2(plan, plan ? "" : plan.error().toString().c_str());
    QCOMPARE(plan->weightedCount, std::size_t(14));
    const auto produced = testsupport::openModelAt(output);
    const auto reference = testsupport::openFixtureFile(QStringLiteral("llama.cpp/tiny-moe-imat-Q4_K_M.gguf"));
    QVERIFY(produced && reference);
    const Agreement agreement = compareTensors(*produced, *reference, "q4_K");
    QVERIFY2(agreement.differing.isEmpty(), qPrintable(agreement.differing.join(QStringLiteral(", "))));
    QCOMPARE(agreement.identical, 8);
}

void ConvertImatrixTest::rejectsBadImatrix()
{
    QVERIFY(m_dir.isValid());
    const QString output = m_dir.filePath(QStringLiteral("bad.gguf"));
    const QString model = fixturePath(QStringLiteral("tiny-llama-F32.gguf"));
    // Missing file, and a GGUF file that is a model, not an imatrix: one line each, no output.
    for (const QString& imatrix : {m_dir.filePath(QStringLiteral("missing.imatrix")), model}) {
        const testsupport::CliRun run = testsupport::runCli(
            {QStringLiteral("convert"), model, output, QStringLiteral("--type"), QStringLiteral("q4_K"), QStringLiteral("--imatrix"), imatrix});
        QVERIFY2(run.failedWithOneLine(), qPrintable(run.describe()));
        QVERIFY2(run.err.contains("importance matrix"), run.err.constData());
        QVERIFY(!QFileInfo::exists(output));
    }
}

QTEST_GUILESS_MAIN(ConvertImatrixTest)
#include "tst_convert_imatrix.moc"
