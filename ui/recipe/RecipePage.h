#pragma once
// The recipe page of a model: the layers x roles grid of what the file stores, or of what
// llama-quantize would make of it for a preset (with or without an imatrix, with --tensor-type
// rules typed in, previewed in size and bpw before anything is written); the audit of the
// file's label; whether the file is stock llama-quantize output of a source (and imatrix), with
// its mix in words; the mix planner with its size/error frontier; and the sensitivity scan (opened
// from a scan file or run here), whose complete figures the planner then plans by.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>

class MixPlannerView;
class ProvenanceView;
class QProgressBar;
class QPushButton;
class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTabWidget;
class RecipeAuditView;
class RecipeGridView;
class SensitivityView;

class RecipePage : public QWidget {
    Q_OBJECT
public:
    explicit RecipePage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    QString title() const;
    RecipeGridView* gridView() const { return m_grid; }
    RecipeAuditView* auditView() const { return m_audit; }
    ProvenanceView* provenanceView() const { return m_provenance; }
    MixPlannerView* plannerView() const { return m_planner; }
    SensitivityView* sensitivityView() const { return m_sensitivity; }
    QTabWidget* sections() const { return m_sections; }
    QComboBox* presetBox() const { return m_preset; }
    QCheckBox* imatrixBox() const { return m_imatrix; }
    QPlainTextEdit* rulesEdit() const { return m_rules; }
    QLabel* previewLabel() const { return m_preview; }

    // Shows the stored types (preset empty) or llama-quantize's recipe for a preset.
    void showPreset(const QString& preset);
    // Writes the shown recipe (a preset and its rules) to `path` in the background, as
    // `convert --type PRESET` does; conversionFinished reports the end.
    void startConversion(const QString& path);
    QPushButton* convertButton() const { return m_convert; }
    // Shows the planner's plan as the recipe (its base preset and rules) and writes it to `path`,
    // as startConversion; false when there is no plan to convert.
    bool convertPlan(const QString& path);

    // Reads an importance matrix (either format) in the background and checks it against the
    // model (refused with the reason, or loaded with its warnings shown under the controls); once
    // loaded, the planner measures with its weights and Convert quantizes with them, as
    // llama-quantize --imatrix does. imatrixLoaded reports the end.
    void loadImatrix(const QString& path);
    std::shared_ptr<const gguf::ImportanceMatrix> importance() const { return m_importance; }
    QPushButton* imatrixButton() const { return m_imatrixPick; }
    QLabel* imatrixLabel() const { return m_imatrixFile; }

signals:
    void conversionFinished(bool succeeded, const QString& message);
    void imatrixLoaded(bool succeeded, const QString& message);

private:
    void conversionEnded(const JobOutcome& outcome, const QString& path);
    void refreshGrid();
    void askAndConvert();
    void showPlan();  // the planner's base preset and rules as the shown recipe

    std::shared_ptr<const gguf::Model> m_model;
    QTabWidget* m_sections;
    QComboBox* m_preset;
    QCheckBox* m_imatrix;
    QPushButton* m_imatrixPick;
    QLabel* m_imatrixFile;
    QLabel* m_imatrixWarning;  // the loaded matrix's warnings (ImatrixForModel.h), one a line; hidden when none
    std::shared_ptr<const gguf::ImportanceMatrix> m_importance;
    QString m_importancePath;
    bool m_imatrixLoading = false;
    QPlainTextEdit* m_rules;
    QLabel* m_preview;
    QPushButton* m_convert;
    QProgressBar* m_convertProgress;
    JobRunner m_convertJobs{this};
    JobRunner m_imatrixJobs{this};
    RecipeGridView* m_grid;
    RecipeAuditView* m_audit;
    ProvenanceView* m_provenance;
    MixPlannerView* m_planner;
    SensitivityView* m_sensitivity;
};
