#include "ui/common/PlotExportMenu.h"

#include "ui/common/ExportLocation.h"
#include "ui/common/PlotExport.h"
#include "ui/common/FileDialogs.h"

#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <qcustomplot.h>

namespace {

// Holds the title function as a child of the plot, so it lives and dies with it.
class PlotExportHook : public QObject {
public:
    PlotExportHook(QCustomPlot* plot, PlotTitle title) : QObject(plot), m_title(std::move(title))
    {
        setObjectName(QStringLiteral("plotExportHook"));
    }
    QString title() const { return m_title ? m_title() : QString(); }

private:
    PlotTitle m_title;
};

PlotExportHook* hookOf(const QCustomPlot* plot)
{
    return plot ? plot->findChild<PlotExportHook*>(QStringLiteral("plotExportHook"), Qt::FindDirectChildrenOnly) : nullptr;
}

// A file name from the title: "Error histograms: blk.0.attn_q.weight" -> "error-histograms-blk.0.attn_q.weight.png".
QString proposedFileName(const QString& title, const QCustomPlot* plot)
{
    QString name = title.isEmpty() ? plot->objectName() : title.left(80);
    name = name.toLower().replace(QRegularExpression(QStringLiteral("[^a-z0-9._]+")), QStringLiteral("-"));
    name.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    return (name.isEmpty() ? QStringLiteral("chart") : name) + QStringLiteral(".png");
}

void chooseAndExport(QCustomPlot* plot)
{
    const QString title = plotExportTitle(plot);
    const QString path = askSaveFileName(plot, QObject::tr("Export Chart"), proposedExportPath({}, proposedFileName(title, plot)),
                                         QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    rememberExportFolder(path);
    if (const QString error = exportPlotAsShown(plot, path); !error.isEmpty())
        QMessageBox::warning(plot, QObject::tr("Export Chart"), error);
}

}  // namespace

void addPlotExport(QCustomPlot* plot, PlotTitle title, bool ownMenu)
{
    delete hookOf(plot);
    new PlotExportHook(plot, std::move(title));
    if (!ownMenu)
        return;
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot](const QPoint& at) {
        QMenu menu(plot);
        addPlotExportAction(&menu, plot);
        menu.exec(plot->mapToGlobal(at));
    });
}

bool hasPlotExport(const QCustomPlot* plot)
{
    return hookOf(plot) != nullptr;
}

QString plotExportTitle(const QCustomPlot* plot)
{
    const PlotExportHook* hook = hookOf(plot);
    return hook ? hook->title() : QString();
}

QString exportPlotAsShown(QCustomPlot* plot, const QString& path)
{
    return exportPlot(plot, path, 0, 0, plotExportTitle(plot));
}

void addPlotExportAction(QMenu* menu, QCustomPlot* plot)
{
    menu->addAction(QObject::tr("Export Chart…"), plot, [plot]() { chooseAndExport(plot); });
}
