// Servers that misbehave in ways that must end, in bounded time, in an error that names what
// happened: a dead or silent server, one that trickles bytes or sends one per connection, a
// redirect loop or a redirect off the web, oversized headers, an encoded body; and a disk cache
// whose chunks or folders were tampered with, which must never reach a result. lighttpd serves
// the fixtures behind the fault proxy (support/FaultProxy), which plays each fault. Every wait
// below is one of RemoteOptions' bounds, set short here, so the suite stays fast.

#include "FaultProxy.h"
#include "Fixtures.h"
#include "LocalWebServer.h"

#include "core/gguf/Model.h"
#include "core/gguf/RemoteRegion.h"
#include "core/remote/HttpFile.h"
#include "core/remote/RemoteModel.h"

#include "core/gguf/Dequantize.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using gguf::remote::RemoteOptions;

namespace {
RemoteOptions fastOptions()
{
    RemoteOptions options;
    options.firstBackoff = std::chrono::milliseconds(10);
    options.maxAttempts = 4;
    options.firstReadBytes = 64u << 10;
    return options;
}

std::string messageOf(const gguf::Result<std::shared_ptr<gguf::remote::HttpFile>>& file)
{
    return file ? std::string("(opened)") : file.error().message;
}

// A socket on 127.0.0.1 that listens but is never accepted from: connections complete in the
// kernel, requests go out, and no answer ever comes. Or, closed at once, a port nobody listens on.
struct LoopbackPort {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int port = 0;
    explicit LoopbackPort(bool listening)
    {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
        port = ntohs(address.sin_port);
        if (listening) {
            ::listen(fd, 16);
        } else {
            ::close(fd);
            fd = -1;
        }
    }
    ~LoopbackPort()
    {
        if (fd >= 0)
            ::close(fd);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/model.gguf"; }
};
}  // namespace

class TestRemoteFaults : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void aByteAPerConnectionDoesNotBuyNewTries();
    void aTricklingServerFailsTheLowSpeedLimit();
    void aReadHasADeadline();
    void aDeadServerIsReportedInTime_data();
    void aDeadServerIsReportedInTime();
    void readsAfterAnUnreachableServerFailAtOnce();
    void badRedirectsSaySo_data();
    void badRedirectsSaySo();
    void oversizedHeadersAreRefused_data();
    void oversizedHeadersAreRefused();
    void encodedBodiesAreRefused();
    void tamperedCacheChunksAreFetchedAgain_data();
    void tamperedCacheChunksAreFetchedAgain();
    void untrustedCacheFoldersAreRefused_data();
    void untrustedCacheFoldersAreRefused();

private:
    std::string url(const char* name) const { return m_proxy->url(std::string("/") + name); }
    QTemporaryDir m_root;
    QTemporaryDir m_work;
    testsupport::LocalWebServer m_server;
    std::unique_ptr<testsupport::FaultProxy> m_proxy;
};

void TestRemoteFaults::initTestCase()
{
    QVERIFY(m_root.isValid() && m_work.isValid());
    QVERIFY(QFile::link(testsupport::fixturePath("tiny-llama-Q8_0.gguf"), m_root.filePath("tiny-llama-Q8_0.gguf")));
    std::string error;
    QVERIFY2(m_server.start(m_root.path().toStdString(), m_work.path().toStdString(), error), error.c_str());
    m_proxy = std::make_unique<testsupport::FaultProxy>(m_server.port());
    QVERIFY2(m_proxy->start(error), error.c_str());
    qputenv("HF_TOKEN_PATH", m_work.filePath("no-token").toUtf8());
    qunsetenv("HF_TOKEN");
    qunsetenv("GGUFX_REMOTE_DISK_CACHE");
}

void TestRemoteFaults::init()
{
    m_proxy->cutBody = 0;
    m_proxy->trickle = 0;
    m_proxy->trickleForMs = 0;
    m_proxy->dropConnections = false;
    m_proxy->setCannedResponse({});
    m_proxy->setExtraResponseHeaders({});
    m_proxy->resetCounters();
}

// Each try brings one byte and the connection closes: the try count is not reset by it.
void TestRemoteFaults::aByteAPerConnectionDoesNotBuyNewTries()
{
    m_proxy->cutAfterBytes = 1;
    m_proxy->cutBody = 50;  // then it would serve normally: without the fix the open succeeds
    const auto file = gguf::remote::HttpFile::open(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!file);
    QVERIFY2(messageOf(file).find("gave up after 4 tries") != std::string::npos, messageOf(file).c_str());
    QCOMPARE(m_proxy->requests(), std::uint64_t{4});
}

