// Remote models against a real web server: lighttpd on 127.0.0.1 serving the fixtures, and the
// fault proxy (support/FaultProxy) in front of it. A remote open must give exactly what a local
// open gives (metadata, index, every dequantized value); every network fault either heals
// (retry, resume) or ends in its own clear error; and the byte counts the proxy takes from the
// server show that a remote open and a zoomed view fetch only what they need. Nothing here
// touches the internet.

#include "FaultProxy.h"
#include "Fixtures.h"
#include "LocalWebServer.h"
#include "SparseModelFile.h"

#include "core/analysis/HeatmapReducer.h"
#include "core/gguf/TensorSlice.h"
#include "core/gguf/FetchCancel.h"
#include "core/gguf/Model.h"
#include "core/gguf/RemoteRegion.h"
#include "core/gguf/Dequantize.h"
#include "core/remote/Download.h"
#include "core/remote/HttpFile.h"
#include "core/remote/RemoteModel.h"
#include "core/remote/RemoteUrl.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <memory>
#include <thread>
#include <utime.h>

using gguf::remote::RemoteOptions;

namespace {
RemoteOptions fastOptions()
{
    RemoteOptions options;
    options.firstBackoff = std::chrono::milliseconds(10);
    options.maxAttempts = 4;  // the low-speed window stays long: a loaded machine must not look like a stalled server
    options.firstReadBytes = 64u << 10;  // small, so tensor data needs requests of its own
    return options;
}

std::vector<float> allValues(const gguf::TensorInfo& tensor, gguf::Status& status)
{
    std::vector<float> values(tensor.elementCount());
    status = gguf::dequantizeRows(tensor, 0, tensor.rowCount(), values);
    return values;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
}  // namespace

class TestRemote : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void remoteOpenEqualsLocalOpen_data();
    void remoteOpenEqualsLocalOpen();
    void smallHeaderTakesOneRequest();
    void hubNameFollowsRedirectAndKeepsLinkedEtag();
    void serverErrorsAreRetried();
    void persistentServerErrorGivesUp();
    void cutBodyResumes_data();
    void cutBodyResumes();
    void stallTimesOutAndRetries();
    void serverWithoutRangesIsRefusedWithoutDownloading();
    void moreBytesThanAskedIsAnError();
    void fewerBytesThanAskedIsAnError();
    void missingFileSays404();
    void loginErrorsNameTheToken();
    void tokenGoesOnlyToTheHub();
    void fileChangedOnServerIsReported();
    void cancelStopsARead();
    void threadCancelStopsAStalledFetchAndLeavesTheRegionUsable();
    void remote70bOpenAndZoomFetchOnlyWhatTheyNeed();
    void cliReadsUrls();
    void cliSaysImportanceMatricesAreLocalFiles();
    void downloadVerifiesTheHubsSha256();
    void downloadWithWrongSha256LeavesNothing();
    void downloadResumesAPartFile();
    void downloadSavesEveryShard();
    void diskCacheServesTheNextOpen();

private:
    std::string url(const char* name) const { return m_proxy->url(std::string("/") + name); }
    QTemporaryDir m_root;
    QTemporaryDir m_work;
    testsupport::LocalWebServer m_server;
    std::unique_ptr<testsupport::FaultProxy> m_proxy;
};

void TestRemote::initTestCase()
{
    QVERIFY(m_root.isValid() && m_work.isValid());
    for (const char* name : {"tiny-llama-Q4_K.gguf", "tiny-llama-Q8_0.gguf", "tiny-moe-Q2_K.gguf", "split-00001-of-00002.gguf",
                             "split-00002-of-00002.gguf", "be.gguf"})
        QVERIFY(QFile::link(testsupport::fixturePath(name), m_root.filePath(name)));
    std::string error;
    QVERIFY2(m_server.start(m_root.path().toStdString(), m_work.path().toStdString(), error), error.c_str());
    m_proxy = std::make_unique<testsupport::FaultProxy>(m_server.port());
    QVERIFY2(m_proxy->start(error), error.c_str());
    // Never a real token from this machine, never the real Hub.
    qputenv("HF_TOKEN_PATH", m_work.filePath("no-token").toUtf8());
    qunsetenv("HF_TOKEN");
    qputenv("HF_ENDPOINT", QByteArray::fromStdString(m_proxy->url("")));
}

