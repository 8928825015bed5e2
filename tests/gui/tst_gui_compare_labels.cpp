// Labels of the Compare page a user can trust, measured at the sizes the page really has (a
// 1280x800 window, and the views at their minimum sizes): the x tick labels of the scatter and
// the histograms never run together, a placeholder's sentence fits over its plot, and every
// totals row's text fits its column, even when the filter hides the tensors that sized it.

#include "ui/common/PlaceholderText.h"
#include "ui/common/PlotPlaceholder.h"
#include "ui/compare/ComparePage.h"
#include "ui/compare/ErrorHeatmapView.h"
#include "ui/compare/TensorErrorView.h"
#include "ui/session/ComparisonTableModel.h"
#include "ui/session/ComparisonTotalsModel.h"
#include "OpenFixture.h"
#include "Waits.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QLayout>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTest>
#include <numeric>
#include <qcustomplot.h>

using namespace testsupport;

Q_DECLARE_METATYPE(QCPRange)

namespace {

constexpr QSize kWindow(1280, 800);

// Lays `page` out at 1280x800, shows it and waits for its comparison: false if it never came.
bool showCompared(ComparePage& page)
{
    page.resize(kWindow);
    page.show();
    if (!QTest::qWaitForWindowExposed(&page))
        return false;
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

// Gives `child` of `split` its minimum size and the other children the rest.
void squeeze(QSplitter* split, int child)
{
    const bool horizontal = split->orientation() == Qt::Horizontal;
    QWidget* widget = split->widget(child);
    const QSize minimum = widget->minimumSizeHint().expandedTo(widget->minimumSize());
    QList<int> sizes = split->sizes();
    const int total = std::accumulate(sizes.begin(), sizes.end(), 0);
    sizes[child] = horizontal ? minimum.width() : minimum.height();
    sizes[child == 0 ? 1 : 0] = total - sizes[child];
    split->setSizes(sizes);
}

// Why `text` would not show whole in `button`, the placeholder it fills: wrapped, taller than
// the room the button leaves it, or a line (a word too long to wrap at a space) wider; empty if
// it fits.
QString placeholderMisfit(const QPushButton* button, const PlaceholderText* text)
{
    const QMargins margins = button->layout()->contentsMargins();
    const int width = button->width() - margins.left() - margins.right();
    const int height = button->height() - margins.top() - margins.bottom();
    const QString where = QStringLiteral("%1 (%2x%3, text room %4x%5)").arg(button->objectName()).arg(button->width()).arg(button->height()).arg(width).arg(height);
    if (text->heightForWidth(width) > height)
        return QStringLiteral("%1: \"%2\" needs %3 px of height").arg(where, text->text()).arg(text->heightForWidth(width));
    if (text->widestLine(width) > width)
        return QStringLiteral("%1: \"%2\" has a line %3 px wide").arg(where, text->text()).arg(text->widestLine(width));
    return {};
}

}  // namespace

class TestGuiCompareLabels : public QObject {
    Q_OBJECT
private slots:
    // The tiny MoE pair every Tensor-tab row compares, opened once for all of them.
    void initTestCase()
    {
        m_f16 = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        m_q4 = openFixtureModel(QStringLiteral("tiny-moe-Q4_K.gguf"));
        QVERIFY(m_f16 && m_q4);
    }

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
        ComparePage page({m_f16, m_q4}, {});
        QVERIFY(showCompared(page));
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

