#include "ui/common/JobProgressBar.h"

#include "ui/session/BackgroundJob.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

JobProgressBar::JobProgressBar(QWidget* parent)
    : QWidget(parent), m_label(new QLabel(this)), m_bar(new QProgressBar(this)), m_cancel(new QPushButton(tr("Cancel"), this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_bar, 1);
    layout->addWidget(m_cancel);
    m_cancel->setObjectName(QStringLiteral("cancelJobButton"));
    connect(m_cancel, &QPushButton::clicked, this, [this]() {
        for (const QPointer<BackgroundJob>& job : m_jobs)
            if (job)
                job->cancel();
    });
    // The bar keeps its place while hidden: a bar that came and went would resize the views
    // beside it each time a job started and ended, and a view that recomputes for its new size
    // would start the next job (heatmaps once recomputed forever that way).
    QSizePolicy policy = sizePolicy();
    policy.setRetainSizeWhenHidden(true);
    setSizePolicy(policy);
    hide();
}

void JobProgressBar::track(BackgroundJob* job, const QString& description)
{
    m_jobs.append(job);
    job->setProperty("description", description);
    connect(job, &BackgroundJob::progress, this, [this, job](int done, int total) {
        if (!m_jobs.isEmpty() && m_jobs.last() == job && total > 1) {
            m_bar->setRange(0, total);
            m_bar->setValue(done);
        }
    });
    connect(job, &BackgroundJob::finished, this, &JobProgressBar::refresh);
    connect(job, &QObject::destroyed, this, &JobProgressBar::refresh, Qt::QueuedConnection);
    refresh();
}

void JobProgressBar::refresh()
{
    m_jobs.removeIf([](const QPointer<BackgroundJob>& job) { return !job || !job->isRunning(); });
    if (m_jobs.isEmpty()) {
        hide();
        return;
    }
    BackgroundJob* job = m_jobs.last();
    m_label->setText(job->property("description").toString());
    // A single chunk has no intermediate steps to show: a busy indicator says more.
    const int maximum = job->chunkCount() > 1 ? job->chunkCount() : 0;
    if (m_bar->maximum() != maximum) {
        m_bar->setRange(0, maximum);
        m_bar->setValue(0);
    }
    show();
}
