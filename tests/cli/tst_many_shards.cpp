// More mappings than the SIGBUS guard used to have slots for (4,096): a file truncated
// under the 4,200th mapping must read as zeros and be reported, not kill the process; and a
// split model of 4,200 shards opens and reads through the CLI.

#include "CliRunner.h"
#include "core/gguf/MappedFile.h"
#include "SmallModels.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>
#include <unistd.h>

using namespace testsupport;

namespace {
constexpr int kMappings = 4200;

bool ensureDescriptors(rlim_t wanted)
{
    rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return false;
    if (limit.rlim_cur >= wanted)
        return true;
    limit.rlim_cur = std::min<rlim_t>(wanted, limit.rlim_max);
    return ::setrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur >= wanted;
}
}  // namespace

class TestManyShards : public QObject {
    Q_OBJECT

private slots:
    void truncationUnderMapping4200IsSurvived();
    void cliReadsA4200ShardModel();
};

void TestManyShards::truncationUnderMapping4200IsSurvived()
{
    if (!ensureDescriptors(kMappings + 200))
        QSKIP("cannot raise the descriptor limit to 4,400");
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("pages.bin")).toStdString();
    {
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.write(QByteArray(3 * 4096, '\x55')) == 3 * 4096);
    }
    std::vector<std::shared_ptr<gguf::MappedFile>> mappings;
    for (int i = 0; i < kMappings; ++i) {
        auto mapped = gguf::MappedFile::open(path);
        QVERIFY2(mapped, mapped ? "" : mapped.error().toString().c_str());
        mappings.push_back(std::move(mapped.value()));
    }
    QVERIFY(mappings.back()->checkUnchanged());
    QCOMPARE(::truncate(path.c_str(), 0), 0);
    // Without a guard slot this read raises SIGBUS and the suite dies here.
    const volatile std::uint8_t* last = mappings.back()->data();
    QCOMPARE(static_cast<int>(last[2 * 4096 + 7]), 0);
    QCOMPARE(static_cast<int>(mappings.front()->data()[4096]), 0);
    const gguf::Status status = mappings.back()->checkUnchanged();
    QVERIFY(!status);
    QVERIFY2(QString::fromStdString(status.error().message).contains(QLatin1String("vanished")), status.error().message.c_str());
}

void TestManyShards::cliReadsA4200ShardModel()
{
    QVERIFY2(cliIsExecutable(), qPrintable(QStringLiteral("CLI not found at ") + cliPath()));
    QTemporaryDir dir;
    for (int k = 1; k <= kMappings; ++k) {
        char name[64];
        std::snprintf(name, sizeof name, "big-%05d-of-%05d.gguf", k, kMappings);
        std::vector<std::pair<std::string, gguf::EncodedValue>> keys{{"split.no", gguf::EncodedValue::u16(static_cast<std::uint16_t>(k - 1))},
                                                                    {"split.count", gguf::EncodedValue::u16(kMappings)}};
        if (k == 1)
            keys.emplace_back("split.tensors.count", gguf::EncodedValue::i32(kMappings));
        const std::string written = writeSmallModel(dir.filePath(QString::fromLatin1(name)).toStdString(), keys, {{"t" + std::to_string(k), {32}}});
        QVERIFY2(written.empty(), written.c_str());
    }
    const QString first = dir.filePath(QStringLiteral("big-00001-of-04200.gguf"));
    const CliRun run = runCli({QStringLiteral("stats"), first, QStringLiteral("t4200"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("\"count\":32"), run.out.constData());
}

QTEST_GUILESS_MAIN(TestManyShards)
#include "tst_many_shards.moc"
