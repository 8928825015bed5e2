#pragma once
// The first N values of one row as a table: what people check first when a kernel is suspected.

#include "ui/session/SliceRef.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>
#include <vector>

class QSpinBox;
class QTableWidget;
class BackgroundJob;
class JobProgressBar;

class RowValuesView : public QWidget {
    Q_OBJECT
public:
    RowValuesView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setSlice(const SliceRef& slice);
    void showRow(std::uint64_t row);
    const std::vector<float>& values() const { return m_values; }

signals:
    void valuesReady();

private:
    void load();
    void showValues(const std::vector<float>& values, std::uint64_t wanted);

    JobProgressBar* m_progress;
    QSpinBox* m_row;
    QSpinBox* m_count;
    QTableWidget* m_table;
    SliceRef m_slice;
    JobRunner m_jobs{this, JobPriority::Interactive};
    std::vector<float> m_values;
};
