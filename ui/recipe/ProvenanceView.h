#pragma once
// The Recipe page's "Provenance" section: the file's mix in words (core/recipe/MixSummary.h), its
// nominal and effective bits per weight and the tensors that fell back; and, for a source model
// chosen here (with the page's importance matrix when one is loaded and "with an imatrix" is
// on), the answer `recipe FILE --source SOURCE [--imatrix I]` gives: identical, or the first
// tensor that differs (core/recipe/ProvenanceCheck.h, run in the background: it reads both
// models' data). Every figure and sentence comes from the core; this view only lays them out.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/MixSummary.h"
#include "core/recipe/ProvenanceCheck.h"
#include "ui/session/JobRunner.h"

#include <QWidget>
#include <memory>
#include <optional>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class MixFallbackModel;
class ProvenanceDifferenceModel;

class ProvenanceView : public QWidget {
    Q_OBJECT
public:
    explicit ProvenanceView(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    void showMix(const gguf::MixSummary& mix);
    // The matrix llama-quantize was given, as the check quantizes with it; nullptr: none.
    void setImportance(std::shared_ptr<const gguf::ImportanceMatrix> matrix, const QString& path = {});
    // Opens `sourcePath` and checks the file against it in the background; checkFinished reports the end.
    void check(const QString& sourcePath);
    void cancel();

    QLabel* mixLabel() const { return m_mix; }
    QTableView* fallbackTable() const { return m_fallbacks; }
    QLineEdit* sourceEdit() const { return m_source; }
    QPushButton* checkButton() const { return m_checkButton; }
    QLabel* verdictLabel() const { return m_verdict; }
    QTableView* differenceTable() const { return m_difference; }
    const std::optional<gguf::ProvenanceCheck>& result() const { return m_result; }

signals:
    void checkFinished(bool succeeded, const QString& message);

private:
    void showCheck(const gguf::ProvenanceCheck& check, const std::string& hint);
    void checkEnded();

    std::shared_ptr<const gguf::Model> m_model;
    std::shared_ptr<const gguf::ImportanceMatrix> m_importance;
    QString m_importancePath;
    std::optional<gguf::ProvenanceCheck> m_result;
    JobRunner m_jobs{this};
    QLabel* m_mix;
    MixFallbackModel* m_fallbackModel;
    QTableView* m_fallbacks;
    QLineEdit* m_source;
    QPushButton* m_chooseSource;
    QPushButton* m_checkButton;
    QProgressBar* m_progress;
    QLabel* m_verdict;
    ProvenanceDifferenceModel* m_differenceModel;
    QTableView* m_difference;
};
