// A model file that changes on disk while it is open (truncated, rewritten in place, replaced,
// deleted) must never crash the process: reads of vanished bytes become errors that name the
// tensor, metadata stays as it was validated, and the mapping reports that the file changed.
// Each test works on a private copy of a fixture.

#include "core/blocks/BlockScales.h"
#include "core/quantize/Conversion.h"
#include "core/gguf/Dequantize.h"
#include "Fixtures.h"
#include "core/gguf/MetadataFormat.h"
#include "core/gguf/Model.h"
#include "core/analysis/Statistics.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <fcntl.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace testsupport;

namespace {

const QString kFixture = QStringLiteral("tiny-llama-Q4_K.gguf");

// Every metadata entry and tensor info as text: what a metadata view would show.
QStringList describeModel(const gguf::Model& model)
{
    QStringList lines;
    for (const gguf::MetadataEntry& entry : model.metadata())
        lines << QString::fromStdString(std::string(entry.key) + " " + entry.value.typeName() + " " + gguf::formatValue(entry.value, 32));
    for (const gguf::TensorInfo& tensor : model.tensors())
        lines << QString::fromStdString(std::string(tensor.name) + " " + std::to_string(tensor.typeId) + " " + std::to_string(tensor.ne[0]) + "x"
                                        + std::to_string(tensor.ne[1]) + " @" + std::to_string(tensor.fileOffset));
    return lines;
}

gguf::Result<std::vector<float>> dequantizeAll(const gguf::TensorInfo& tensor)
{
    std::vector<float> values(tensor.elementCount());
    if (gguf::Status s = gguf::dequantizeElements(tensor, 0, values.size(), values); !s)
        return s.error();
    return values;
}

// A metadata-only file whose header is `count` strings of `length` copies of `letter` (the
// 10M-entry vocabulary of a hostile header in miniature, but past the 64 MiB the header copy once
// stopped at). Same size for every letter, so one can be written over the other in place.
QByteArray bigStringArrayFile(char letter, quint64 count, quint64 length)
{
    QByteArray bytes;
    bytes.reserve(int(64 + count * (8 + length)));
    const auto append = [&bytes](quint64 value, int size) {
        for (int i = 0; i < size; ++i)
            bytes.append(char((value >> (8 * i)) & 0xFF));
    };
    bytes.append("GGUF", 4);
    append(3, 4);  // version
    append(0, 8);  // tensors
    append(1, 8);  // metadata keys
    const QByteArray key = "test.big";
    append(quint64(key.size()), 8);
    bytes.append(key);
    append(9, 4);  // array
    append(8, 4);  // of strings
    append(count, 8);
    const QByteArray element(int(length), letter);
    for (quint64 i = 0; i < count; ++i) {
        append(length, 8);
        bytes.append(element);
    }
    return bytes;
}

bool setFileSize(const QString& path, qint64 size)
{
    return ::truncate(QFile::encodeName(path).constData(), size) == 0;
}

// A SIGBUS handler installed before the core's, to prove the core hands on faults that are not its own.
sigjmp_buf g_foreignFaultJump;
volatile std::sig_atomic_t g_foreignFaults = 0;
void foreignSigbusHandler(int)
{
    g_foreignFaults = g_foreignFaults + 1;
    siglongjmp(g_foreignFaultJump, 1);
}

}  // namespace

class TestFileChanges : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void untouchedFileIsIntact();
    void truncatedTensorsFailWithTheirName();
    void truncatedToZeroKeepsMetadata();
    void faultInWorkerThreadIsAnError();
    void rewrittenInPlaceKeepsValidatedMetadata();
    void largeHeaderRewrittenInPlaceKeepsValidatedMetadata();
    void convertFromTruncatedF32FailsWithTheName();
    void replacedByRenameIsReported();
    void deletedIsReported();
    void foreignSigbusReachesThePreviousHandler();

private:
    std::shared_ptr<const gguf::Model> openCopy();

    QTemporaryDir m_dir;
    QString m_path;
};

void TestFileChanges::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // Installed before any file is opened, so the core's handler (installed on first open)
    // finds it as the previous handler.
    struct sigaction action {};
    action.sa_handler = foreignSigbusHandler;
    sigemptyset(&action.sa_mask);
    QCOMPARE(::sigaction(SIGBUS, &action, nullptr), 0);
}