// About 100 bytes/s, never a stall: the low-speed limit (1 KiB/s over 1 s here) ends each try.
void TestRemoteFaults::aTricklingServerFailsTheLowSpeedLimit()
{
    m_proxy->trickleIntervalMs = 10;
    m_proxy->trickleForMs = 1500;
    m_proxy->trickle = 3;  // then normal service: a limit that does not fire lets the open succeed
    RemoteOptions options = fastOptions();
    options.maxAttempts = 2;
    options.lowSpeedBytesPerSecond = 1024;
    options.lowSpeedWindow = std::chrono::seconds(1);
    const auto file = gguf::remote::HttpFile::open(url("tiny-llama-Q8_0.gguf"), options);
    QVERIFY(!file);
    QVERIFY2(messageOf(file).find("gave up after 2 tries") != std::string::npos, messageOf(file).c_str());
    QVERIFY2(messageOf(file).find("too slow") != std::string::npos, messageOf(file).c_str());
    QCOMPARE(m_proxy->requests(), std::uint64_t{2});
}

// Fast enough for the low-speed limit, too slow for the read's deadline.
void TestRemoteFaults::aReadHasADeadline()
{
    m_proxy->trickleIntervalMs = 5;
    m_proxy->trickleForMs = 3000;
    m_proxy->trickle = 1;
    RemoteOptions options = fastOptions();
    options.lowSpeedBytesPerSecond = 10;
    options.lowSpeedWindow = std::chrono::seconds(5);
    options.readDeadline = std::chrono::milliseconds(300);
    options.deadlineBytesPerSecond = std::uint64_t{1} << 40;
    const auto file = gguf::remote::HttpFile::open(url("tiny-llama-Q8_0.gguf"), options);
    QVERIFY(!file);
    QVERIFY2(messageOf(file).find("the server is too slow") != std::string::npos, messageOf(file).c_str());
    QVERIFY2(messageOf(file).find("of 65536 bytes arrived in 0.3 s") != std::string::npos, messageOf(file).c_str());
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});
}

void TestRemoteFaults::aDeadServerIsReportedInTime_data()
{
    QTest::addColumn<bool>("listening");
    QTest::newRow("stopped (connection refused)") << false;
    QTest::newRow("silent (connects, never answers)") << true;
}

// Tries would go on for 8 × doubling waits (12.7 s) and, for the silent server, 4 low-speed
// windows; the server's silence over the tries is what ends them, after unreachableAfter.
void TestRemoteFaults::aDeadServerIsReportedInTime()
{
    QFETCH(bool, listening);
    const LoopbackPort dead(listening);
    RemoteOptions options = fastOptions();
    options.maxAttempts = 8;
    options.firstBackoff = std::chrono::milliseconds(100);
    options.lowSpeedWindow = std::chrono::seconds(30);
    options.unreachableAfter = std::chrono::milliseconds(800);
    const auto file = gguf::remote::HttpFile::open(dead.url(), options);
    QVERIFY(!file);
    QVERIFY2(messageOf(file).find("cannot reach the server: no answer in ") != std::string::npos, messageOf(file).c_str());
    QVERIFY2(messageOf(file).find("over 0.8 s") != std::string::npos, messageOf(file).c_str());
    if (listening)
        QVERIFY2(messageOf(file).find("no response in 0.8 s") != std::string::npos, messageOf(file).c_str());
}

// A view reads a tensor's rows as many reads: once one found the server dead, the next ones
// say so at once instead of each trying as long again; after the pause the server is asked again.
void TestRemoteFaults::readsAfterAnUnreachableServerFailAtOnce()
{
    RemoteOptions options = fastOptions();
    options.maxAttempts = 100;
    options.unreachableAfter = std::chrono::milliseconds(500);
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), options);
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    const gguf::TensorInfo* first = model.value()->findTensor("blk.1.ffn_up.weight");
    const gguf::TensorInfo* second = model.value()->findTensor("blk.1.ffn_down.weight");
    QVERIFY(first && second && gguf::mappedBytesToFetch(first->data, first->nbytes) > 0);

    m_proxy->dropConnections = true;
    const gguf::Status failed = gguf::ensureMappedBytes(first->data, first->nbytes);
    QVERIFY(!failed);
    QVERIFY2(failed.error().message.find("cannot reach the server") != std::string::npos, failed.error().message.c_str());
    const std::uint64_t dropped = m_proxy->droppedConnections();
    QVERIFY(dropped > 0);
    const gguf::Status next = gguf::ensureMappedBytes(second->data, second->nbytes);
    QVERIFY(!next);
    QVERIFY2(next.error().message.find("cannot reach the server") != std::string::npos, next.error().message.c_str());
    QCOMPARE(m_proxy->droppedConnections(), dropped);  // not asked again

    // The server is back: once the pause is over, reads go to it again and succeed.
    m_proxy->dropConnections = false;
    QTRY_VERIFY_WITH_TIMEOUT(gguf::ensureMappedBytes(second->data, second->nbytes).ok(), 20000);
    QCOMPARE(gguf::mappedBytesToFetch(second->data, second->nbytes), std::uint64_t{0});
}

