// The zoomable heatmap of the Tensors page driven offscreen: a
// finished or cancelled view starts nothing by itself, even for a billion-weight tensor whose
// grid depends on the widget's size; zoom stops at the matrix, resets by double-click and button,
// keeps a locked colour scale and ticks only whole rows and columns; placeholders instead of
// empty axes; a 1-D tensor drawn as a line of its values.

#include "DequantizeWhole.h"
#include "Fixtures.h"
#include "IdleWatch.h"
#include "OneTensorHeader.h"
#include "OpenFixture.h"
#include "Waits.h"
#include "WholeSlice.h"
#include "ui/common/ColourRangeBox.h"
#include "ui/common/JobProgressBar.h"
#include "core/gguf/Dequantize.h"
#include "ui/tensor/BlockScalesView.h"
#include "ui/tensor/DistributionView.h"
#include "ui/tensor/HeatmapView.h"
#include "ui/tensor/TensorViewPage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QRegularExpression>
#include <QSet>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>
#include <unistd.h>

using namespace testsupport;

namespace {
constexpr int kJobTimeoutMs = kHangGuardMs;

// A GGUF v3 file with one q4_K tensor of `rows` rows of `columns`, its data a hole (ftruncate):
// all-zero blocks, which q4_K decodes to zeros, at the cost of a header on disk. Empty on failure.
QString writeSparseQ4K(const QString& dir, std::uint64_t columns, std::uint64_t rows)
{
    const QByteArray header = testsupport::oneTensorHeader("big.q4_K", 12, columns, rows);  // 12: q4_K
    const QString path = dir + QStringLiteral("/sparse-q4_K.gguf");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(header) != header.size())
        return {};
    const std::uint64_t bytes = columns / 256 * 144 * rows;
    if (!file.resize(header.size() + static_cast<qint64>(bytes)))
        return {};
    return path;
}

// The heatmap with the progress bar under it, as the Tensors page lays them out.
struct HeatmapWithProgress {
    QWidget window;
    JobProgressBar* progress = new JobProgressBar(&window);
    HeatmapView* heatmap = new HeatmapView(progress, &window);

    HeatmapWithProgress(int width, int height)
    {
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(heatmap, 1);
        layout->addWidget(progress);
        window.resize(width, height);
        window.show();
    }
};

bool waitShown(HeatmapView* heatmap)
{
    return QTest::qWaitFor([heatmap] { return !heatmap->isComputing() && heatmap->state() == ZoomableMatrixView::State::Shown; },
                           kJobTimeoutMs);
}

// The mouse moved (no button) to the middle of the plot's axis rect, as a pointer over it would.
QString hoverAtCentre(HeatmapView* heatmap, QLabel* hover)
{
    QCustomPlot* plot = heatmap->plot();
    const QPointF centre = plot->axisRect()->rect().center();
    QMouseEvent move(QEvent::MouseMove, centre, plot->mapToGlobal(centre), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(plot, &move);
    return hover->text();
}

std::vector<float> magnitudes(const std::vector<float>& values)
{
    std::vector<float> out;
    for (const float value : values)
        if (std::isfinite(value))
            out.push_back(std::fabs(value));
    std::sort(out.begin(), out.end());
    return out;
}

// Zooms as the mouse would (the axes' ranges change) and waits for the grid of the new view.
bool zoomTo(HeatmapView* heatmap, QCPRange columns, QCPRange rows)
{
    QSignalSpy ready(heatmap, &HeatmapView::heatmapReady);
    heatmap->plot()->xAxis->setRange(columns);
    heatmap->plot()->yAxis->setRange(rows);
    return ready.wait(kJobTimeoutMs) && waitShown(heatmap);
}
}  // namespace