    // A placeholder's sentence ("Select a tensor…", "No error: …", a failure) was seen cut at
    // both sides: over the heatmap, the histograms and the scatter of the Tensor tab, at
    // 1280x800 and with the plots at their minimum sizes, the wrapped text fits its button.
    void tensorPlaceholdersFit_data()
    {
        QTest::addColumn<QString>("squeezed");
        QTest::addColumn<QString>("text");
        const QStringList texts{
            QString(),  // whatever each shows before a tensor is picked
            QStringLiteral("No error: in every column this tensor's values equal the reference's (largest |error| 0)."),
            QStringLiteral("Cancelled — click to compute"),
            QStringLiteral("skipped: iq2_xxs needs importance weights and the importance matrix has no entry for blk.0.ffn_down_exps.weight\n(click to try again)"),
            QStringLiteral("shape [4096, 14336] in Q4_K_M · model-a-Q4_K_M, [14336, 4096] in the reference"),
            QStringLiteral("cannot read /home/user/models/Meta-Llama-3.1-70B-Instruct-GGUF/Meta-Llama-3.1-70B-Instruct-Q4_K_M-00001-of-00002.gguf: "
                           "Input/output error\n(click to try again)"),
        };
        // At 1280x800 as laid out, then with one view at its minimum width (the heatmap, the
        // plots) or height (the histograms, the scatter, both at the plots' minimum width).
        for (const QString& squeezed : {QString(), QStringLiteral("heatmap"), QStringLiteral("histogram"), QStringLiteral("scatter")})
            for (int i = 0; i < texts.size(); ++i)
                QTest::newRow(qPrintable(QStringLiteral("%1, text %2").arg(squeezed.isEmpty() ? QStringLiteral("1280x800") : squeezed + QStringLiteral(" at its minimum")).arg(i)))
                    << squeezed << texts[i];
    }

    void tensorPlaceholdersFit()
    {
        QFETCH(QString, squeezed);
        QFETCH(QString, text);
        ComparePage page({m_f16, m_q4}, {});
        QVERIFY(showCompared(page));
        TensorErrorView* view = page.tensorView();
        page.findChild<QTabWidget*>(QStringLiteral("compareTabs"))->setCurrentWidget(view);
        QCoreApplication::processEvents();
        QSplitter* split = plotsSplitter(view);
        QVERIFY(split);
        auto* plots = qobject_cast<QSplitter*>(split->widget(1));
        QVERIFY(plots);
        if (squeezed == QLatin1String("heatmap"))
            squeeze(split, 0);
        else if (squeezed == QLatin1String("histogram")) {
            squeeze(split, 1);
            squeeze(plots, 0);
        } else if (squeezed == QLatin1String("scatter")) {
            squeeze(split, 1);
            squeeze(plots, 1);
        }
        QCoreApplication::processEvents();
        const QList<QPushButton*> buttons{view->heatmap()->placeholder(),
                                          view->histogramPlot()->findChild<QPushButton*>(QStringLiteral("errorHistogramPlotPlaceholder")),
                                          view->scatterPlot()->findChild<QPushButton*>(QStringLiteral("blockScatterPlotPlaceholder"))};
        for (QPushButton* button : buttons) {
            QVERIFY(button && button->isVisible());
            auto* words = button->findChild<PlaceholderText*>();
            QVERIFY(words);
            if (!text.isEmpty())
                words->setText(text);
            QCoreApplication::processEvents();  // the plot grows to the room the text needs
            const QString misfit = placeholderMisfit(button, words);
            QVERIFY2(misfit.isEmpty(), qPrintable(misfit));
        }
    }
    // The totals under the Compare table share its column widths, which were sized to the
    // tensors shown above only: "all ffn_gate_inp_shexp" and the long kinds were cut, the more
    // so once the filter hid the tensors of the longest kind. Every section is as wide as both
    // tables' contents need, and the two tables keep one width per column.
    void totalsRowsFitTheirColumns_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::newRow("no filter") << QString();
        QTest::newRow("longest kind filtered out") << QStringLiteral("longest");
    }