void TestRemote::init()
{
    m_proxy->fail500 = 0;
    m_proxy->cutBody = 0;
    m_proxy->resetBody = 0;
    m_proxy->stall = 0;
    m_proxy->ignoreRanges = false;
    m_proxy->extraBytes = 0;
    m_proxy->fewerBytes = 0;
    m_proxy->forcedStatus = 0;
    m_proxy->hubRedirect = false;
    m_proxy->setRequiredToken({});
    m_proxy->setRedirectOrigin({});
    m_proxy->resetCounters();
    qunsetenv("HF_TOKEN");
}

void TestRemote::remoteOpenEqualsLocalOpen_data()
{
    QTest::addColumn<QString>("name");
    for (const char* name : {"tiny-llama-Q4_K.gguf", "tiny-moe-Q2_K.gguf", "split-00002-of-00002.gguf", "be.gguf"})
        QTest::newRow(name) << QString(name);
}

void TestRemote::remoteOpenEqualsLocalOpen()
{
    QFETCH(QString, name);
    const auto local = gguf::Model::open(testsupport::fixturePath(name).toStdString());
    QVERIFY2(local, local ? "" : local.error().toString().c_str());
    const auto remote = gguf::remote::openRemoteModel(url(name.toUtf8().constData()), fastOptions());
    QVERIFY2(remote, remote ? "" : remote.error().toString().c_str());
    QCOMPARE(remote.value()->shards().size(), local.value()->shards().size());
    QCOMPARE(remote.value()->metadata().size(), local.value()->metadata().size());
    QCOMPARE(remote.value()->tensors().size(), local.value()->tensors().size());
    for (std::size_t i = 0; i < local.value()->tensors().size(); ++i) {
        const gguf::TensorInfo& l = local.value()->tensors()[i];
        const gguf::TensorInfo& r = remote.value()->tensors()[i];
        QCOMPARE(r.name, l.name);
        QCOMPARE(r.fileOffset, l.fileOffset);
        QCOMPARE(r.nbytes, l.nbytes);
        if (!l.traits || !l.traits->dequantize)
            continue;
        gguf::Status ls = gguf::Ok{}, rs = gguf::Ok{};
        const auto lv = allValues(l, ls), rv = allValues(r, rs);
        QVERIFY2(rs, rs ? "" : rs.error().toString().c_str());
        QVERIFY2(sameBits(lv, rv), std::string(l.name).c_str());
    }
    QVERIFY(remote.value()->checkUnchanged());
    QVERIFY(gguf::remote::remoteTraffic(*remote.value()).bytesReceived > 0);
    // Everything was read, so nothing is left to fetch.
    for (const gguf::TensorInfo& tensor : remote.value()->tensors())
        QCOMPARE(gguf::mappedBytesToFetch(tensor.data, tensor.nbytes), std::uint64_t{0});
}

void TestRemote::smallHeaderTakesOneRequest()
{
    RemoteOptions options = fastOptions();
    options.firstReadBytes = 1u << 20;
    const auto remote = gguf::remote::openRemoteModel(url("tiny-llama-Q4_K.gguf"), options);
    QVERIFY2(remote, remote ? "" : remote.error().toString().c_str());
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});
    QCOMPARE(m_proxy->bodyBytesFromServer(), std::uint64_t{1} << 20);
}

void TestRemote::hubNameFollowsRedirectAndKeepsLinkedEtag()
{
    m_proxy->hubRedirect = true;
    m_proxy->setLinkedEtag("abc123");
    QCOMPARE(gguf::remote::resolveUrl("hf://owner/repo/tiny-llama-Q4_K.gguf@v1").value(),
             m_proxy->url("/owner/repo/resolve/v1/tiny-llama-Q4_K.gguf"));
    QVERIFY(!gguf::remote::resolveUrl("hf://owner/tiny.gguf"));
    QVERIFY(!gguf::remote::resolveUrl("hf://owner/repo/a b.gguf"));
    auto file = gguf::remote::HttpFile::open(gguf::remote::resolveUrl("hf://owner/repo/tiny-llama-Q4_K.gguf").value(), fastOptions());
    QVERIFY2(file, file ? "" : file.error().toString().c_str());
    QCOMPARE(file.value()->facts().linkedEtag, std::string("abc123"));
    QCOMPARE(file.value()->size(), std::uint64_t(QFileInfo(testsupport::fixturePath("tiny-llama-Q4_K.gguf")).size()));
    const auto model = gguf::remote::openRemoteModel("hf://owner/repo/tiny-llama-Q4_K.gguf", fastOptions());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    QCOMPARE(model.value()->summary().architecture, std::string("llama"));
}

