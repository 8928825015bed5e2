#pragma once
// The budget planner: a size (4.2GB, 900MiB, 4.5bpw), a Plan button that measures every
// tensor's error per type in the background (progress and Cancel; the measurement is kept for
// later budgets), the size/error frontier with the presets, the budget and the plan marked, and
// the mix as --tensor-type rules over a base preset: to copy as a llama-quantize command line,
// to save as a rules file, or to convert at once. With a complete sensitivity scan (setScan)
// the plan minimises the KLD the scan predicts (the sum of its cells, as plan --scan), and the
// plot shows the presets, the weight-error plan and the scan plan by that predicted KLD; "Measure
// KLD on a Text…" then measures the scan plan, the weight-error plan and the best preset within
// the budget on a text (MixKldMeasurement) and marks those mixes at their measured KLD.
// "Check Plan on Held-out Text…" runs plan --scan --text-file's check (HeldOutCheckRun, the
// CLI's function): the plan against the two largest presets within the budget on a text the scan
// did not see (the scan's own text past its tokens, or another), each mean KLD ± its standard
// error and the per-position difference to the plan ± its standard error; where the plan does
// not win by more than twice that error, the preset is offered instead (the rules, Copy, Save and
// Convert then give that preset alone), as plan -o writes it.
// Until a plan exists, and after a cancel or a failure, Copy, Save and Convert are disabled and
// the plot says why instead of showing an older frontier.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/MixPlanner.h"
#include "core/sensitivity/HeldOutCheck.h"
#include "core/sensitivity/SensitivityScan.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>
#include <optional>

class FrontierPlot;
class HeldOutCheckRun;
class MixKldMeasurement;
struct MeasuredKld;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

class MixPlannerView : public QWidget {
    Q_OBJECT
public:
    explicit MixPlannerView(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);
    ~MixPlannerView() override;

    void setBudgetText(const QString& text);
    void setImatrixPresent(bool present);  // for the presets' recipes (the rules that depend on it)
    // Measures with these importance weights from now on (as plan --imatrix: weighted quantizers
    // and errors, IQ types and presets included); nullptr: unweighted. Drops the measurement.
    // `path` goes into the copied command line.
    void setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path = {});
    bool weighted() const { return m_importance != nullptr; }
    // Plans by this complete scan's figures from the next plan on; nullptr: by weight error.
    void setScan(std::shared_ptr<const gguf::ScanRecord> scan);
    // Whether the shown plan was chosen by the scan's predicted KLD.
    bool plannedByScan() const { return m_scanContext.has_value() && m_result.has_value(); }
    // Plans for the budget in the field; measures first when nothing is measured yet.
    void plan();
    void cancel();

    const std::optional<gguf::PlanResult>& result() const { return m_result; }
    const std::optional<gguf::PlanRules>& rules() const { return m_rules; }
    // The presets and the frontier of the objective planned by (the scan's when it planned).
    const std::vector<gguf::PresetOnFrontier>& presets() const { return m_scanContext ? m_scanPresets : m_presets; }
    const std::vector<gguf::Mix>& frontier() const { return m_scanContext ? m_scanFrontier : m_frontier; }
    // With a scan: the weight-error plan for the same budget and the KLD the scan predicts for it.
    const std::optional<gguf::Mix>& weightPlan() const { return m_weightPlan; }
    std::optional<double> weightPlanPredictedKld() const { return m_weightPlanKld; }
    FrontierPlot* frontierPlot() const { return m_plot; }
    QCustomPlot* plot() const;
    QPushButton* copyButton() const { return m_copyButton; }
    QPushButton* saveButton() const { return m_saveButton; }
    QPushButton* convertButton() const { return m_convertButton; }
    QPushButton* measureButton() const { return m_measureButton; }
    // Measures the plotted plans' KLD on `textFile` (chunks and token count as the scan's);
    // kldMeasured reports the end. Only after a plan by a scan.
    void measureKld(const QString& textFile);
    // Runs the held-out check on `textFile` (at most the tokens in the field, 2,048 by default);
    // heldOutChecked reports the end. Only after a plan by a scan.
    void checkHeldOut(const QString& textFile);
    QPushButton* heldOutButton() const { return m_heldOutButton; }
    QSpinBox* heldOutTokens() const { return m_heldOutTokens; }
    QString heldOutText() const;
    // The figures of the last check of the plan shown.
    const std::optional<gguf::HeldOutResult>& heldOutResult() const { return m_heldOut; }
    // Label -> measured mean KLD of the mixes measured for the plan shown.
    const std::vector<std::pair<QString, double>>& measuredKld() const { return m_measured; }
    QString rulesFileText() const;
    // The llama-quantize command line Copy puts on the clipboard: the rules and the base preset.
    QString commandText() const;
    // The base preset's name, or empty without a plan.
    QString basePresetName() const;
    // Writes the rules file (temporary file, then rename); the Save button does this off the GUI thread.
    bool saveRules(const QString& path, QString* error = nullptr) const;

