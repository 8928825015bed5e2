#include "ui/common/JobProgressBar.h"

#include "ui/session/BackgroundJob.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <algorithm>

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
        for (const Tracked& tracked : m_jobs)
            if (tracked.job)
                tracked.job->cancel();
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
    m_jobs.append({job, description, 0, std::max(1, job->chunkCount())});
    connect(job, &BackgroundJob::progress, this, [this, job](int done, int) {
        for (Tracked& tracked : m_jobs)
            if (tracked.job == job)
                tracked.done = std::min(done, tracked.total);
        refresh();
    });
    connect(job, &BackgroundJob::finished, this, &JobProgressBar::refresh);
    connect(job, &QObject::destroyed, this, &JobProgressBar::refresh, Qt::QueuedConnection);
    refresh();
}

QString JobProgressBar::text() const
{
    return m_label->text();
}

QString JobProgressBar::barText() const
{
    return m_bar->text();
}

int JobProgressBar::value() const
{
    return m_bar->value();
}

int JobProgressBar::maximum() const
{
    return m_bar->maximum();
}

void JobProgressBar::refresh()
{
    // Ended jobs leave the list but keep counting as done until the bar is idle.
    for (qsizetype i = m_jobs.size() - 1; i >= 0; --i)
        if (!m_jobs[i].job || !m_jobs[i].job->isRunning()) {
            m_finishedChunks += m_jobs[i].total;
            ++m_finishedJobs;
            m_jobs.removeAt(i);
        }
    if (m_jobs.isEmpty()) {
        m_finishedChunks = 0;
        m_finishedJobs = 0;
        hide();
        return;
    }
    const Tracked& heaviest = *std::max_element(m_jobs.begin(), m_jobs.end(), [](const Tracked& a, const Tracked& b) { return a.total < b.total; });
    int done = m_finishedChunks;
    int total = m_finishedChunks;
    for (const Tracked& tracked : m_jobs) {
        done += tracked.done;
        total += tracked.total;
    }
    const int jobs = m_finishedJobs + static_cast<int>(m_jobs.size());
    // The job count goes into the bar, not the label: a longer label would widen the page's
    // minimum size each time a second job starts.
    m_label->setText(heaviest.description);
    m_bar->setFormat(jobs > 1 ? tr("%p % · %1 of %2 jobs done").arg(m_finishedJobs).arg(jobs) : QStringLiteral("%p %"));
    // A single one-chunk job has no intermediate steps to show: a busy indicator says more.
    if (total > 1) {
        m_bar->setRange(0, total);
        m_bar->setValue(done);
    } else {
        m_bar->setRange(0, 0);
    }
    show();
}