void TestRemote::serverErrorsAreRetried()
{
    m_proxy->fail500 = 2;
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    QCOMPARE(m_proxy->fail500.load(), 0);
    QVERIFY(m_proxy->requests() >= 3);
}

void TestRemote::persistentServerErrorGivesUp()
{
    m_proxy->fail500 = 1000;
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("gave up after 4 tries") != std::string::npos, model.error().message.c_str());
    QVERIFY2(model.error().message.find("500") != std::string::npos, model.error().message.c_str());
    QCOMPARE(m_proxy->requests(), std::uint64_t{4});
}

void TestRemote::cutBodyResumes_data()
{
    QTest::addColumn<bool>("reset");
    QTest::newRow("closed") << false;
    QTest::newRow("reset") << true;
}

void TestRemote::cutBodyResumes()
{
    QFETCH(bool, reset);
    const auto local = gguf::Model::open(testsupport::fixturePath("tiny-llama-Q8_0.gguf").toStdString());
    const auto remote = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY2(remote, remote ? "" : remote.error().toString().c_str());
    const gguf::TensorInfo* tensor = remote.value()->findTensor("blk.1.ffn_down.weight");
    QVERIFY(tensor && tensor->fileOffset > (64u << 10));
    // Before the read: its bytes, rounded out to whole 64 KiB chunks, are still to come.
    const std::uint64_t chunk = gguf::RemoteRegion::kChunkBytes;
    const std::uint64_t firstChunk = tensor->fileOffset / chunk, endChunk = (tensor->fileOffset + tensor->nbytes + chunk - 1) / chunk;
    QCOMPARE(gguf::mappedBytesToFetch(tensor->data, tensor->nbytes), (endChunk - firstChunk) * chunk);
    m_proxy->cutAfterBytes = 5000;
    (reset ? m_proxy->resetBody : m_proxy->cutBody) = 3;
    m_proxy->resetCounters();
    gguf::Status ls = gguf::Ok{}, rs = gguf::Ok{};
    const auto rv = allValues(*tensor, rs);
    QVERIFY2(rs, rs ? "" : rs.error().toString().c_str());
    QVERIFY(sameBits(rv, allValues(*local.value()->findTensor("blk.1.ffn_down.weight"), ls)));
    QCOMPARE((reset ? m_proxy->resetBody : m_proxy->cutBody).load(), 0);
    QVERIFY(m_proxy->requests() >= 4);  // three cut tries, each resumed after its 5,000 bytes
}

void TestRemote::stallTimesOutAndRetries()
{
    RemoteOptions options = fastOptions();
    options.lowSpeedWindow = std::chrono::seconds(1);
    const auto remote = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), options);
    QVERIFY2(remote, remote ? "" : remote.error().toString().c_str());
    m_proxy->stallMs = 4000;
    m_proxy->stall = 1;
    gguf::Status status = gguf::Ok{};
    allValues(*remote.value()->findTensor("blk.1.ffn_up.weight"), status);
    QVERIFY2(status, status ? "" : status.error().toString().c_str());
    QCOMPARE(m_proxy->stall.load(), 0);
}

void TestRemote::serverWithoutRangesIsRefusedWithoutDownloading()
{
    m_proxy->ignoreRanges = true;
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("does not support range requests") != std::string::npos, model.error().message.c_str());
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});  // not retried
}

void TestRemote::moreBytesThanAskedIsAnError()
{
    m_proxy->extraBytes = 16;
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("more bytes than") != std::string::npos, model.error().message.c_str());
}

void TestRemote::fewerBytesThanAskedIsAnError()
{
    m_proxy->fewerBytes = 16;
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("bytes where 65536 were asked for") != std::string::npos, model.error().message.c_str());
}

void TestRemote::missingFileSays404()
{
    const auto model = gguf::remote::openRemoteModel(url("no-such-model.gguf"), fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("HTTP 404") != std::string::npos, model.error().message.c_str());
    QCOMPARE(model.error().path, url("no-such-model.gguf"));
}