void TestRemoteFaults::badRedirectsSaySo_data()
{
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("expected");
    QTest::newRow("a loop") << "/tiny-llama-Q8_0.gguf"
                            << "the server redirected more than 10 times (a redirect loop?), the last time to '/tiny-llama-Q8_0.gguf'";
    QTest::newRow("to file://") << "file:///etc/passwd"
                                << "the server redirected to 'file:///etc/passwd', which is not an http or https URL; refused";
    QTest::newRow("to ftp://") << "ftp://127.0.0.1/model.gguf"
                               << "the server redirected to 'ftp://127.0.0.1/model.gguf', which is not an http or https URL; refused";
}

void TestRemoteFaults::badRedirectsSaySo()
{
    QFETCH(QString, location);
    QFETCH(QString, expected);
    m_proxy->setCannedResponse("HTTP/1.1 302 Found\r\nLocation: " + location.toStdString()
                               + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    const auto file = gguf::remote::HttpFile::open(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!file);
    QCOMPARE(QString::fromStdString(messageOf(file)), expected);
}

void TestRemoteFaults::oversizedHeadersAreRefused_data()
{
    QTest::addColumn<int>("lines");
    QTest::addColumn<int>("lineBytes");
    QTest::newRow("1 MB in one header") << 1 << (1 << 20);
    QTest::newRow("1 MB in 1,000 headers") << 1000 << 1000;
}

void TestRemoteFaults::oversizedHeadersAreRefused()
{
    QFETCH(int, lines);
    QFETCH(int, lineBytes);
    std::string response = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-65535/1000000\r\nContent-Length: 65536\r\n";
    for (int i = 0; i < lines; ++i)
        response += "X-Filler-" + std::to_string(i) + ": " + std::string(static_cast<std::size_t>(lineBytes), 'a') + "\r\n";
    response += "Connection: close\r\n\r\n";
    m_proxy->setCannedResponse(response);
    const auto file = gguf::remote::HttpFile::open(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!file);
    QVERIFY2(messageOf(file).find("response headers are larger than") != std::string::npos, messageOf(file).c_str());
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});  // not retried
}

void TestRemoteFaults::encodedBodiesAreRefused()
{
    m_proxy->setExtraResponseHeaders("Content-Encoding: gzip\r\n");
    const auto file = gguf::remote::HttpFile::open(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!file);
    QCOMPARE(QString::fromStdString(messageOf(file)),
             QStringLiteral("the server sent a 'gzip'-encoded response, though only the file's own bytes (identity encoding) were "
                            "asked for; refused"));
    QCOMPARE(m_proxy->lastAcceptEncoding(), std::string("identity"));
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});
}

