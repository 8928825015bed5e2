#pragma once
// A "GGUF disassembler" for one quantization block: its bytes in hex, the named fields with
// their decoded values, the effective sub-block scales and mins, and every element's level and
// value. Pick a block by row and index, or by clicking a heatmap.

#include "ui/session/SliceRef.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>

class QSpinBox;
class QTextBrowser;
class BackgroundJob;
class JobProgressBar;

class BlockInspector : public QWidget {
    Q_OBJECT
public:
    BlockInspector(JobProgressBar* progress, QWidget* parent = nullptr);
    void setSlice(const SliceRef& slice);
    void showBlock(std::uint64_t row, std::uint64_t blockInRow);
    QString text() const;

signals:
    void blockShown();

private:
    void load();

    JobProgressBar* m_progress;
    QSpinBox* m_row;
    QSpinBox* m_block;
    QTextBrowser* m_view;
    SliceRef m_slice;
    JobRunner m_jobs{this, JobPriority::Interactive};
};
