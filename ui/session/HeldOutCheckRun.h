#pragma once
// The app's held-out check of a scan plan: the text read and tokenized as `plan --text-file`
// reads it, then measurePlanOnHeldOutText (the CLI's own function) measures the plan and the two
// largest presets within the budget on the held-out tokens. Either the tokens past the scan's,
// when the text is the scan's own, or the whole text when it is another. One background job with
// progress (forward passes) and Cancel; a newer start() makes an older run stale.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/MixPlanner.h"
#include "core/sensitivity/HeldOutCheck.h"
#include "core/sensitivity/SensitivityScan.h"
#include "ui/session/JobRunner.h"

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

// What the check measures: the plan, the presets evaluated on the weight table (before the
// scan's costs), the budget, and the table whose tensors the mixes' types follow.
struct HeldOutCheckInput {
    std::shared_ptr<const gguf::Model> model;
    std::shared_ptr<const gguf::ScanRecord> scan;
    std::shared_ptr<const gguf::ErrorTable> table;
    gguf::Mix plan;
    std::vector<gguf::PresetOnFrontier> presets;
    gguf::Budget budget;
    std::shared_ptr<const gguf::ImportanceMatrix> importance;  // the scan's, or null
};

class HeldOutCheckRun : public QObject {
    Q_OBJECT
public:
    explicit HeldOutCheckRun(QObject* parent = nullptr);

    // `most`: held-out tokens at most (whole chunks of the scan's size), 0: all.
    void start(HeldOutCheckInput input, const QString& textFile, qint64 most);
    void cancel() { m_jobs.cancel(); }
    bool isRunning() const { return m_jobs.isRunning(); }
    // Drops a run under way: its figures belong to a plan no longer shown.
    void drop() { m_jobs.renew(); }

signals:
    void progress(int done, int total);
    void finished(const gguf::HeldOutResult& figures);  // firstToken says which tokens were held out
    void failed(const QString& message, bool cancelled);

private:
    JobRunner m_jobs{this};
};