signals:
    void planFinished(bool succeeded, const QString& message);
    // "Convert with This Plan…": the page writes the plan's recipe.
    void convertRequested();
    void kldMeasured(bool succeeded, const QString& message);
    void heldOutChecked(bool succeeded, const QString& message);

private:
    void measureThenPlan();
    void measureEnded();  // the buttons, whatever the end
    void planFromTable();
    bool prepareScanContext(QString& note);
    void showResult(const QString& scanNote);
    void showFailure(const QString& message);
    void setPlanActions(bool enabled);
    void showHeldOut(const gguf::HeldOutResult& result);
    // The quantize.imatrix.* keys a conversion of the plan writes (the page converts with the
    // loaded matrix and its path as chosen), so that the sizes shown are the sizes written.
    std::optional<gguf::ImatrixProvenance> imatrixKeys() const;

    std::shared_ptr<const gguf::Model> m_model;
    std::shared_ptr<gguf::ErrorTable> m_table;
    std::optional<gguf::PlanContext> m_context;
    std::vector<gguf::PresetOnFrontier> m_presets;
    std::vector<gguf::Mix> m_frontier;
    std::shared_ptr<const gguf::ScanRecord> m_scan;
    std::shared_ptr<gguf::ErrorTable> m_scanTable;  // m_table with the scan's costs
    std::optional<gguf::PlanContext> m_scanContext;
    std::vector<gguf::PresetOnFrontier> m_scanPresets;
    std::vector<gguf::Mix> m_scanFrontier;
    std::optional<gguf::Mix> m_weightPlan;
    std::optional<double> m_weightPlanKld;
    std::optional<gguf::PlanResult> m_result;
    std::optional<gguf::PlanRules> m_rules;
    std::optional<gguf::Budget> m_budget;
    bool m_imatrix = false;
    std::shared_ptr<const gguf::ImportanceMatrix> m_importance;
    QString m_importancePath;

    JobRunner m_measureJobs{this};
    JobRunner m_saveJobs{this};
    QLineEdit* m_budgetEdit;
    QSpinBox* m_rowsSpin;
    QPushButton* m_planButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progress;
    FrontierPlot* m_plot;
    QLabel* m_summary;
    QPlainTextEdit* m_rulesText;
    QPushButton* m_copyButton;
    QPushButton* m_saveButton;
    QPushButton* m_convertButton;
    QPushButton* m_measureButton;
    MixKldMeasurement* m_measurement;
    QPushButton* m_heldOutButton;
    QSpinBox* m_heldOutTokens;
    QLabel* m_heldOutSummary;
    HeldOutCheckRun* m_heldOutRun;
    std::optional<gguf::HeldOutResult> m_heldOut;
    QString m_heldOutFile;
    std::vector<std::pair<QString, gguf::Mix>> m_measuring;  // the mixes of the run under way
    std::vector<std::pair<QString, double>> m_measured;
    QString m_measuredText;  // the text they were measured on
    QString m_scanNote;      // why a loaded scan was not used, for the summary
};