class TestGuiHeatmap : public QObject {
    Q_OBJECT
private slots:
    // Item 1: a billion weights do not fit the plot, so the grid follows the widget's size. The
    // progress bar used to come and go below it, resizing it, and each size asked for its grid.
    void billionWeightHeatmapStaysFinished()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = writeSparseQ4K(dir.path(), 8192, 131072);
        if (path.isEmpty())
            QSKIP("the temporary folder cannot hold a sparse 600 MB file");
        auto model = openModelAt(path);
        QVERIFY(model);
        HeatmapWithProgress view(1600, 1000);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(model, "big.q4_K"));
        QVERIFY(view.heatmap->isComputing());
        QTRY_VERIFY_WITH_TIMEOUT(!view.heatmap->isComputing() && !view.heatmap->cells().empty(), kJobTimeoutMs);
        QVERIFY(view.heatmap->grid().rows < 131072u);  // reduced to the plot's size
        // All zeros (a hole in the file): the plot says so instead of showing a blank map.
        QVERIFY2(view.heatmap->allZeroNote().contains(QLatin1String("is 0")), qPrintable(view.heatmap->allZeroNote()));
        QSignalSpy ready(view.heatmap, &HeatmapView::heatmapReady);
        const int starts = busyStartsWhileIdle([&view] { return view.heatmap->isComputing(); });
        QVERIFY2(starts == 0 && ready.isEmpty(),
                 qPrintable(QStringLiteral("%1 job(s) started and %2 heatmap(s) shown with no input").arg(starts).arg(ready.count())));
    }

    // Item 1 and 11: Cancel hides the bar; the view says it was cancelled and stays so, without
    // the previous tensor's map or scale, until clicked.
    void cancelledHeatmapStaysCancelled()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = writeSparseQ4K(dir.path(), 8192, 131072);
        if (path.isEmpty())
            QSKIP("the temporary folder cannot hold a sparse 600 MB file");
        auto big = openModelAt(path);
        QVERIFY(big);
        auto small = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(small);
        HeatmapWithProgress view(1200, 800);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(small, "token_embd.weight"));
        QVERIFY(waitShown(view.heatmap));

        view.heatmap->setSlice(wholeSlice(big, "big.q4_K"));
        QVERIFY(view.heatmap->isComputing());
        QCOMPARE(view.heatmap->state(), ZoomableMatrixView::State::Computing);
        QVERIFY(view.heatmap->cells().empty());  // the previous tensor is gone at once
        auto* cancel = view.progress->findChild<QPushButton*>(QStringLiteral("cancelJobButton"));
        QVERIFY(cancel);
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(!view.heatmap->isComputing(), kJobTimeoutMs);
        QCOMPARE(view.heatmap->state(), ZoomableMatrixView::State::Cancelled);
        QVERIFY(view.heatmap->placeholder()->isVisible());
        QVERIFY2(view.heatmap->placeholderText().contains(QLatin1String("click to compute")), qPrintable(view.heatmap->placeholderText()));
        const int started = view.heatmap->jobsStarted();
        QCOMPARE(busyStartsWhileIdle([&view] { return view.heatmap->isComputing(); }), 0);
        QCOMPARE(view.heatmap->jobsStarted(), started);
        // A larger window is no reason to compute what the user cancelled.
        view.window.resize(1400, 900);
        QCOMPARE(busyStartsWhileIdle([&view] { return view.heatmap->isComputing(); }), 0);
        QCOMPARE(view.heatmap->state(), ZoomableMatrixView::State::Cancelled);

        QTest::mouseClick(view.heatmap->placeholder(), Qt::LeftButton);
        QVERIFY(view.heatmap->isComputing());
        QVERIFY(waitShown(view.heatmap));
        QVERIFY(!view.heatmap->placeholder()->isVisible());
    }

    // Item 11: before a selection there is a plain sentence, not axes 0–5.
    void placeholderBeforeASelection()
    {
        TensorViewPage page;
        page.resize(1000, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QCOMPARE(page.heatmap()->state(), ZoomableMatrixView::State::Empty);
        QVERIFY(page.heatmap()->placeholder()->isVisible());
        QVERIFY2(page.heatmap()->placeholderText().contains(QLatin1String("Select a tensor")), qPrintable(page.heatmap()->placeholderText()));
        QVERIFY2(page.distribution()->placeholderText().contains(QLatin1String("Select a tensor")),
                 qPrintable(page.distribution()->placeholderText()));
        QVERIFY2(page.blockScales()->placeholderText().contains(QLatin1String("Select a tensor")),
                 qPrintable(page.blockScales()->placeholderText()));
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        page.setTensor(model, model->findTensor("blk.0.attn_q.weight"));
        QVERIFY(waitShown(page.heatmap()));
        QCOMPARE(page.heatmap()->placeholderText(), QString());
        QTRY_VERIFY_WITH_TIMEOUT(page.distribution()->result().has_value(), kJobTimeoutMs);
        QCOMPARE(page.distribution()->placeholderText(), QString());
        // An F32 tensor has no block scales: the plots say so instead of showing empty axes.
        QVERIFY2(page.blockScales()->placeholderText().contains(QLatin1String("no per-block scales")),
                 qPrintable(page.blockScales()->placeholderText()));
        auto q4 = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(q4);
        page.setTensor(q4, q4->findTensor("blk.0.attn_q.weight"));
        QTRY_VERIFY_WITH_TIMEOUT(page.blockScales()->overview().has_value(), kJobTimeoutMs);
        QCOMPARE(page.blockScales()->placeholderText(), QString());
        page.setTensor(nullptr, nullptr);
        QCOMPARE(page.heatmap()->state(), ZoomableMatrixView::State::Empty);
        QVERIFY(page.heatmap()->cells().empty());
        QVERIFY(page.distribution()->placeholderText().contains(QLatin1String("Select a tensor")));
    }

    // Item 8: zooming out stops at the matrix; zooming in at one element.
    void zoomStaysOnTheMatrix()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(model, "token_embd.weight"));  // 512 rows of 256
        QVERIFY(waitShown(view.heatmap));
        QCustomPlot* plot = view.heatmap->plot();
        plot->xAxis->setRange(-2000, 3000);
        plot->yAxis->setRange(-4000, 6000);
        QCOMPARE(plot->xAxis->range().lower, -0.5);
        QCOMPARE(plot->xAxis->range().upper, 255.5);
        QCOMPARE(plot->yAxis->range().lower, -0.5);
        QCOMPARE(plot->yAxis->range().upper, 511.5);
        plot->xAxis->setRange(100.0, 100.01);
        QVERIFY(plot->xAxis->range().size() >= 1.0);
        // Panning past the edge keeps the view's size and stops at the edge.
        plot->yAxis->setRange(500, 530);
        QCOMPARE(plot->yAxis->range().upper, 511.5);
        QCOMPARE(plot->yAxis->range().size(), 30.0);
    }

    // Item 8: double-click and the Reset zoom button show the whole matrix again.
    void doubleClickAndResetShowTheWholeMatrix()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(waitShown(view.heatmap));
        QCustomPlot* plot = view.heatmap->plot();
        const auto isWhole = [&]() {
            const gguf::HeatmapRegion& r = view.heatmap->grid().region;
            return r.rowBegin == 0 && r.rowEnd == 512 && r.columnBegin == 0 && r.columnEnd == 256 && plot->xAxis->range().lower == -0.5
                && plot->xAxis->range().upper == 255.5 && plot->yAxis->range().lower == -0.5 && plot->yAxis->range().upper == 511.5;
        };
        QVERIFY(isWhole());
        QVERIFY(zoomTo(view.heatmap, QCPRange(19.5, 59.5), QCPRange(99.5, 139.5)));
        QCOMPARE(view.heatmap->grid().region.rowBegin, 100u);
        QVERIFY(!isWhole());

        QSignalSpy ready(view.heatmap, &HeatmapView::heatmapReady);
        QTest::mouseDClick(plot, Qt::LeftButton, {}, plot->axisRect()->rect().center());
        QVERIFY(ready.count() > 0 || ready.wait(kJobTimeoutMs));
        QVERIFY(waitShown(view.heatmap));
        QVERIFY(isWhole());

        QVERIFY(zoomTo(view.heatmap, QCPRange(19.5, 59.5), QCPRange(99.5, 139.5)));
        auto* reset = view.heatmap->findChild<QToolButton*>(QStringLiteral("heatmapPlotResetZoom"));
        QVERIFY(reset);
        QVERIFY(reset->isEnabled());
        ready.clear();
        reset->click();
        QVERIFY(ready.count() > 0 || ready.wait(kJobTimeoutMs));
        QVERIFY(waitShown(view.heatmap));
        QVERIFY(isWhole());
    }

    // Item 8: the colour scale follows each zoom level unless locked.
    void lockedColourScaleHoldsWhileZooming()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        // The full range: the bar ends at the largest |weight| shown.
        view.heatmap->colourRangeBox()->mode()->setCurrentIndex(0);
        view.heatmap->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(waitShown(view.heatmap));
        const QCPRange whole = view.heatmap->colourRange();
        float largest = 0.0f;
        for (const float value : view.heatmap->cells())
            largest = std::max(largest, std::fabs(value));
        QCOMPARE(whole.upper, static_cast<double>(largest));

        // A 4 × 4 corner: its largest |weight| is below the tensor's, so its own scale is narrower.
        QVERIFY(zoomTo(view.heatmap, QCPRange(-0.5, 3.5), QCPRange(-0.5, 3.5)));
        QCOMPARE(view.heatmap->grid().rows, 4u);
        float corner = 0.0f;
        for (const float value : view.heatmap->cells())
            corner = std::max(corner, std::fabs(value));
        QVERIFY(corner < largest);
        QCOMPARE(view.heatmap->colourRange().upper, static_cast<double>(corner));

        view.heatmap->resetZoom();
        QVERIFY(waitShown(view.heatmap));
        QCOMPARE(view.heatmap->colourRange().upper, whole.upper);
        auto* lock = view.heatmap->findChild<QCheckBox*>(QStringLiteral("heatmapPlotLockScale"));
        QVERIFY(lock);
        lock->setChecked(true);
        QVERIFY(view.heatmap->isColourScaleLocked());
        QVERIFY(zoomTo(view.heatmap, QCPRange(-0.5, 3.5), QCPRange(-0.5, 3.5)));
        QCOMPARE(view.heatmap->grid().rows, 4u);
        QCOMPARE(view.heatmap->colourRange().upper, whole.upper);
        QCOMPARE(view.heatmap->colourRange().lower, whole.lower);
        lock->setChecked(false);
        QCOMPARE(view.heatmap->colourRange().upper, static_cast<double>(corner));
    }

    // Item 8: rows and columns are whole numbers at every zoom level.
    void ticksAreWholeNumbers()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(waitShown(view.heatmap));
        QCustomPlot* plot = view.heatmap->plot();
        for (const double span : {511.0, 40.0, 6.0, 3.0, 1.0}) {
            plot->yAxis->setRange(200.0 - 0.5, 200.0 - 0.5 + span);
            plot->xAxis->setRange(100.0 - 0.5, 100.0 - 0.5 + std::min(span, 255.0));
            plot->replot();
            for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
                const QVector<double> ticks = axis->tickVector();
                QVERIFY2(!ticks.isEmpty(), qPrintable(QStringLiteral("span %1").arg(span)));
                for (const double tick : ticks)
                    QVERIFY2(tick == std::round(tick), qPrintable(QStringLiteral("span %1: tick %2").arg(span).arg(tick)));
            }
        }
    }

    // Item 4: a 1-D tensor is a line of its values over the element index, not a one-row map.
    void oneDimensionalTensorIsALine()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(model, "blk.0.attn_norm.weight"));  // [256]
        QVERIFY(waitShown(view.heatmap));
        QCPGraph* line = view.heatmap->lineGraph();
        QVERIFY(line);
        QCOMPARE(line->dataCount(), 256);
        const gguf::TensorInfo& tensor = *model->findTensor("blk.0.attn_norm.weight");
        std::vector<float> values(256);
        QVERIFY(gguf::dequantizeRows(tensor, 0, 1, values));
        for (int i = 0; i < 256; ++i) {
            QCOMPARE(line->data()->at(i)->key, static_cast<double>(i));
            QCOMPARE(line->data()->at(i)->value, static_cast<double>(values[static_cast<std::size_t>(i)]));
        }
        // The value axis spans the values; no colour bar.
        const auto [low, high] = std::minmax_element(values.begin(), values.end());
        QVERIFY(view.heatmap->colourRange().lower <= *low && view.heatmap->colourRange().upper >= *high);
        QCPColorScale* scale = nullptr;
        for (int i = 0; i < view.heatmap->plot()->plotLayout()->elementCount(); ++i)
            if (auto* s = qobject_cast<QCPColorScale*>(view.heatmap->plot()->plotLayout()->elementAt(i)))
                scale = s;
        QVERIFY(scale && !scale->visible());

        // Back to a matrix: the map and its bar return, the line goes.
        view.heatmap->setSlice(wholeSlice(model, "blk.0.attn_q.weight"));
        QVERIFY(waitShown(view.heatmap));
        QVERIFY(!view.heatmap->lineGraph());
        QVERIFY(scale->visible());
    }
    // The value under the mouse is on screen: a label with room for its text, on a heatmap and
    // on a line plot. It used to sit after a stretch with an Ignored size policy and get 0 px.
    void hoverReadoutIsVisible()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        auto* hover = view.heatmap->findChild<QLabel*>(QStringLiteral("hoverLabel"));
        QVERIFY(hover);
        for (const char* name : {"token_embd.weight", "blk.0.attn_norm.weight"}) {
            view.heatmap->setSlice(wholeSlice(model, name));
            QVERIFY(waitShown(view.heatmap));
            const QString text = hoverAtCentre(view.heatmap, hover);
            QVERIFY2(!text.isEmpty(), name);
            QVERIFY2(text.contains(QStringLiteral("row")) || text.contains(QStringLiteral("element")), qPrintable(text));
            QVERIFY(hover->isVisible());
            QVERIFY2(hover->width() >= hover->fontMetrics().horizontalAdvance(text),
                     qPrintable(QStringLiteral("%1: %2 px for \"%3\"").arg(QLatin1String(name)).arg(hover->width()).arg(text)));
            QVERIFY(hover->height() >= hover->fontMetrics().height());
            QCOMPARE(view.heatmap->allZeroNote(), QString());
        }
    }

    // The readout names the rows and columns the value under the pointer is of. Zoomed out,
    // a cell is the mean of several rows: it used to name one row (not always one of them) and
    // give the mean of others ("row 201: 0.1466758" was row 200's value).
    void hoverNamesTheRowsOfItsValue()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        const gguf::TensorInfo* tensor = model->findTensor("token_embd.weight");
        QVERIFY(tensor);
        const std::vector<float> values = dequantizeWhole(*tensor);
        QVERIFY(!values.empty());
        const auto width = static_cast<std::uint64_t>(tensor->ne[0]);
        HeatmapWithProgress view(700, 500);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        auto* hover = view.heatmap->findChild<QLabel*>(QStringLiteral("hoverLabel"));
        QVERIFY(hover);
        view.heatmap->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(waitShown(view.heatmap));

        const QRegularExpression readout(QStringLiteral("^rows? (\\d+)(?:\u2013(\\d+))?, columns? (\\d+)(?:\u2013(\\d+))?: (?:mean )?(\\S+)(?: \\(.*\\))?$"));
        QCustomPlot* plot = view.heatmap->plot();
        const QRect area = plot->axisRect()->rect();
        int aggregated = 0;
        for (int step = 1; step < 24; ++step) {
            const QPointF at(area.left() + area.width() * step / 24.0, area.top() + area.height() * ((step * 7) % 24) / 24.0);
            QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QCoreApplication::sendEvent(plot, &move);
            const QRegularExpressionMatch match = readout.match(hover->text());
            QVERIFY2(match.hasMatch(), qPrintable(hover->text()));
            const std::uint64_t firstRow = match.captured(1).toULongLong();
            const std::uint64_t lastRow = match.captured(2).isEmpty() ? firstRow : match.captured(2).toULongLong();
            const std::uint64_t firstColumn = match.captured(3).toULongLong();
            const std::uint64_t lastColumn = match.captured(4).isEmpty() ? firstColumn : match.captured(4).toULongLong();
            double sum = 0.0;
            for (std::uint64_t row = firstRow; row <= lastRow; ++row)
                for (std::uint64_t column = firstColumn; column <= lastColumn; ++column)
                    sum += values[row * width + column];
            const double mean = sum / static_cast<double>((lastRow - firstRow + 1) * (lastColumn - firstColumn + 1));
            const double shown = match.captured(5).toDouble();
            QVERIFY2(std::fabs(shown - mean) <= 1e-5 * std::max(1.0, std::fabs(mean)),
                     qPrintable(QStringLiteral("%1: the mean of those weights is %2").arg(hover->text()).arg(mean, 0, 'g', 9)));
            aggregated += lastRow > firstRow ? 1 : 0;
        }
        QVERIFY2(aggregated > 0, "every readout was of one row: the view was not zoomed out");

        // Zoomed in to single weights: the one under the pointer, to the last digit.
        QVERIFY(zoomTo(view.heatmap, QCPRange(9.5, 19.5), QCPRange(99.5, 109.5)));
        const QString text = hoverAtCentre(view.heatmap, hover);
        const QRegularExpressionMatch match = readout.match(text);
        QVERIFY2(match.hasMatch() && match.captured(2).isEmpty() && match.captured(4).isEmpty(), qPrintable(text));
        const float value = values[match.captured(1).toULongLong() * width + match.captured(3).toULongLong()];
        QCOMPARE(match.captured(5), QString::number(static_cast<double>(value), 'g', 9));
    }

    // A line's value axis is labelled with the values' own precision: each tick label reads as
    // its tick (the row axis's whole-number format turned 0.95 … 1.05 into "1, 1, 1").
    void lineValueAxisShowsFractions()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(model, "blk.0.attn_norm.weight"));
        QVERIFY(waitShown(view.heatmap));
        QVERIFY(view.heatmap->lineGraph());
        QCustomPlot* plot = view.heatmap->plot();
        // Zoomed to a few elements, the value axis spans a fraction of one: whole-number labels
        // cannot tell its ticks apart.
        QSignalSpy ready(view.heatmap, &HeatmapView::heatmapReady);
        plot->xAxis->setRange(QCPRange(9.5, 11.5));
        QVERIFY(ready.wait(kJobTimeoutMs) && waitShown(view.heatmap));
        QVERIFY(plot->yAxis->range().size() < 1.0);
        plot->replot();
        const QVector<double> ticks = plot->yAxis->tickVector();
        const QVector<QString> labels = plot->yAxis->tickVectorLabels();
        QVERIFY(ticks.size() >= 2);
        QCOMPARE(labels.size(), ticks.size());
        const double step = ticks[1] - ticks[0];
        bool fractional = false;
        for (int i = 0; i < ticks.size(); ++i) {
            fractional = fractional || ticks[i] != std::round(ticks[i]);
            bool ok = false;
            const double read = QLocale().toDouble(labels[i], &ok);
            QVERIFY2(ok && std::fabs(read - ticks[i]) < step * 1e-3, qPrintable(QStringLiteral("tick %1 labelled \"%2\"").arg(ticks[i]).arg(labels[i])));
        }
        QVERIFY2(fractional, "the fixture's values should need fractional ticks");
        QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());

        // Back to a matrix: its row axis is whole numbers again.
        view.heatmap->setSlice(wholeSlice(model, "blk.0.attn_q.weight"));
        QVERIFY(waitShown(view.heatmap));
        QCOMPARE(plot->yAxis->numberPrecision(), 0);
    }

    // The bar ends at the 99.9th percentile of |value| by default, so one outlier does not paint
    // the rest white; the full range, a typed range and abs max's one-sided scale on request.
    void colourRangeClipsOutliers()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(900, 700);
        QVERIFY(QTest::qWaitForWindowExposed(&view.window));
        view.heatmap->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(waitShown(view.heatmap));
        const std::vector<float> sorted = magnitudes(view.heatmap->cells());
        QVERIFY(sorted.size() > 1000);
        const auto rank = static_cast<std::size_t>(std::ceil(0.999 * static_cast<double>(sorted.size()))) - 1;
        QCOMPARE(view.heatmap->colourRange().upper, static_cast<double>(sorted[rank]));
        QCOMPARE(view.heatmap->colourRange().lower, -static_cast<double>(sorted[rank]));
        QVERIFY(view.heatmap->colourRange().upper < static_cast<double>(sorted.back()));

        ColourRangeBox* range = view.heatmap->colourRangeBox();
        range->mode()->setCurrentIndex(0);
        QCOMPARE(view.heatmap->colourRange().upper, static_cast<double>(sorted.back()));
        range->setManualRange(-0.25, 0.5);
        QCOMPARE(view.heatmap->colourRange().lower, -0.25);
        QCOMPARE(view.heatmap->colourRange().upper, 0.5);
        auto* low = view.heatmap->findChild<QLineEdit*>(QStringLiteral("heatmapPlotColourRangeLow"));
        QVERIFY(low && low->isVisible());
        range->mode()->setCurrentIndex(0);
        QVERIFY(!low->isVisible());

        // Abs max is a magnitude: from zero, on a scale whose zero end is white.
        auto* aggregate = view.heatmap->findChild<QComboBox*>(QStringLiteral("aggregateCombo"));
        QVERIFY(aggregate);
        QSignalSpy ready(view.heatmap, &HeatmapView::heatmapReady);
        aggregate->setCurrentIndex(aggregate->findText(QStringLiteral("Abs max")));
        QVERIFY(ready.wait(kJobTimeoutMs) && waitShown(view.heatmap));
        QCOMPARE(view.heatmap->colourRange().lower, 0.0);
        QCOMPARE(view.heatmap->colourRange().upper, static_cast<double>(magnitudes(view.heatmap->cells()).back()));
        auto* map = qobject_cast<QCPColorMap*>(view.heatmap->plot()->plottable(0));
        QVERIFY(map);
        QCOMPARE(map->gradient().color(0.0, QCPRange(0.0, 1.0)), QColor(247, 247, 247).rgb());
    }

    // NaN cells are left undrawn over a hatch, never painted in a colour of their own.
    void nanCellsAreNotAColour()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(model);
        HeatmapWithProgress view(600, 400);
        view.heatmap->setSlice(wholeSlice(model, "token_embd.weight"));
        QVERIFY(waitShown(view.heatmap));
        auto* map = qobject_cast<QCPColorMap*>(view.heatmap->plot()->plottable(0));
        QVERIFY(map);
        QCOMPARE(map->gradient().nanHandling(), QCPColorGradient::nhTransparent);
        QCOMPARE(view.heatmap->plot()->axisRect()->backgroundBrush().style(), Qt::BDiagPattern);
    }
    // A block-scale map shows blocks: cells not interpolated into each other, whole cells at the
    // edges, sub-block columns and rows on whole-number ticks.
    void blockScaleMapShowsWholeBlocks()
    {
        auto model = openFixtureModel(QStringLiteral("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        QWidget window;
        auto* progress = new JobProgressBar(&window);
        auto* view = new BlockScalesView(progress, &window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(view, 1);
        layout->addWidget(progress);
        window.resize(900, 700);
        window.show();
        QSignalSpy ready(view, &BlockScalesView::overviewReady);
        view->setSlice(wholeSlice(model, "blk.0.attn_q.weight"));
        QVERIFY(ready.wait(kJobTimeoutMs));
        const gguf::ScaleOverview& overview = *view->overview();
        QCustomPlot* plot = view->heatmapPlot();
        auto* map = qobject_cast<QCPColorMap*>(plot->plottable(0));
        QVERIFY(map);
        QVERIFY(!map->interpolate());
        QCOMPARE(plot->xAxis->range().lower, -0.5);
        QCOMPARE(plot->xAxis->range().upper, static_cast<double>(overview.subBlocksPerRow) - 0.5);
        QCOMPARE(plot->yAxis->range().lower, -0.5);
        QCOMPARE(plot->yAxis->range().upper, static_cast<double>(model->findTensor("blk.0.attn_q.weight")->ne[1]) - 0.5);
        plot->replot();
        for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
            QVERIFY(!axis->tickVector().isEmpty());
            for (const double tick : axis->tickVector())
                QVERIFY2(tick == std::round(tick), qPrintable(QString::number(tick)));
            for (const QString& label : axis->tickVectorLabels())
                QVERIFY2(!label.contains(QLatin1Char('.')), qPrintable(label));
        }
        QCOMPARE(map->gradient().nanHandling(), QCPColorGradient::nhTransparent);
    }
};

QTEST_MAIN(TestGuiHeatmap)
#include "tst_gui_heatmap.moc"
