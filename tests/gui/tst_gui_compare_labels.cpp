// Labels of the Compare page a user can trust, measured at the sizes the page really has (a
// 1280x800 window, and the plots at their minimum width): the x tick labels of the scatter and
// the histograms never run together, a placeholder's sentence fits over its plot, and every
// totals row's text fits its column, even when the filter hides the tensors that sized it.

#include "ui/compare/ComparePage.h"
#include "ui/compare/ErrorHeatmapView.h"
#include "ui/compare/TensorErrorView.h"
#include "OpenFixture.h"
#include "Waits.h"

#include <QFontMetrics>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTest>
#include <qcustomplot.h>

using namespace testsupport;

Q_DECLARE_METATYPE(QCPRange)

namespace {

constexpr QSize kWindow(1280, 800);

bool waitFinished(ComparePage& page)
{
    QSignalSpy finished(&page, &ComparePage::comparisonFinished);
    return (page.results() || finished.wait(kHangGuardMs)) && page.results();
}

int rowOf(const gguf::ModelComparison& comparison, std::string_view name)
{
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].reference->name == name)
            return static_cast<int>(r);
    return -1;
}

// The splitter between the heatmap and the plots.
QSplitter* plotsSplitter(TensorErrorView* view)
{
    for (QSplitter* splitter : view->findChildren<QSplitter*>())
        if (splitter->orientation() == Qt::Horizontal)
            return splitter;
    return nullptr;
}

// The first pair of neighbouring x tick labels whose rectangles intersect, as QCustomPlot draws
// them (centred on the tick, in the axis's tick-label font); empty when none do.
QString overlappingTickLabels(QCPAxis* axis)
{
    const QFontMetrics metrics(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    QRectF previous;
    for (qsizetype i = 0; i < ticks.size(); ++i) {
        const int width = metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignHCenter, labels[i]).width();
        const QRectF rect(axis->coordToPixel(ticks[i]) - width / 2.0, 0, width, metrics.height());
        if (i > 0 && rect.intersects(previous))
            return QStringLiteral("\"%1\" and \"%2\" (axis %3 px wide, ticks %4)")
                .arg(labels[i - 1], labels[i])
                .arg(axis->axisRect()->width())
                .arg(QStringList(labels.begin(), labels.end()).join(QLatin1Char(' ')));
        previous = rect;
    }
    return {};
}

}  // namespace

class TestGuiCompareLabels : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().remove(QStringLiteral("compareDialog")); }

    // "0.000250.00050.00075" was seen under a narrow scatter: neighbouring x tick labels of the
    // scatter and the histograms never intersect, at the width a 1280x800 window gives the plots
    // and at the plots' minimum width, for ranges of block scales and of signed errors.
    void plotTickLabelsNeverOverlap_data()
    {
        QTest::addColumn<bool>("minimumWidth");
        QTest::addColumn<QCPRange>("range");
        const QList<QPair<const char*, QCPRange>> ranges{
            {"0..0.00075", QCPRange(0.0, 0.00075)},           {"1e-5..3e-3", QCPRange(1e-5, 3e-3)},
            {"-0.00075..0.00075", QCPRange(-0.00075, 0.00075)}, {"-0.00055..0.00055", QCPRange(-0.00055, 0.00055)},
            {"-0.0037..0.0037", QCPRange(-0.0037, 0.0037)},    {"0..0.0011", QCPRange(0.0, 0.0011)},
            {"-1.7e-5..1.7e-5", QCPRange(-1.7e-5, 1.7e-5)},
        };
        for (const bool minimum : {false, true})
            for (const auto& [name, range] : ranges)
                QTest::newRow(qPrintable(QStringLiteral("%1, %2").arg(minimum ? QStringLiteral("minimum width") : QStringLiteral("1280x800"),
                                                                      QLatin1String(name))))
                    << minimum << range;
    }

    void plotTickLabelsNeverOverlap()
    {
        QFETCH(bool, minimumWidth);
        QFETCH(QCPRange, range);
        auto f16 = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        auto q4 = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(f16 && q4);
        ComparePage page({f16, q4}, {});
        page.resize(kWindow);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(waitFinished(page));
        TensorErrorView* view = page.tensorView();
        page.findChild<QTabWidget*>(QStringLiteral("compareTabs"))->setCurrentWidget(view);
        QSignalSpy histogram(view, &TensorErrorView::histogramReady);
        QSignalSpy scatter(view, &TensorErrorView::scatterReady);
        view->setTensorRow(static_cast<std::size_t>(rowOf(*page.comparison(), "blk.0.attn_q.weight")));
        QVERIFY(histogram.count() > 0 || histogram.wait(kHangGuardMs));
        QVERIFY(scatter.count() > 0 || scatter.wait(kHangGuardMs));
        if (minimumWidth) {
            QSplitter* split = plotsSplitter(view);
            QVERIFY(split);
            const int plotsMinimum = split->widget(1)->minimumWidth();
            split->setSizes({split->width() - plotsMinimum, plotsMinimum});
            QCoreApplication::processEvents();
            QCOMPARE(split->widget(1)->width(), plotsMinimum);
        }
        for (QCustomPlot* plot : {view->scatterPlot(), view->histogramPlot()}) {
            plot->xAxis->setRange(range);
            plot->replot();
            const QString overlap = overlappingTickLabels(plot->xAxis);
            QVERIFY2(overlap.isEmpty(), qPrintable(plot->objectName() + QStringLiteral(": ") + overlap));
            QVERIFY2(plot->xAxis->tickVector().size() >= 2, qPrintable(plot->objectName() + QStringLiteral(": fewer than two ticks")));
        }
    }
};

QTEST_MAIN(TestGuiCompareLabels)
#include "tst_gui_compare_labels.moc"
