// The core's SHA-256 (used by `check` for per-tensor fingerprints) against the FIPS 180-4
// example vectors, against Qt's implementation on every length around the block and padding
// boundaries fed in uneven pieces, and the SHA-extension block function against the portable one.

#include "core/base/Sha256.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QtTest>

namespace {
std::string hexOf(const QByteArray& bytes)
{
    return gguf::Sha256::toHex(gguf::Sha256::of({reinterpret_cast<const std::uint8_t*>(bytes.constData()), std::size_t(bytes.size())}));
}
}  // namespace

class TestSha256 : public QObject {
    Q_OBJECT

private slots:
    void knownVectors_data();
    void knownVectors();
    void matchesQtAtEveryLengthAndSplit();
    void acceleratedMatchesPortable();
};

void TestSha256::knownVectors_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<QByteArray>("digest");
    QTest::newRow("empty") << QByteArray() << QByteArray("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    QTest::newRow("abc") << QByteArray("abc") << QByteArray("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                              << QByteArray("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    QTest::newRow("896 bits")
        << QByteArray("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
        << QByteArray("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    QTest::newRow("million a") << QByteArray(1000000, 'a') << QByteArray("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

void TestSha256::knownVectors()
{
    QFETCH(QByteArray, message);
    QFETCH(QByteArray, digest);
    QCOMPARE(QByteArray::fromStdString(hexOf(message)), digest);
}

void TestSha256::matchesQtAtEveryLengthAndSplit()
{
    QRandomGenerator random(7);
    QByteArray data(1000, '\0');
    for (char& c : data)
        c = static_cast<char>(random.bounded(256));
    for (int length = 0; length <= 300; ++length) {
        const QByteArray message = data.left(length);
        const QByteArray expected = QCryptographicHash::hash(message, QCryptographicHash::Sha256).toHex();
        QCOMPARE(QByteArray::fromStdString(hexOf(message)), expected);
        // The same bytes fed in random pieces.
        gguf::Sha256 streamed;
        for (int at = 0; at < length;) {
            const int piece = std::min(length - at, int(random.bounded(1, 130)));
            streamed.update(message.constData() + at, std::size_t(piece));
            at += piece;
        }
        QCOMPARE(QByteArray::fromStdString(gguf::Sha256::toHex(streamed.finish())), expected);
    }
}

void TestSha256::acceleratedMatchesPortable()
{
    const gguf::Sha256::BlockFunction accelerated = gguf::Sha256::acceleratedBlocks();
    if (!accelerated)
        QSKIP("this CPU (or build) has no SHA extensions; the portable version is the only one");
    QRandomGenerator random(11);
    std::vector<std::uint8_t> blocks(64 * 37);
    for (auto& byte : blocks)
        byte = static_cast<std::uint8_t>(random.bounded(256));
    for (std::size_t count : {std::size_t(1), std::size_t(2), std::size_t(37)}) {
        std::uint32_t a[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        std::uint32_t b[8];
        std::copy(std::begin(a), std::end(a), b);
        gguf::Sha256::portableBlocks()(a, blocks.data(), count);
        accelerated(b, blocks.data(), count);
        QVERIFY(std::equal(std::begin(a), std::end(a), b));
    }
}

QTEST_GUILESS_MAIN(TestSha256)
#include "tst_sha256.moc"
