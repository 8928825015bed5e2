#pragma once
// Progress and a Cancel button for the background jobs of one view or page. It shows all of
// them at once: the bar is the overall progress in chunks of every job tracked since it was
// last idle (finished ones count as done, so six of eight expert jobs finished read 75 %, not
// the newest job's 0 %), and the label names the heaviest running job (most chunks), not the
// last one queued: a 4,000-band heatmap stays named while a one-chunk side job comes and goes;
// the bar says how many of the jobs are done.
// Hides itself when nothing runs, keeping its place in the layout so that jobs starting and
// ending never move or resize what is around it. Cancel stops every tracked job.

#include <QPointer>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class BackgroundJob;

class JobProgressBar : public QWidget {
    Q_OBJECT
public:
    explicit JobProgressBar(QWidget* parent = nullptr);
    void track(BackgroundJob* job, const QString& description);

    // What is shown, for tests: the label, the bar's text ("25 % · 1 of 2 jobs done"), its value
    // and maximum (0: busy indicator).
    QString text() const;
    QString barText() const;
    int value() const;
    int maximum() const;

private:
    struct Tracked {
        QPointer<BackgroundJob> job;
        QString description;
        int done = 0;
        int total = 1;
    };
    void refresh();

    QLabel* m_label;
    QProgressBar* m_bar;
    QPushButton* m_cancel;
    QList<Tracked> m_jobs;
    int m_finishedChunks = 0;  // of jobs ended since the bar was last idle
    int m_finishedJobs = 0;
};