void TestRemote::loginErrorsNameTheToken()
{
    m_proxy->hubRedirect = true;
    m_proxy->setRequiredToken("hf_secret_token_value");
    const std::string name = "hf://owner/gated/tiny-llama-Q4_K.gguf";
    auto model = gguf::remote::openRemoteModel(name, fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("HTTP 401") != std::string::npos && model.error().message.find("HF_TOKEN") != std::string::npos,
             model.error().message.c_str());
    qputenv("HF_TOKEN", "hf_wrong");
    model = gguf::remote::openRemoteModel(name, fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("refused the Hugging Face token") != std::string::npos, model.error().message.c_str());
    QVERIFY(model.error().toString().find("hf_wrong") == std::string::npos);
    // From the token file when HF_TOKEN is not set.
    qunsetenv("HF_TOKEN");
    QFile tokenFile(m_work.filePath("token-file"));
    QVERIFY(tokenFile.open(QIODevice::WriteOnly));
    tokenFile.write("hf_secret_token_value\n");
    tokenFile.close();
    qputenv("HF_TOKEN_PATH", tokenFile.fileName().toUtf8());
    model = gguf::remote::openRemoteModel(name, fastOptions());
    qputenv("HF_TOKEN_PATH", m_work.filePath("no-token").toUtf8());
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    m_proxy->setRequiredToken({});
    m_proxy->forcedStatus = 403;
    model = gguf::remote::openRemoteModel(name, fastOptions());
    QVERIFY(!model);
    QVERIFY2(model.error().message.find("HTTP 403") != std::string::npos && model.error().message.find("gated") != std::string::npos,
             model.error().message.c_str());
}

void TestRemote::tokenGoesOnlyToTheHub()
{
    qputenv("HF_TOKEN", "hf_for_the_hub_only");
    qputenv("HF_ENDPOINT", "https://hub.invalid");
    const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q4_K.gguf"), fastOptions());
    qputenv("HF_ENDPOINT", QByteArray::fromStdString(m_proxy->url("")));
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    QVERIFY(!m_proxy->sawAuthorization());
    QVERIFY(gguf::remote::openRemoteModel(url("tiny-llama-Q4_K.gguf"), fastOptions()));
    QVERIFY(m_proxy->sawAuthorization());

    // The Hub redirects to its CDN, another host: the token goes to the Hub only.
    m_proxy->hubRedirect = true;
    m_proxy->setRedirectOrigin("http://localhost:" + std::to_string(m_proxy->port()));
    m_proxy->resetCounters();
    RemoteOptions options = fastOptions();
    options.firstReadBytes = 16u << 10;  // so tensor reads take requests of their own
    const auto hub = gguf::remote::openRemoteModel("hf://owner/repo/tiny-llama-Q8_0.gguf", options);
    QVERIFY2(hub, hub ? "" : hub.error().toString().c_str());
    gguf::Status status = gguf::Ok{};
    allValues(*hub.value()->findTensor("output.weight"), status);
    QVERIFY(status);
    const std::vector<std::string> authorized = m_proxy->authorizedPaths();
    QVERIFY(!authorized.empty());
    for (const std::string& path : authorized)
        QVERIFY2(path.find("/resolve/") != std::string::npos, path.c_str());
    QVERIFY(m_proxy->requests() > authorized.size());  // the CDN requests, without it
}

void TestRemote::fileChangedOnServerIsReported()
{
    const QString path = m_root.filePath("changing.gguf");
    QFile::remove(path);
    QVERIFY(QFile::copy(testsupport::fixturePath("tiny-llama-Q8_0.gguf"), path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther | QFile::ReadGroup);
    const auto remote = gguf::remote::openRemoteModel(url("changing.gguf"), fastOptions());
    QVERIFY2(remote, remote ? "" : remote.error().toString().c_str());
    QVERIFY(remote.value()->checkUnchanged());
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        file.seek(file.size() - 4);
        file.write("\x01\x02\x03\x04", 4);
    }
    const utimbuf later{1700000000, 1700000000};
    QCOMPARE(::utime(path.toLocal8Bit().constData(), &later), 0);
    gguf::Status status = gguf::Ok{};
    allValues(*remote.value()->findTensor("output.weight"), status);
    QVERIFY(!status);
    QVERIFY2(status.error().message.find("the file changed on the server") != std::string::npos, status.error().message.c_str());
    const gguf::Status unchanged = remote.value()->checkUnchanged();
    QVERIFY(!unchanged);
    QVERIFY2(unchanged.error().message.find("the file changed") == 0, unchanged.error().message.c_str());
}

