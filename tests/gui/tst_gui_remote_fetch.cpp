// What the Tensors page fetches from a server (a remote model served by a local lighttpd behind
// the fault proxy, which counts the body bytes the server sent): a whole-tensor heatmap or
// statistics of a 600 MB tensor say how much they need and fetch nothing until asked; a zoomed
// window of 64 rows fetches only those rows; and Cancel on a stalled server ends the view's job
// as cancelled while the server still stalls, after which the same window computes normally.

#include "FaultProxy.h"
#include "LocalWebServer.h"
#include "OneTensorHeader.h"
#include "IdleWatch.h"
#include "Waits.h"

#include "ui/common/JobProgressBar.h"
#include "core/gguf/RemoteRegion.h"
#include "core/gguf/Dequantize.h"
#include "core/remote/RemoteModel.h"
#include "ui/tensor/DistributionView.h"
#include "ui/tensor/HeatmapView.h"

#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

using namespace testsupport;

namespace {
constexpr std::uint64_t kColumns = 8192;
constexpr std::uint64_t kRows = 131072;
constexpr std::uint64_t kRowBytes = kColumns / 256 * 144;  // q4_K

// One q4_K tensor of kRows × kColumns whose data is a hole: 604 MB on the server's disk cost a
// header, and read back as zeros. Returns false when the folder cannot hold it.
bool writeSparseQ4K(const QString& path)
{
    const QByteArray header = testsupport::oneTensorHeader("big.q4_K", 12, kColumns, kRows);  // 12: q4_K
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(header) == header.size()
        && file.resize(header.size() + static_cast<qint64>(kRowBytes * kRows));
}

struct HeatmapWithProgress {
    QWidget window;
    JobProgressBar* progress = new JobProgressBar(&window);
    HeatmapView* heatmap = new HeatmapView(progress, &window);

    HeatmapWithProgress()
    {
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(heatmap, 1);
        layout->addWidget(progress);
        window.resize(700, 500);
        window.show();
    }
};

bool waitShown(HeatmapView* heatmap)
{
    return QTest::qWaitFor([heatmap] { return !heatmap->isComputing() && heatmap->state() == ZoomableMatrixView::State::Shown; },
                           kHangGuardMs);
}
}  // namespace

