#include "ui/common/PlotExport.h"

#include "core/write/NewFileMode.h"

#include <QFileInfo>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTemporaryFile>
#include <qcustomplot.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace {
// QCustomPlot writes PNG and PDF to a path; render to a temp file beside the target, then move.
QString writeViaTemp(const QString& path, const std::function<bool(const QString&)>& write)
{
    const QFileInfo target(path);
    QTemporaryFile temp(target.absolutePath() + QStringLiteral("/.") + target.fileName() + QStringLiteral(".XXXXXX"));
    temp.setAutoRemove(true);
    if (!temp.open())
        return QObject::tr("cannot create a temporary file in %1").arg(target.absolutePath());
    temp.close();
    if (!write(temp.fileName()))
        return QObject::tr("could not render the plot to %1").arg(path);
    // QTemporaryFile made it 0600. rename(2) replaces an existing plot atomically, so a failed
    // export never leaves the user with neither the old file nor the new one.
    ::chmod(QFile::encodeName(temp.fileName()).constData(), static_cast<mode_t>(gguf::newFileMode()));
    if (::rename(QFile::encodeName(temp.fileName()).constData(), QFile::encodeName(path).constData()) != 0)
        return QObject::tr("cannot move the plot into place at %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    temp.setAutoRemove(false);
    return {};
}
}  // namespace

// Adds a title row on top of the plot for the lifetime of the object.
class TemporaryTitle {
public:
    TemporaryTitle(QCustomPlot* plot, const QString& title) : m_plot(plot)
    {
        if (title.isEmpty())
            return;
        m_plot->plotLayout()->insertRow(0);
        m_title = new QCPTextElement(m_plot, title, QFont(m_plot->font().family(), m_plot->font().pointSize() + 1, QFont::Bold));
        m_title->setObjectName(QStringLiteral("exportTitle"));
        m_plot->plotLayout()->addElement(0, 0, m_title);
    }
    ~TemporaryTitle()
    {
        if (!m_title)
            return;
        m_plot->plotLayout()->remove(m_title);  // deletes it
        m_plot->plotLayout()->simplify();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    TemporaryTitle(const TemporaryTitle&) = delete;
    TemporaryTitle& operator=(const TemporaryTitle&) = delete;

private:
    QCustomPlot* m_plot;
    QCPTextElement* m_title = nullptr;
};

QString exportPlot(QCustomPlot* plot, const QString& path, int width, int height, const QString& title)
{
    const TemporaryTitle shownTitle(plot, title);
    const QString suffix = QFileInfo(path).suffix().toLower();
    const int w = width > 0 ? width : plot->width();
    const int h = height > 0 ? height : plot->height();
    if (suffix == QLatin1String("png"))
        return writeViaTemp(path, [&](const QString& temp) { return plot->savePng(temp, w, h, 1.0, -1, -1, QCP::ruDotsPerInch); });
    if (suffix == QLatin1String("pdf"))
        return writeViaTemp(path, [&](const QString& temp) { return plot->savePdf(temp, w, h); });
    if (suffix == QLatin1String("svg")) {
        QSaveFile file(path);  // QSaveFile writes to a temp file and renames on commit
        if (!file.open(QIODevice::WriteOnly))
            return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(QSize(w, h));
        generator.setViewBox(QRect(0, 0, w, h));
        generator.setTitle(title.isEmpty() ? plot->objectName() : title);
        QCPPainter painter;
        painter.begin(&generator);
        plot->toPainter(&painter, w, h);
        painter.end();
        if (!file.commit())
            return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return {};
    }
    return QObject::tr("unknown plot format '%1' (use .png, .svg or .pdf)").arg(suffix);
}