void TestRemote::cancelStopsARead()
{
    std::atomic<bool> cancel{false};
    RemoteOptions options = fastOptions();
    options.cancel = &cancel;
    const auto remote = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), options);
    QVERIFY2(remote, remote ? "" : remote.error().toString().c_str());
    cancel = true;
    gguf::Status status = gguf::Ok{};
    allValues(*remote.value()->findTensor("blk.1.ffn_up.weight"), status);
    QVERIFY(!status);
    QVERIFY2(status.error().message.find("cancelled") != std::string::npos, status.error().message.c_str());
}

// A GUI job's cancel flag reaches the transfer through the reading thread's FetchCancelScope
// (the view's code below it takes no flag): a fetch held up by a slow server ends as "cancelled"
// while the server is still stalling, and the region is left as if the read had not been asked
// for, so the next read fetches the same bytes and gives the values a local open gives.
void TestRemote::threadCancelStopsAStalledFetchAndLeavesTheRegionUsable()
{
    const auto remote = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY2(remote, remote ? "" : remote.error().toString().c_str());
    const gguf::TensorInfo* tensor = remote.value()->findTensor("blk.1.ffn_up.weight");
    QVERIFY(tensor);
    const std::uint64_t missingBefore = gguf::mappedBytesToFetch(tensor->data, tensor->nbytes);
    QVERIFY(missingBefore > 0);

    // The stall outlasts any wait below by far: only the cancel can end the read in time.
    m_proxy->stallMs = 120000;
    m_proxy->stall = 1000;
    const std::uint64_t requestsBefore = m_proxy->requests();
    std::atomic<bool> cancel{false};
    std::atomic<bool> finished{false};
    gguf::Status status = gguf::Ok{};
    std::thread reader([&] {
        const gguf::FetchCancelScope scope(&cancel);
        status = gguf::ensureMappedBytes(tensor->data, tensor->nbytes);
        finished = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(m_proxy->requests() > requestsBefore, 20000);  // the fetch is out, and stalled
    QVERIFY(!finished);
    cancel = true;
    QTRY_VERIFY_WITH_TIMEOUT(finished.load(), 20000);
    reader.join();
    m_proxy->stall = 0;
    m_proxy->stallMs = 0;  // the stalled responses end now, not during a later test's byte count
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->responsesInProgress(), 0, 20000);
    m_proxy->stallMs = 3000;
    QVERIFY(!status);
    QVERIFY2(status.error().message.find("cancelled") != std::string::npos, status.error().message.c_str());
    QCOMPARE(gguf::mappedBytesToFetch(tensor->data, tensor->nbytes), missingBefore);

    // Later reads on this thread (no scope) and the cancelled region work as before.
    const auto local = gguf::Model::open(testsupport::fixturePath("tiny-llama-Q8_0.gguf").toStdString());
    QVERIFY(local);
    gguf::Status remoteStatus = gguf::Ok{}, localStatus = gguf::Ok{};
    const std::vector<float> remoteValues = allValues(*tensor, remoteStatus);
    const std::vector<float> localValues = allValues(*local.value()->findTensor("blk.1.ffn_up.weight"), localStatus);
    QVERIFY2(remoteStatus, remoteStatus ? "" : remoteStatus.error().toString().c_str());
    QVERIFY(localStatus);
    QVERIFY(sameBits(remoteValues, localValues));
    QCOMPARE(gguf::mappedBytesToFetch(tensor->data, tensor->nbytes), std::uint64_t(0));
}

void TestRemote::remote70bOpenAndZoomFetchOnlyWhatTheyNeed()
{
    bench::SparseModelFile sparse;
    std::string error;
    if (!bench::writeSparse70bModel(m_root.filePath("sparse-70b.gguf").toStdString(), sparse, error))
        QSKIP(("no room for a sparse 42 GB file here: " + error).c_str());
    RemoteOptions options = fastOptions();
    options.firstReadBytes = 1u << 20;
    const auto model = gguf::remote::openRemoteModel(url("sparse-70b.gguf"), options);
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    QCOMPARE(model.value()->tensors().size(), std::size_t(sparse.tensorCount));
    const std::uint64_t openBytes = m_proxy->bodyBytesFromServer();
    qInfo("header %llu bytes; the open fetched %llu bytes in %llu requests of a %llu-byte file",
          static_cast<unsigned long long>(sparse.headerBytes), static_cast<unsigned long long>(openBytes),
          static_cast<unsigned long long>(m_proxy->requests()), static_cast<unsigned long long>(sparse.fileBytes));
    QVERIFY(openBytes >= sparse.headerBytes);
    QVERIFY(openBytes < 2 * sparse.headerBytes + (1u << 20));
    // Doubling from 1 MiB: about log2(header / 1 MiB) + 1 requests.
    QVERIFY(m_proxy->requests() <= 1 + static_cast<std::uint64_t>(std::ceil(std::log2(double(sparse.headerBytes) / (1u << 20)))) + 1);

    // A zoomed heatmap window of the 1,050,673,152-weight output matrix: 64 rows, all columns.
    const gguf::TensorInfo* output = model.value()->findTensor("output.weight");
    QVERIFY(output && output->elementCount() > 1'000'000'000ull);
    m_proxy->resetCounters();
    const gguf::HeatmapRegion region{100000, 100064, 0, static_cast<std::uint64_t>(output->ne[0])};
    const gguf::HeatmapGrid grid = gguf::fitHeatmapGrid(region, 64, 256, gguf::CellAggregate::Mean);
    std::vector<float> cells(std::size_t(grid.rows) * grid.columns);
    const gguf::Status reduced = gguf::reduceHeatmapRows(gguf::wholeTensor(*output), grid, 0, grid.rows, cells);
    QVERIFY2(reduced, reduced ? "" : reduced.error().toString().c_str());
    const std::uint64_t windowBytes = 64 * output->rowBytes();
    qInfo("window of %llu bytes fetched %llu bytes", static_cast<unsigned long long>(windowBytes),
          static_cast<unsigned long long>(m_proxy->bodyBytesFromServer()));
    QVERIFY(m_proxy->bodyBytesFromServer() >= windowBytes);
    QVERIFY(m_proxy->bodyBytesFromServer() <= windowBytes + 2 * gguf::RemoteRegion::kChunkBytes);

    // A server that ignores ranges is refused after its first bytes, not read to its 42 GB end.
    m_proxy->ignoreRanges = true;
    m_proxy->resetCounters();
    QVERIFY(!gguf::remote::openRemoteModel(url("sparse-70b.gguf"), options));
    QVERIFY2(m_proxy->bodyBytesFromServer() < (64u << 20), QByteArray::number(qulonglong(m_proxy->bodyBytesFromServer())));
    QFile::remove(m_root.filePath("sparse-70b.gguf"));
}

void TestRemote::cliReadsUrls()
{
    QProcess cli;
    cli.start(QStringLiteral(GGUFX_CLI_PATH), {"info", QString::fromStdString(url("split-00001-of-00002.gguf"))});
    QVERIFY(cli.waitForFinished(120000));
    const QString out = QString::fromUtf8(cli.readAllStandardOutput());
    QVERIFY2(cli.exitCode() == 0, qPrintable(cli.readAllStandardError()));
    QVERIFY2(out.contains("(2 shards)"), qPrintable(out));
    // The memory estimate of a remote model comes from its header alone.
    m_proxy->resetCounters();
    cli.start(QStringLiteral(GGUFX_CLI_PATH),
              {"estimate", QString::fromStdString(url("tiny-llama-Q8_0.gguf")), "--ctx", "512", "--kv", "f32", "--json"});
    QVERIFY(cli.waitForFinished(120000));
    QVERIFY2(cli.exitCode() == 0, qPrintable(cli.readAllStandardError()));
    const QJsonObject estimate = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    QCOMPARE(estimate.value("kv_cpu_bytes").toDouble(), 2.0 * 2 * 512 * 256 * 4);  // llama.cpp: 2.00 MiB
    QCOMPARE(estimate.value("context").toDouble(), 512.0);
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});  // the header fits the first 1 MiB request
    // A command that reads tensor data says how much it will fetch, then prints what a local run prints.
    cli.start(QStringLiteral(GGUFX_CLI_PATH), {"stats", QString::fromStdString(url("tiny-llama-Q8_0.gguf")), "output.weight"});
    QVERIFY(cli.waitForFinished(120000));
    const QString remoteStats = QString::fromUtf8(cli.readAllStandardOutput());
    const QString announced = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(cli.exitCode() == 0, qPrintable(announced));
    QVERIFY2(announced.contains("fetching") && announced.contains("of tensor data from the server"), qPrintable(announced));
    cli.start(QStringLiteral(GGUFX_CLI_PATH), {"stats", testsupport::fixturePath("tiny-llama-Q8_0.gguf"), "output.weight"});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(remoteStats, QString::fromUtf8(cli.readAllStandardOutput()));
    QVERIFY(cli.readAllStandardError().isEmpty());
    cli.start(QStringLiteral(GGUFX_CLI_PATH), {"info", QString::fromStdString(url("gone.gguf"))});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 1);
    QVERIFY(QString::fromUtf8(cli.readAllStandardError()).contains("HTTP 404"));
}

