#pragma once
// Progress and a Cancel button for the background jobs of one tensor view. Shows the most
// recent running job; hides itself when nothing runs, keeping its place in the layout so that
// jobs starting and ending never move or resize what is around it.

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

private:
    void refresh();

    QLabel* m_label;
    QProgressBar* m_bar;
    QPushButton* m_cancel;
    QList<QPointer<BackgroundJob>> m_jobs;
};
