#pragma once
// What quantization does to each expert: every expert of the current tensor quantized in memory
// to each chosen type (as `convert --type T` would write it) and compared with the values this
// file stores, through the compare work's ModelComparison ("simulated" columns). One chunk per
// (expert, type) on the pool (ExpertQuantErrorJob.h); other files of the model can be compared too
// ("Compare with…": their stored experts, as columns before the types); a table and a grouped bar chart of the
// chosen metric (ExpertQuantErrorPanel.h) fill in as chunks finish. Work starts when the view is
// first shown for a tensor. With an importance matrix (optional; read, checked and bound to the
// model on the pool as every user of one is, core/imatrix/ImatrixForModel.h: refused with the
// reason, or its warnings shown with the figures) each expert is quantized with its own weights
// as llama-quantize --imatrix does, and the types ggml makes only with one (requiresImportance:
// IQ1_S, IQ2_XXS, IQ2_XS) can be chosen; the metric list then also offers
// the importance-weighted figures (ImportanceErrorMetrics.h), each expert's from its own weights.

#include "core/compare/ErrorMetrics.h"
#include "ui/experts/ExpertQuantErrorPanel.h"
#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "ui/session/JobRunner.h"
#include "ui/session/PartialResults.h"

#include <QPointer>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

class QToolButton;
class BackgroundJob;
class JobProgressBar;
class StartWhenShown;

class ExpertQuantErrorView : public QWidget {
    Q_OBJECT
public:
    ExpertQuantErrorView(JobProgressBar* progress, QWidget* parent = nullptr);
    void setTensor(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo* tensor);
    // Other files of the model whose stored experts are compared too (a Q2_K file against the
    // open F16 one), as columns before the types. "Compare with…" opens them.
    void setOtherFiles(std::vector<std::shared_ptr<const gguf::Model>> others);
    const std::vector<std::shared_ptr<const gguf::Model>>& otherFiles() const { return m_others; }
    // Opens `path` (a file or a URL) on the pool and adds it to otherFiles() (otherFileOpened).
    void addOtherFile(const QString& path);
    // Type ids to compare at (default q2_K and q8_0); types without a quantizer are ignored.
    void setTypes(const std::vector<std::uint32_t>& typeIds);
    const std::vector<std::uint32_t>& types() const { return m_types; }
    // Reads `path` on the pool against the current model (importanceMatrixLoaded() when done);
    // empty: quantize without weights again.
    void setImportanceMatrixPath(const QString& path);
    bool hasImportanceMatrix() const;
    // Why a type cannot be chosen now (empty when it can); also its menu entry's tooltip.
    QString typeUnavailableReason(std::uint32_t typeId) const;
    QToolButton* typeButton() const { return m_typeButton; }
    QComboBox* metricCombo() const { return m_panel->metricCombo(); }

    ExpertQuantErrorModel* model() const { return m_panel->model(); }
    bool isComputing() const;
    QCustomPlot* plot() const { return m_panel->plot(); }

signals:
    void errorsReady();
    void importanceMatrixLoaded(bool succeeded, const QString& message);
    void otherFileOpened(bool succeeded, const QString& message);

private:
    void start();
    void collect();
    void typesChosen();
    void updateTypeAvailability();
    void updateMetricChoices();
    QStringList columnLabels(QList<QBrush>* brushes) const;  // the other files, then the types

    JobProgressBar* m_progress;
    QToolButton* m_typeButton;
    ExpertQuantErrorPanel* m_panel = nullptr;
    std::shared_ptr<const gguf::Model> m_source;
    const gguf::TensorInfo* m_tensor = nullptr;
    std::vector<std::uint32_t> m_types;
    StartWhenShown* m_startWhenShown;
    JobRunner m_jobs{this};
    std::shared_ptr<PartialResults<gguf::ErrorMetrics>> m_pending;
    QToolButton* m_imatrixButton;
    std::shared_ptr<const gguf::ImportanceMatrix> m_importance;  // bound to m_importanceModel
    // The model the last matrix chosen was checked against, and what that said (its warnings, or
    // why it was refused), shown with the figures of that model's tensors.
    std::shared_ptr<const gguf::Model> m_importanceModel;
    QStringList m_importanceNotes;
    JobRunner m_imatrixJobs{this};
    std::vector<std::shared_ptr<const gguf::Model>> m_others;
    QToolButton* m_compareWithButton;
    JobRunner m_openJobs{this};  // opening the files to compare with
};