void TestRemote::cliSaysImportanceMatricesAreLocalFiles()
{
    QProcess cli;
    const QString matrix = QString::fromStdString(url("imatrix.gguf"));
    cli.start(QStringLiteral(GGUFX_CLI_PATH), {"imatrix", matrix});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 1);
    const QString error = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(error.contains(matrix + ": importance matrices are read from local files"), qPrintable(error));
    QCOMPARE(m_proxy->requests(), std::uint64_t{0});
}

namespace {
QString sha256Of(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&file);
    return QString::fromLatin1(hash.result().toHex());
}

gguf::remote::DownloadOptions downloadOptions()
{
    gguf::remote::DownloadOptions options;
    options.remote = fastOptions();
    return options;
}
}  // namespace

void TestRemote::downloadVerifiesTheHubsSha256()
{
    const QString fixture = testsupport::fixturePath("tiny-llama-Q4_K.gguf");
    m_proxy->hubRedirect = true;
    m_proxy->setLinkedEtag(sha256Of(fixture).toStdString());
    QTemporaryDir target;
    const auto files = gguf::remote::downloadModel("hf://owner/repo/tiny-llama-Q4_K.gguf", target.path().toStdString(), downloadOptions());
    QVERIFY2(files, files ? "" : files.error().toString().c_str());
    QCOMPARE(files->size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(files->front().expectedSha256), sha256Of(fixture));
    QCOMPARE(QString::fromStdString(files->front().sha256), sha256Of(fixture));
    QCOMPARE(sha256Of(target.filePath("tiny-llama-Q4_K.gguf")), sha256Of(fixture));
    QCOMPARE(QDir(target.path()).entryList(QDir::Files), QStringList{"tiny-llama-Q4_K.gguf"});
}

