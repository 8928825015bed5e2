#pragma once
// Computes every computable cell of a comparison on the job pool: one BackgroundJob chunk per
// cell, each running the cell's ranges in order into one accumulator, exactly as runComparison
// does, so the figures equal the CLI's to the last bit. Column totals merge the cells in row
// order, again like runComparison. Results come back as a plain value on the GUI thread.

#include "ModelComparison.h"
#include "session/JobOutcome.h"

#include <QObject>
#include <QPointer>
#include <memory>

class BackgroundJob;

class ComparisonRun : public QObject {
    Q_OBJECT
public:
    ComparisonRun(std::shared_ptr<const gguf::ModelComparison> comparison, QObject* parent = nullptr);
    void start();
    void cancel();
    BackgroundJob* job() const { return m_job; }
    bool isRunning() const;

signals:
    void progress(int doneCells, int totalCells);
    void finished(std::shared_ptr<const gguf::ComparisonResults> results);
    void failed(const JobOutcome& outcome);  // cancelled after cancel()

private:
    std::shared_ptr<const gguf::ModelComparison> m_comparison;
    QPointer<BackgroundJob> m_job;
};
