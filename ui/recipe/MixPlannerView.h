#pragma once
// The budget planner: a size (4.2GB, 900MiB, 4.5bpw), a Plan button that measures every
// tensor's error per type in the background (progress and Cancel; the measurement is kept for
// later budgets), the size/error frontier with the presets and the plan marked, and the mix as
// --tensor-type rules over a base preset, to copy or save as a rules file.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/MixPlanner.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>
#include <optional>

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
    void setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix);
    bool weighted() const { return m_importance != nullptr; }
    // Plans for the budget in the field; measures first when nothing is measured yet.
    void plan();
    void cancel();

    const std::optional<gguf::PlanResult>& result() const { return m_result; }
    const std::optional<gguf::PlanRules>& rules() const { return m_rules; }
    const std::vector<gguf::PresetOnFrontier>& presets() const { return m_presets; }
    const std::vector<gguf::Mix>& frontier() const { return m_frontier; }
    QCustomPlot* plot() const { return m_plot; }
    QString rulesFileText() const;
    // Writes the rules file (temporary file, then rename); the Save button does this off the GUI thread.
    bool saveRules(const QString& path, QString* error = nullptr) const;

signals:
    void planFinished(bool succeeded, const QString& message);

private:
    void measureThenPlan();
    void measureEnded();  // the buttons, whatever the end
    void planFromTable();
    void showResult();
    void showFailure(const QString& message);

    std::shared_ptr<const gguf::Model> m_model;
    std::shared_ptr<gguf::ErrorTable> m_table;
    std::optional<gguf::PlanContext> m_context;
    std::vector<gguf::PresetOnFrontier> m_presets;
    std::vector<gguf::Mix> m_frontier;
    std::optional<gguf::PlanResult> m_result;
    std::optional<gguf::PlanRules> m_rules;
    std::optional<gguf::Budget> m_budget;
    bool m_imatrix = false;
    std::shared_ptr<const gguf::ImportanceMatrix> m_importance;

    JobRunner m_measureJobs{this};
    JobRunner m_saveJobs{this};
    QLineEdit* m_budgetEdit;
    QSpinBox* m_rowsSpin;
    QPushButton* m_planButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progress;
    QCustomPlot* m_plot;
    QLabel* m_summary;
    QPlainTextEdit* m_rulesText;
    QPushButton* m_saveButton;
};