void TestFileChanges::init()
{
    m_path = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + QStringLiteral(".gguf"));
    QFile::remove(m_path);
    QVERIFY(QFile::copy(fixturePath(kFixture), m_path));
    QVERIFY(QFile::setPermissions(m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
}

std::shared_ptr<const gguf::Model> TestFileChanges::openCopy()
{
    auto model = gguf::Model::open(m_path.toStdString());
    if (!model)
        qWarning("%s", model.error().toString().c_str());
    return model ? model.value() : nullptr;
}

void TestFileChanges::untouchedFileIsIntact()
{
    const auto model = openCopy();
    QVERIFY(model);
    const gguf::Status status = model->primary().mapping().checkUnchanged();
    QVERIFY2(status.ok(), status ? "" : status.error().toString().c_str());
    QVERIFY(model->primary().mapping().stillIntact());
    for (const gguf::TensorInfo& tensor : model->tensors())
        QVERIFY(dequantizeAll(tensor).ok());
}

void TestFileChanges::truncatedTensorsFailWithTheirName()
{
    const auto model = openCopy();
    QVERIFY(model);
    const gguf::TensorInfo* early = model->findTensor("token_embd.weight");
    const gguf::TensorInfo* late = model->findTensor("output.weight");
    QVERIFY(early && late);
    const auto earlyBefore = dequantizeAll(*early);
    QVERIFY(earlyBefore.ok() && dequantizeAll(*late).ok());  // its pages are now in the page cache
    const QStringList metadataBefore = describeModel(*model);

    // Cut on a page boundary well after token_embd and well before output.weight.
    const std::uint64_t cut = (early->fileOffset + early->nbytes + 8192) / 4096 * 4096;
    QVERIFY(cut < late->fileOffset);
    QVERIFY(setFileSize(m_path, static_cast<qint64>(cut)));

    const gguf::Status intact = model->primary().mapping().checkUnchanged();
    QVERIFY(!intact);
    QVERIFY2(QString::fromStdString(intact.error().message).contains(QStringLiteral("truncated")), intact.error().message.c_str());

    const auto lateAfter = dequantizeAll(*late);
    QVERIFY2(!lateAfter, "reading a truncated tensor succeeded");
    const gguf::Error& error = lateAfter.error();
    QVERIFY2(QString::fromStdString(error.message).contains(QStringLiteral("output.weight")), error.message.c_str());
    QVERIFY2(QString::fromStdString(error.message).contains(QStringLiteral("changed on disk")), error.message.c_str());
    QVERIFY2(error.offset >= late->fileOffset && error.offset < late->fileOffset + late->nbytes && error.offset >= cut,
             qPrintable(QStringLiteral("fault offset %1 is not a vanished byte of the tensor").arg(error.offset)));

    // Block scales and statistics read through the same guarded paths.
    gguf::BlockScales scales;
    QVERIFY(!gguf::extractRowScales(*late, 0, static_cast<std::uint64_t>(late->ne[1]), scales));
    QVERIFY(!gguf::computeStatistics(gguf::wholeTensor(*late), 10));

    // What is still on disk reads as before, and the header was frozen at open.
    const auto earlyAfter = dequantizeAll(*early);
    QVERIFY(earlyAfter.ok());
    QVERIFY(std::memcmp(earlyAfter->data(), earlyBefore->data(), earlyBefore->size() * sizeof(float)) == 0);
    QCOMPARE(describeModel(*model), metadataBefore);
    QVERIFY(!model->primary().mapping().stillIntact());
}

void TestFileChanges::truncatedToZeroKeepsMetadata()
{
    // What `cp other.gguf model.gguf` does first.
    const auto model = openCopy();
    QVERIFY(model);
    const QStringList metadataBefore = describeModel(*model);
    QVERIFY(setFileSize(m_path, 0));
    QCOMPARE(describeModel(*model), metadataBefore);
    int failures = 0;
    for (const gguf::TensorInfo& tensor : model->tensors()) {
        const auto values = dequantizeAll(tensor);
        // Every tensor has bytes past the frozen header page; some share pages that an earlier
        // read already replaced by zeros, and must fail all the same.
        if (!values) {
            QVERIFY(QString::fromStdString(values.error().message).contains(QString::fromUtf8(tensor.name.data(), int(tensor.name.size()))));
            ++failures;
        }
    }
    QCOMPARE(failures, int(model->tensors().size()));
    QCOMPARE(describeModel(*model), metadataBefore);
}

void TestFileChanges::faultInWorkerThreadIsAnError()
{
    const auto model = openCopy();
    QVERIFY(model);
    const gguf::TensorInfo* late = model->findTensor("blk.1.ffn_down.weight");
    QVERIFY(late);
    QVERIFY(setFileSize(m_path, static_cast<qint64>(late->fileOffset / 4096 * 4096)));
    bool failed = false;
    std::string message;
    std::thread worker([&] {
        const auto values = dequantizeAll(*late);
        failed = !values;
        message = failed ? values.error().message : std::string();
    });
    worker.join();
    QVERIFY(failed);
    QVERIFY2(QString::fromStdString(message).contains(QStringLiteral("blk.1.ffn_down.weight")), message.c_str());
}

void TestFileChanges::rewrittenInPlaceKeepsValidatedMetadata()
{
    const auto model = openCopy();
    QVERIFY(model);
    const QStringList metadataBefore = describeModel(*model);
    // Garbage over the whole header and the first tensor, same size: no SIGBUS, but a reader of
    // the live bytes would walk absurd lengths.
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.seek(8));
    QVERIFY(file.write(QByteArray(int(model->primary().dataOffset()) + 4096, '\xff')) > 0);
    file.close();
    QCOMPARE(describeModel(*model), metadataBefore);
    const gguf::Status intact = model->primary().mapping().checkUnchanged();
    QVERIFY(!intact);
    QVERIFY2(QString::fromStdString(intact.error().message).contains(QStringLiteral("modified")), intact.error().message.c_str());
    // Tensor bytes are read live; whatever they are now, the kernels stay inside the tensor.
    for (const gguf::TensorInfo& tensor : model->tensors())
        QVERIFY(dequantizeAll(tensor).ok());
}