void TestRemote::downloadWithWrongSha256LeavesNothing()
{
    m_proxy->hubRedirect = true;
    m_proxy->setLinkedEtag(std::string(64, 'a'));
    QTemporaryDir target;
    const auto files = gguf::remote::downloadModel("hf://owner/repo/tiny-llama-Q4_K.gguf", target.path().toStdString(), downloadOptions());
    QVERIFY(!files);
    QVERIFY2(files.error().message.find("SHA-256") != std::string::npos, files.error().message.c_str());
    QVERIFY(QDir(target.path()).entryList(QDir::Files).isEmpty());
}

void TestRemote::downloadResumesAPartFile()
{
    // 20 MiB of noise: several batches of requests.
    const QString big = m_root.filePath("big-model.gguf");
    {
        QFile file(big);
        QVERIFY(file.open(QIODevice::WriteOnly));
        std::vector<quint32> noise(5u << 20);
        QRandomGenerator(17).fillRange(noise.data(), noise.size());
        file.write(reinterpret_cast<const char*>(noise.data()), qint64(noise.size() * 4));
    }
    m_proxy->hubRedirect = true;
    m_proxy->setLinkedEtag(sha256Of(big).toStdString());
    QTemporaryDir target;
    std::atomic<bool> cancel{false};
    auto options = downloadOptions();
    options.remote.cancel = &cancel;
    options.progress = [&](const std::string&, std::uint64_t done, std::uint64_t) { cancel = done >= (16u << 20); };
    auto files = gguf::remote::downloadModel("hf://owner/repo/big-model.gguf", target.path().toStdString(), options);
    QVERIFY(!files);
    QVERIFY2(files.error().message.find("resumes") != std::string::npos, files.error().message.c_str());
    QVERIFY(!QFileInfo::exists(target.filePath("big-model.gguf")));
    QCOMPARE(QFileInfo(target.filePath("big-model.gguf.part")).size(), qint64(16) << 20);
    cancel = false;
    options.progress = {};
    m_proxy->resetCounters();
    files = gguf::remote::downloadModel("hf://owner/repo/big-model.gguf", target.path().toStdString(), options);
    QVERIFY2(files, files ? "" : files.error().toString().c_str());
    QCOMPARE(files->front().resumedFrom, std::uint64_t{16} << 20);
    QCOMPARE(sha256Of(target.filePath("big-model.gguf")), sha256Of(big));
    // The second run fetched the opening request (64 KiB) and the missing 4 MiB only.
    QCOMPARE(m_proxy->bodyBytesFromServer(), std::uint64_t{(64u << 10) + (4u << 20)});
    QCOMPARE(QDir(target.path()).entryList(QDir::Files), QStringList{"big-model.gguf"});
    QFile::remove(big);
}

