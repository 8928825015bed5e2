#pragma once
// Chooses what to compare: GGUF files of one model (the currently open one offered first) and
// types to simulate in memory, e.g. one F16 file with q2_K, q4_K and q8_0 checked asks "what if
// this were Q2_K / Q4_K / Q8_0". OK opens the files on the job pool (never on the GUI thread)
// and accepts once all of them opened; a file that fails to open, or files of different models
// (another architecture or other tensor names than the first checked file), keep the dialog up
// with why.
// The list (and what was checked) comes back from the last comparison. The open model is
// checked only when it fits the other checked files (same architecture and tensor names, found
// out on the job pool); otherwise it stays unchecked and the dialog says why, until the user
// checks or removes it.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "ui/session/JobRunner.h"

#include <QDialog>
#include <QPointer>
#include <memory>
#include <vector>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    // `currentModelPath` (may be empty) is listed first and checked. The files checked in an
    // earlier run stay checked only when they are the open model's (same architecture and
    // tensor names); files of another model are unchecked, and the note says why
    // (openFileChecked() reports that decision).
    explicit CompareDialog(const QString& currentModelPath = {}, QWidget* parent = nullptr);

    void addFile(const QString& path, bool checked = true);
    // The models open in the window's other tabs, local files and URLs alike: listed unchecked
    // when not listed already.
    void offerOpenModels(const QStringList& paths);
    void setSimulatedTypeChecked(const QString& typeName, bool checked);
    QStringList checkedFiles() const;
    std::vector<std::uint32_t> simulatedTypes() const;
    // The importance matrix (optional; llama-imatrix output, either format). With one, the
    // simulated columns quantize as llama-quantize --imatrix and the page adds the weighted
    // figures; the types ggml makes only with one (requiresImportance) are enabled only then.
    void setImportanceMatrixPath(const QString& path);
    QString importanceMatrixPath() const;
    // Why a type cannot be checked now (empty when it can), also its item's tooltip.
    QString typeUnavailableReason(const QString& typeName) const;
    // Why the earlier run's files were unchecked; empty while checking or when they fit.
    QString openFileNote() const;
    // What the dialog says under the lists: why OK is disabled, or why the files were refused.
    QString message() const;
    // Where "Add Files…" starts: the open model's folder, else the last added file's.
    QString addFilesFolder() const;

    // After accept(): the opened models, in the order of checkedFiles().
    const std::vector<std::shared_ptr<const gguf::Model>>& models() const { return m_models; }
    // After accept(): the loaded importance matrix, or null when none was chosen.
    std::shared_ptr<gguf::ImportanceMatrix> importanceMatrix() const { return m_importance; }

signals:
    // Once the open model has been checked against the earlier run's files: `fits` says whether
    // they stayed checked beside it.
    void openFileChecked(bool fits);

public slots:
    // Opens the checked files in the background; accepts when done.
    void openAndAccept();

private:
    void chooseFiles();
    void chooseUrl();  // a remote file: the file dialog takes no URL
    void updateOkButton();
    void updateTypeAvailability();
    // In CompareDialogFileList.cpp: the remembered list, the open model's place in it.
    void restoreFiles();
    void rememberFiles() const;
    void addOpenFile(const QString& path);
    void showFitResult(const QString& why);
    void loadImportanceMatrix(const QString& path);
    void finishAccept();
    // Says why in the dialog and lets the user change the choice.
    void refuse(const QString& why);

    QListWidget* m_files;
    QListWidget* m_types;
    QLabel* m_message;
    QProgressBar* m_progress;
    QDialogButtonBox* m_buttons;
    QLabel* m_openFileNote;
    QLineEdit* m_imatrix;
    JobRunner m_openJobs{this};  // opening the checked files
    JobRunner m_fitJobs{this};   // whether the open model fits the others
    QString m_openFile;
    QStringList m_uncheckedForOpenFile;  // earlier files of another model, unchecked for the open one
    std::vector<std::shared_ptr<const gguf::Model>> m_models;
    std::shared_ptr<gguf::ImportanceMatrix> m_importance;
};