void TestFileChanges::largeHeaderRewrittenInPlaceKeepsValidatedMetadata()
{
    constexpr quint64 kCount = 1200000;
    constexpr quint64 kLength = 56;  // 76.8 MB of header
    const QByteArray original = bigStringArrayFile('a', kCount, kLength);
    QVERIFY(original.size() > 64 * 1024 * 1024);
    {
        QFile file(m_path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(file.write(original), qint64(original.size()));
    }
    const auto model = openCopy();
    QVERIFY(model);
    const gguf::MetadataEntry* entry = model->primary().findMetadata("test.big");
    QVERIFY(entry);
    const std::string expected(kLength, 'a');
    const auto everyElementIsOriginal = [&] {
        const std::vector<std::uint64_t> offsets = entry->value.elementOffsets();
        if (offsets.size() != kCount)
            return false;
        for (const std::uint64_t offset : offsets)
            if (entry->value.elementAt(offset).toStringView() != expected)
                return false;
        return true;
    };
    const QStringList before = describeModel(*model);
    QVERIFY(everyElementIsOriginal());

    // A real concurrent writer: same-size rewrites alternating between other letters and string
    // lengths of 2^40 (which a reader of the live bytes would run past the file with), while
    // this thread walks every element.
    QByteArray hostile = bigStringArrayFile('b', kCount, kLength);
    for (quint64 i = 0; i < kCount; i += 2) {
        const int at = int(56 + i * (8 + kLength));  // the element's length field
        hostile[at + 5] = 1;                          // 2^40 + 56
    }
    std::atomic<bool> stop{false};
    std::atomic<int> rewrites{0};
    std::thread writer([&] {
        QFile file(m_path);
        if (!file.open(QIODevice::ReadWrite))
            return;
        while (!stop.load()) {
            file.seek(0);
            file.write(rewrites.load() % 2 ? original : hostile);
            file.flush();
            rewrites.fetch_add(1);
        }
    });
    bool stable = true;
    for (int pass = 0; pass < 3 && stable; ++pass)
        stable = everyElementIsOriginal() && describeModel(*model) == before;
    while (rewrites.load() < 2)
        std::this_thread::yield();
    stop.store(true);
    writer.join();
    QVERIFY(stable);
    // And once the last rewrite is certainly on disk:
    {
        QFile file(m_path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QCOMPARE(file.write(hostile), qint64(hostile.size()));
    }
    QVERIFY(everyElementIsOriginal());
    QCOMPARE(describeModel(*model), before);
    const gguf::Status intact = model->primary().mapping().checkUnchanged();
    QVERIFY(!intact);
}

// convert quantizes f32 tensors straight from the mapping (no copy into chunks): a truncation
// under it must still be an error naming the tensor, not quantized zeros.
void TestFileChanges::convertFromTruncatedF32FailsWithTheName()
{
    QFile::remove(m_path);
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-F32.gguf")), m_path));
    QVERIFY(QFile::setPermissions(m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    const auto model = openCopy();
    QVERIFY(model);
    const gguf::TensorInfo* late = model->findTensor("output.weight");
    QVERIFY(late && late->typeId == 0 && late->nDims == 2);
    QVERIFY(setFileSize(m_path, static_cast<qint64>((late->fileOffset + 4096) / 4096 * 4096)));
    gguf::ConversionOptions options;
    options.targetType = 8;  // q8_0
    const QString output = m_dir.filePath(QStringLiteral("converted.gguf"));
    const auto converted = gguf::convertModel(*model, output.toStdString(), options);
    QVERIFY(!converted);
    QVERIFY2(QString::fromStdString(converted.error().message).contains(QStringLiteral("output.weight")),
             converted.error().message.c_str());
    QVERIFY(!QFile::exists(output));
}

void TestFileChanges::replacedByRenameIsReported()
{
    const auto model = openCopy();
    QVERIFY(model);
    const gguf::TensorInfo* tensor = model->findTensor("output.weight");
    const auto before = dequantizeAll(*tensor);
    QVERIFY(before.ok());
    const QString other = m_path + QStringLiteral(".new");
    QVERIFY(QFile::copy(fixturePath(QStringLiteral("tiny-llama-Q8_0.gguf")), other));
    QVERIFY(::rename(QFile::encodeName(other).constData(), QFile::encodeName(m_path).constData()) == 0);

    const gguf::Status intact = model->primary().mapping().checkUnchanged();
    QVERIFY(!intact);
    QVERIFY2(QString::fromStdString(intact.error().message).contains(QStringLiteral("replaced")), intact.error().message.c_str());
    // The mapping still holds the old file, which stays alive until it is closed.
    const auto after = dequantizeAll(*tensor);
    QVERIFY(after.ok());
    QVERIFY(std::memcmp(after->data(), before->data(), before->size() * sizeof(float)) == 0);
}

void TestFileChanges::deletedIsReported()
{
    const auto model = openCopy();
    QVERIFY(model);
    QVERIFY(QFile::remove(m_path));
    const gguf::Status intact = model->primary().mapping().checkUnchanged();
    QVERIFY(!intact);
    QVERIFY2(QString::fromStdString(intact.error().message).contains(QStringLiteral("deleted")), intact.error().message.c_str());
    QVERIFY(dequantizeAll(model->tensors().back()).ok());
}

void TestFileChanges::foreignSigbusReachesThePreviousHandler()
{
    const auto model = openCopy();  // makes sure the core's handler is installed
    QVERIFY(model);
    // A mapping the core knows nothing about: its SIGBUS must reach the handler installed before.
    const QString path = m_dir.filePath(QStringLiteral("foreign.bin"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.write(QByteArray(3 * 4096, 'x')) == 3 * 4096);
    file.close();
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY);
    QVERIFY(fd >= 0);
    void* mapping = ::mmap(nullptr, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    QVERIFY(mapping != MAP_FAILED);
    QVERIFY(setFileSize(path, 4096));
    const auto* bytes = static_cast<const volatile char*>(mapping);
    const int before = g_foreignFaults;
    char seen = 0;
    if (sigsetjmp(g_foreignFaultJump, 1) == 0)
        seen = bytes[2 * 4096];  // past the new end: SIGBUS
    ::munmap(mapping, 3 * 4096);
    QCOMPARE(int(g_foreignFaults), before + 1);
    QCOMPARE(seen, char(0));
    QVERIFY(model->primary().mapping().stillIntact());  // a foreign fault is not charged to the model
}

QTEST_GUILESS_MAIN(TestFileChanges)
#include "tst_file_changes.moc"