class TestGuiRemoteFetch : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_root.isValid() && m_work.isValid());
        if (!writeSparseQ4K(m_root.filePath(QStringLiteral("sparse-q4_K.gguf"))))
            QSKIP("the temporary folder cannot hold a sparse 600 MB file");
        std::string error;
        QVERIFY2(m_server.start(m_root.path().toStdString(), m_work.path().toStdString(), error), error.c_str());
        m_proxy = std::make_unique<FaultProxy>(m_server.port());
        QVERIFY2(m_proxy->start(error), error.c_str());
        qputenv("HF_TOKEN_PATH", m_work.filePath(QStringLiteral("no-token")).toUtf8());
        qunsetenv("HF_TOKEN");
        gguf::remote::RemoteOptions options;
        options.firstBackoff = std::chrono::milliseconds(10);
        options.firstReadBytes = 64u << 10;
        auto model = gguf::remote::openRemoteModel(m_proxy->url("/sparse-q4_K.gguf"), options);
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        m_slice.model = model.value();
        m_slice.slice = gguf::wholeTensor(*m_slice.model->findTensor("big.q4_K"));
    }

    void init() { m_proxy->resetCounters(); }

    void wholeTensorHeatmapSaysWhatItNeedsAndZoomFetchesOnlyItsRows()
    {
        HeatmapWithProgress view;
        view.heatmap->setSlice(m_slice);
        QTRY_COMPARE(view.heatmap->state(), ZoomableMatrixView::State::NeedsFetch);
        const QString text = view.heatmap->placeholderText();
        QVERIFY2(text.contains(QStringLiteral("needs")) && text.contains(QStringLiteral("MiB")) && text.contains(QStringLiteral("server")),
                 qPrintable(text));
        watchThatNothingHappens();  // nothing starts by itself
        QCOMPARE(view.heatmap->jobsStarted(), 0);
        QCOMPARE(m_proxy->bodyBytesFromServer(), std::uint64_t(0));

        // A zoomed window of 64 rows is under the threshold: it computes at once, with its rows only.
        QSignalSpy ready(view.heatmap, &HeatmapView::heatmapReady);
        view.heatmap->requestRegion({50000, 50064, 0, kColumns});
        QVERIFY(ready.wait(kHangGuardMs) && waitShown(view.heatmap));
        const std::uint64_t windowBytes = 64 * kRowBytes;
        qInfo("a window of %llu bytes of rows fetched %llu bytes", static_cast<unsigned long long>(windowBytes),
              static_cast<unsigned long long>(m_proxy->bodyBytesFromServer()));
        QVERIFY(m_proxy->bodyBytesFromServer() >= windowBytes);
        QVERIFY(m_proxy->bodyBytesFromServer() <= windowBytes + 2 * gguf::RemoteRegion::kChunkBytes);
    }

    void wholeTensorStatisticsSayWhatTheyNeed()
    {
        QWidget window;
        auto* progress = new JobProgressBar(&window);
        auto* distribution = new DistributionView(progress, &window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(distribution, 1);
        layout->addWidget(progress);
        window.resize(700, 500);
        window.show();
        distribution->setSlice(m_slice);
        const QString text = distribution->placeholderText();
        QVERIFY2(text.contains(QStringLiteral("need")) && text.contains(QStringLiteral("MiB")), qPrintable(text));
        watchThatNothingHappens();  // no statistics job starts by itself
        QVERIFY(!distribution->result());
        QCOMPARE(m_proxy->bodyBytesFromServer(), std::uint64_t(0));
    }

    // Cancel reaches the HTTP transfer: the stall outlasts the wait below by far, so only the
    // cancel flag reaching curl can end the job in time; afterwards the same rows compute.
    void cancelEndsAStalledFetchAndTheViewRecovers()
    {
        HeatmapWithProgress view;
        view.heatmap->setSlice(m_slice);
        QTRY_COMPARE(view.heatmap->state(), ZoomableMatrixView::State::NeedsFetch);
        m_proxy->stallMs = 120000;
        m_proxy->stall = 1000;
        const gguf::HeatmapRegion region{90000, 91000, 0, kColumns};  // 4.4 MiB of rows, none fetched yet
        view.heatmap->requestRegion(region);
        QCOMPARE(view.heatmap->state(), ZoomableMatrixView::State::Computing);
        QTRY_VERIFY_WITH_TIMEOUT(m_proxy->requests() > 0, 20000);  // a request is out, and stalled
        auto* cancel = view.progress->findChild<QPushButton*>(QStringLiteral("cancelJobButton"));
        QVERIFY(cancel);
        QTRY_VERIFY(cancel->isVisible() && cancel->isEnabled());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(view.heatmap->state(), ZoomableMatrixView::State::Cancelled, 20000);
        QVERIFY(!view.heatmap->isComputing());
        m_proxy->stall = 0;
        m_proxy->stallMs = 0;
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy->responsesInProgress(), 0, 20000);
        m_proxy->stallMs = 3000;
        const std::uint64_t rowsBytes = 1000 * kRowBytes;
        const std::uint8_t* rows = m_slice.slice.tensor->data + 90000 * kRowBytes;
        QVERIFY(gguf::mappedBytesToFetch(rows, rowsBytes) >= rowsBytes);  // the cancelled read left nothing half-counted

        // Clicking the placeholder computes again; the region fetches and the view shows it.
        view.heatmap->requestRegion(region);
        QVERIFY(waitShown(view.heatmap));
        QCOMPARE(gguf::mappedBytesToFetch(rows, rowsBytes), std::uint64_t(0));
        for (float cell : view.heatmap->cells())
            QCOMPARE(cell, 0.0f);  // the file's hole reads as zero blocks
    }

    // A server that stops while a view reads: the view fails after one read's tries with "cannot
    // reach the server", not after every band's tries in turn (70-110 s with the defaults).
    void stoppedServerIsReportedAfterOneReadsTries()
    {
        gguf::remote::RemoteOptions options;
        options.firstBackoff = std::chrono::milliseconds(10);
        options.firstReadBytes = 64u << 10;
        auto model = gguf::remote::openRemoteModel(m_proxy->url("/sparse-q4_K.gguf"), options);
        QVERIFY2(model, model ? "" : model.error().toString().c_str());
        SliceRef slice;
        slice.model = model.value();
        slice.slice = gguf::wholeTensor(*slice.model->findTensor("big.q4_K"));
        HeatmapWithProgress view;
        view.heatmap->setSlice(slice);
        QTRY_COMPARE(view.heatmap->state(), ZoomableMatrixView::State::NeedsFetch);
        m_proxy->dropConnections = true;
        m_proxy->resetCounters();
        view.heatmap->requestRegion({20000, 20064, 0, kColumns});  // small enough to compute at once, in several bands
        QTRY_COMPARE_WITH_TIMEOUT(view.heatmap->state(), ZoomableMatrixView::State::Failed, kHangGuardMs);
        m_proxy->dropConnections = false;
        QVERIFY2(view.heatmap->placeholderText().contains(QStringLiteral("cannot reach the server")), qPrintable(view.heatmap->placeholderText()));
        QVERIFY2(m_proxy->droppedConnections() <= std::uint64_t(options.maxAttempts), QByteArray::number(qulonglong(m_proxy->droppedConnections())));
    }

private:
    QTemporaryDir m_root;
    QTemporaryDir m_work;
    LocalWebServer m_server;
    std::unique_ptr<FaultProxy> m_proxy;
    SliceRef m_slice;
};

QTEST_MAIN(TestGuiRemoteFetch)
#include "tst_gui_remote_fetch.moc"