    void totalsRowsFitTheirColumns()
    {
        QFETCH(QString, filter);
        const QString base = QStringLiteral("llama.cpp/arch/deepseek2/deepseek2");
        auto f32 = openFixtureModel(base + QStringLiteral("-F32.gguf"));
        auto q4 = openFixtureModel(base + QStringLiteral("-Q4_K_M.gguf"));
        QVERIFY(f32 && q4);
        ComparePage page({f32, q4}, {});
        QVERIFY(showCompared(page));
        QTableView* table = page.tableView();
        QTableView* totals = page.totalsView();
        QTRY_VERIFY_WITH_TIMEOUT(totals->isVisible(), kHangGuardMs);
        if (!filter.isEmpty()) {
            // Hide every tensor of the kind with the longest name: its totals row stays.
            QString longest;
            for (const gguf::SummaryErrorMetrics& summary : page.totalsModel()->summaries())
                if (summary.kind.size() > static_cast<std::size_t>(longest.size()))
                    longest = QString::fromStdString(summary.kind);
            QVERIFY(!longest.isEmpty());
            const int before = page.proxyModel()->rowCount();
            page.findChild<QLineEdit*>(QStringLiteral("filterEdit"))->setText(QStringLiteral("^(?!.*%1)").arg(QRegularExpression::escape(longest)));
            QTRY_VERIFY_WITH_TIMEOUT(page.proxyModel()->rowCount() < before, kHangGuardMs);
            for (int row = 0; row < page.proxyModel()->rowCount(); ++row)
                QVERIFY(!page.proxyModel()->index(row, ComparisonTableModel::KindColumn).data().toString().contains(longest));
        }
        // The sections follow the contents again when the table is laid out anew (a resize).
        page.resize(kWindow - QSize(40, 0));
        QCoreApplication::processEvents();
        const QAbstractItemView* tableView = table;
        const QAbstractItemView* totalsView = totals;
        QCOMPARE(totals->model()->columnCount(), table->model()->columnCount());
        for (int column = 0; column < table->model()->columnCount(); ++column) {
            const int section = table->horizontalHeader()->sectionSize(column);
            QCOMPARE(totals->horizontalHeader()->sectionSize(column), section);
            const QString name = table->model()->headerData(column, Qt::Horizontal).toString();
            QVERIFY2(totalsView->sizeHintForColumn(column) <= section,
                     qPrintable(QStringLiteral("%1: the totals need %2 px, the section is %3").arg(name).arg(totalsView->sizeHintForColumn(column)).arg(section)));
            QVERIFY2(tableView->sizeHintForColumn(column) <= section,
                     qPrintable(QStringLiteral("%1: the tensors need %2 px, the section is %3").arg(name).arg(tableView->sizeHintForColumn(column)).arg(section)));
        }
    }

    // The room a placeholder's text takes is the plot's only while the text is there: hidden,
    // even while its tab is not shown, the plot has its own minimum height back; shown while
    // the tab is hidden, the room is there when the tab comes up.
    void placeholderKeepsItsRoomOnlyWhileShown()
    {
        QWidget tab;
        auto* plot = new QCustomPlot(&tab);
        plot->setObjectName(QStringLiteral("plot"));
        plot->setMinimumHeight(20);
        plot->setGeometry(0, 0, 300, 50);
        PlotPlaceholder placeholder(plot);
        tab.resize(300, 400);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        auto* words = placeholder.button()->findChild<PlaceholderText*>();
        QVERIFY(words);
        const QMargins margins = PlaceholderText::margins();
        const auto room = [&]() { return words->heightForWidth(plot->width() - margins.left() - margins.right()) + margins.top() + margins.bottom(); };
        placeholder.show(QStringLiteral("No error: in every column this tensor's values equal the reference's (largest |error| 0)."));
        QVERIFY2(room() > 50, qPrintable(QString::number(room())));
        QCOMPARE(plot->minimumHeight(), room());
        tab.hide();
        placeholder.hide();
        QCOMPARE(plot->minimumHeight(), 20);
        placeholder.show(QStringLiteral("Computing…"));
        QCOMPARE(plot->minimumHeight(), std::max(20, room()));  // before the tab is laid out on showing
        tab.show();
        QCOMPARE(plot->minimumHeight(), std::max(20, room()));
        placeholder.hide();
        QCOMPARE(plot->minimumHeight(), 20);
    }

private:
    std::shared_ptr<const gguf::Model> m_f16, m_q4;
};

QTEST_MAIN(TestGuiCompareLabels)
#include "tst_gui_compare_labels.moc"
