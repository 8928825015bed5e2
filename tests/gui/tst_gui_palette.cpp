// Plots follow the palette: under a dark application palette a view's plot paints a dark
// background with light axes, tick labels, colour scale and legend text, and switching the
// palette back at run time recolours it on the next replot.

#include "ui/tensor/HeatmapView.h"
#include "ui/common/JobProgressBar.h"
#include "ui/common/LogAxisTicker.h"
#include "ui/common/PlotPalette.h"
#include "ui/shell/ThemeChoice.h"

#include <QApplication>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

namespace {

QPalette lightPalette()
{
    QPalette light;
    light.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    light.setColor(QPalette::Base, QColor(0xff, 0xff, 0xff));
    light.setColor(QPalette::WindowText, QColor(0x10, 0x10, 0x10));
    light.setColor(QPalette::Text, QColor(0x10, 0x10, 0x10));
    return light;
}

QColor backgroundOf(QCustomPlot* plot)
{
    // QCustomPlot keeps the brush private; the painted pixels are what a person sees.
    const QImage image = plot->toPixmap(200, 150).toImage();
    return image.pixelColor(2, 2);
}

}  // namespace

class TestGuiPalette : public QObject {
    Q_OBJECT
private slots:
    // A log axis labels enough values to be read: a drift chart between 0.03 and 0.3 showed
    // "0.1" alone (QCPAxisTickerLog labels powers of ten only).
    void logAxisLabelsEnoughValues()
    {
        const auto same = [](const QVector<double>& shown, const QVector<double>& expected) {
            if (shown.size() != expected.size())
                return false;
            for (qsizetype i = 0; i < shown.size(); ++i)
                if (std::abs(shown[i] - expected[i]) > 1e-12 * expected[i])
                    return false;
            return true;
        };
        QVERIFY(same(LogAxisTicker::tickValues(0.03, 0.3), {0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.2, 0.3}));
        QVERIFY(same(LogAxisTicker::tickValues(0.015, 0.9), {0.02, 0.05, 0.1, 0.2, 0.5}));
        QVERIFY(same(LogAxisTicker::tickValues(1e-4, 10.0), {1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0}));
        QVERIFY(LogAxisTicker::tickValues(1e-30, 1e10).size() <= 10);
        QVERIFY(LogAxisTicker::tickValues(0.0, 1.0).isEmpty());
        QCustomPlot plot;
        LogAxisTicker::install(plot.yAxis);
        plot.yAxis->setRange(0.03, 0.3);
        plot.resize(400, 300);
        plot.replot();
        QVERIFY(plot.yAxis->tickVectorLabels().size() >= 3);
    }

    void plotFollowsTheApplicationPalette()
    {
        QApplication::setPalette(darkThemePalette());  // View › Theme › Dark
        QCustomPlot plot;
        followPalette(&plot);
        plot.legend->setVisible(true);
        plot.addGraph()->setName(QStringLiteral("series"));
        auto* scale = new QCPColorScale(&plot);
        plot.plotLayout()->addElement(0, 1, scale);
        plot.replot();
        QCOMPARE(backgroundOf(&plot), QColor(0x1e, 0x1e, 0x1e));
        QCOMPARE(plot.xAxis->tickLabelColor(), QColor(0xe8, 0xe8, 0xe8));
        QCOMPARE(plot.yAxis->basePen().color(), QColor(0xe8, 0xe8, 0xe8));
        QCOMPARE(scale->axis()->tickLabelColor(), QColor(0xe8, 0xe8, 0xe8));
        QCOMPARE(plot.legend->item(0)->textColor(), QColor(0xe8, 0xe8, 0xe8));
        QCOMPARE(plot.legend->brush().color(), QColor(0x1e, 0x1e, 0x1e));

        QApplication::setPalette(lightPalette());
        QCoreApplication::processEvents();
        plot.replot();
        QCOMPARE(backgroundOf(&plot), QColor(0xff, 0xff, 0xff));
        QCOMPARE(plot.xAxis->tickLabelColor(), QColor(0x10, 0x10, 0x10));
        QCOMPARE(scale->axis()->tickLabelColor(), QColor(0x10, 0x10, 0x10));
    }

    // Numbers have a zero line; categories have none: their first category sits at 0, and a
    // line there ran through the first bar of every category chart.
    void categoryAxesHaveNoZeroLine()
    {
        QCustomPlot plot;
        followPalette(&plot);
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        ticker->addTick(0, QStringLiteral("f32"));
        ticker->addTick(1, QStringLiteral("q4_K"));
        plot.xAxis->setTicker(ticker);
        plot.xAxis->setRange(-0.5, 1.5);
        plot.yAxis->setRange(-1, 1);
        plot.replot();
        QCOMPARE(plot.xAxis->grid()->zeroLinePen().style(), Qt::NoPen);
        QVERIFY(plot.yAxis->grid()->zeroLinePen().style() != Qt::NoPen);
    }

    void appViewsAreDarkUnderADarkPalette()
    {
        QApplication::setPalette(darkThemePalette());  // View › Theme › Dark
        JobProgressBar progress;
        HeatmapView view(&progress);
        view.plot()->replot();
        QCOMPARE(backgroundOf(view.plot()), QColor(0x1e, 0x1e, 0x1e));
        QCOMPARE(view.plot()->xAxis->labelColor(), QColor(0xe8, 0xe8, 0xe8));
        QApplication::setPalette(lightPalette());
    }
};

QTEST_MAIN(TestGuiPalette)
#include "tst_gui_palette.moc"