void TestRemote::downloadSavesEveryShard()
{
    QTemporaryDir target;
    QProcess cli;
    cli.start(QStringLiteral(GGUFX_CLI_PATH), {"download", QString::fromStdString(url("split-00002-of-00002.gguf")), "-o", target.path()});
    QVERIFY(cli.waitForFinished(120000));
    QVERIFY2(cli.exitCode() == 0, qPrintable(cli.readAllStandardError()));
    for (const char* name : {"split-00001-of-00002.gguf", "split-00002-of-00002.gguf"})
        QCOMPARE(sha256Of(target.filePath(name)), sha256Of(testsupport::fixturePath(name)));
    const QString out = QString::fromUtf8(cli.readAllStandardOutput());
    QVERIFY2(out.contains("gives no SHA-256"), qPrintable(out));
    QVERIFY(gguf::Model::open(target.filePath("split-00001-of-00002.gguf").toStdString()));
}

namespace {
std::uint64_t folderBytes(const QString& path)
{
    std::uint64_t total = 0;
    QDirIterator it(path, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        total += std::uint64_t(QFileInfo(it.next()).size());
    return total;
}

void readEveryTensor(const gguf::Model& model, gguf::Status& status)
{
    for (const gguf::TensorInfo& tensor : model.tensors())
        if (status && tensor.traits && tensor.traits->dequantize)
            allValues(tensor, status);
}
}  // namespace

void TestRemote::diskCacheServesTheNextOpen()
{
    QTemporaryDir cache;
    qputenv("GGUFX_REMOTE_DISK_CACHE", cache.filePath("chunks").toUtf8());
    gguf::Status status = gguf::Ok{};
    {
        const auto first = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
        QVERIFY2(first, first ? "" : first.error().toString().c_str());
        readEveryTensor(*first.value(), status);
        QVERIFY2(status, status ? "" : status.error().toString().c_str());
    }
    const std::uint64_t fileBytes = std::uint64_t(QFileInfo(testsupport::fixturePath("tiny-llama-Q8_0.gguf")).size());
    QVERIFY(m_proxy->bodyBytesFromServer() >= fileBytes);
    // Every chunk, the opening request's too, each with its 40-byte check.
    const std::uint64_t chunks = (fileBytes + gguf::RemoteRegion::kChunkBytes - 1) / gguf::RemoteRegion::kChunkBytes;
    QCOMPARE(folderBytes(cache.filePath("chunks")), fileBytes + 40 * chunks);
    m_proxy->resetCounters();
    const auto second = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
    QVERIFY2(second, second ? "" : second.error().toString().c_str());
    readEveryTensor(*second.value(), status);
    QVERIFY2(status, status ? "" : status.error().toString().c_str());
    // Only the opening request (size and ETag) went to the server.
    QCOMPARE(m_proxy->requests(), std::uint64_t{1});
    QCOMPARE(m_proxy->bodyBytesFromServer(), std::uint64_t{64} << 10);
    const auto local = gguf::Model::open(testsupport::fixturePath("tiny-llama-Q8_0.gguf").toStdString());
    gguf::Status ls = gguf::Ok{};
    QVERIFY(sameBits(allValues(*second.value()->findTensor("output.weight"), status),
                     allValues(*local.value()->findTensor("output.weight"), ls)));

    // A limit: the folder never holds more.
    QTemporaryDir small;
    qputenv("GGUFX_REMOTE_DISK_CACHE", small.filePath("chunks").toUtf8());
    qputenv("GGUFX_REMOTE_DISK_CACHE_MB", "1");  // half the file
    {
        const auto model = gguf::remote::openRemoteModel(url("tiny-llama-Q8_0.gguf"), fastOptions());
        QVERIFY(model);
        readEveryTensor(*model.value(), status);
        QVERIFY(status);
    }
    QVERIFY(folderBytes(small.filePath("chunks")) <= (1u << 20));
    QVERIFY(folderBytes(small.filePath("chunks")) > (1u << 19));
    qunsetenv("GGUFX_REMOTE_DISK_CACHE");
    qunsetenv("GGUFX_REMOTE_DISK_CACHE_MB");
}

QTEST_GUILESS_MAIN(TestRemote)
#include "tst_remote.moc"