namespace {
// Every tensor of `model` dequantized has the bits of the local fixture's; `status` keeps the first failure.
bool sameAsLocal(const gguf::Model& model, gguf::Status& status)
{
    const auto local = gguf::Model::open(testsupport::fixturePath("tiny-llama-Q8_0.gguf").toStdString());
    if (!local)
        return false;
    for (const gguf::TensorInfo& tensor : model.tensors()) {
        if (!tensor.traits || !tensor.traits->dequantize)
            continue;
        const gguf::TensorInfo* expected = local.value()->findTensor(tensor.name);
        std::vector<float> a(tensor.elementCount()), b(tensor.elementCount());
        status = gguf::dequantizeRows(tensor, 0, tensor.rowCount(), a);
        if (!status || !expected || !gguf::dequantizeRows(*expected, 0, expected->rowCount(), b))
            return false;
        if (std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0)
            return false;
    }
    return true;
}

// The chunk files of the one remote file cached under `cache`, in chunk order.
QStringList chunkFiles(const QString& cache)
{
    const QStringList folders = QDir(cache).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    if (folders.size() != 1)
        return {};
    QDir folder(cache + "/" + folders.front());
    QStringList names = folder.entryList(QDir::Files);
    std::sort(names.begin(), names.end(), [](const QString& a, const QString& b) { return a.toInt() < b.toInt(); });
    QStringList paths;
    for (const QString& name : names)
        paths << folder.filePath(name);
    return paths;
}

QByteArray contentOf(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool replaceContent(const QString& path, const QByteArray& content)
{
    QFile::remove(path);
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}
}  // namespace

void TestRemoteFaults::tamperedCacheChunksAreFetchedAgain_data()
{
    QTest::addColumn<QString>("tamper");
    for (const char* tamper : {"a byte edited", "cut short", "the bytes alone, no check", "chunks swapped", "a symlink to a good chunk"})
        QTest::newRow(tamper) << QString(tamper);
}

// Values come from the server again, not from the tampered chunks, and the chunks are stored anew.
void TestRemoteFaults::tamperedCacheChunksAreFetchedAgain()
{
    QFETCH(QString, tamper);
    QTemporaryDir cache;
    const QString root = cache.filePath("chunks");
    qputenv("GGUFX_REMOTE_DISK_CACHE", root.toUtf8());
    gguf::Status status = gguf::Ok{};
    {
        const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        QVERIFY(sameAsLocal(*model.value(), status));
    }
    const QStringList chunks = chunkFiles(root);
    QVERIFY(chunks.size() > 4);
    for (int i = 0; i + 1 < chunks.size(); ++i) {  // the last chunk is shorter: every other is tampered with
        const QByteArray content = contentOf(chunks[i]);
        QVERIFY(content.size() > 40);
        if (tamper == "a byte edited") {
            QByteArray edited = content;
            edited[edited.size() - 1] = static_cast<char>(edited[edited.size() - 1] ^ 0x01);
            QVERIFY(replaceContent(chunks[i], edited));
        } else if (tamper == "cut short") {
            QVERIFY(QFile::resize(chunks[i], content.size() - 1));
        } else if (tamper == "the bytes alone, no check") {
            QVERIFY(replaceContent(chunks[i], content.mid(40)));
        } else if (tamper == "chunks swapped") {
            QVERIFY(replaceContent(chunks[i], contentOf(chunks[i + 1])));
        } else {
            const QString elsewhere = cache.filePath(QString::number(i));
            QVERIFY(QFile::rename(chunks[i], elsewhere));
            QVERIFY(QFile::link(elsewhere, chunks[i]));
        }
    }
    m_proxy->resetCounters();
    {
        const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        QVERIFY2(sameAsLocal(*model.value(), status), status ? "values differ from the local file's" : status.error().toString().c_str());
    }
    QVERIFY(m_proxy->bodyBytesFromServer() >= std::uint64_t(chunks.size() - 1) * (64u << 10));
    // Stored anew: the next open reads them all from disk.
    m_proxy->resetCounters();
    {
        const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        QVERIFY(sameAsLocal(*model.value(), status));
    }
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});
    qunsetenv("GGUFX_REMOTE_DISK_CACHE");
}

void TestRemoteFaults::untrustedCacheFoldersAreRefused_data()
{
    QTest::addColumn<QString>("folder");  // "root": the cache folder, "file": the remote file's folder in it
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("owner");       // -1: this user
    QTest::addColumn<QString>("expected");
    QTest::newRow("others can write") << "root" << 0777 << -1 << "others can write to it (mode 0777)";
    QTest::newRow("the group can write") << "root" << 0770 << -1 << "others can write to it (mode 0770)";
    QTest::newRow("another user's") << "root" << 0700 << 4242 << "it belongs to another user (uid 4242)";
    QTest::newRow("a file's folder others can write") << "file" << 0777 << -1 << "others can write to it (mode 0777)";
}

void TestRemoteFaults::untrustedCacheFoldersAreRefused()
{
    QFETCH(QString, folder);
    QFETCH(int, mode);
    QFETCH(int, owner);
    QFETCH(QString, expected);
    QTemporaryDir cache;
    const QString root = cache.filePath("chunks");
    qputenv("GGUFX_REMOTE_DISK_CACHE", root.toUtf8());
    QVERIFY(gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions()));  // makes both folders
    const QString target = folder == "root" ? root : root + "/" + QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
    QCOMPARE(::chmod(target.toLocal8Bit().constData(), static_cast<mode_t>(mode)), 0);
    if (owner >= 0 && ::chown(target.toLocal8Bit().constData(), static_cast<uid_t>(owner), static_cast<gid_t>(-1)) != 0)
        QSKIP("only root can give a folder to another user");
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    qunsetenv("GGUFX_REMOTE_DISK_CACHE");
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("is not safe to read chunks from: " + expected.toStdString()) != std::string::npos,
             model.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestRemoteFaults)
#include "tst_remote_faults.moc"
