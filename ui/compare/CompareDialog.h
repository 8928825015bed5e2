#pragma once
// Chooses what to compare: GGUF files of one model (the currently open one offered first) and
// types to simulate in memory, e.g. one F16 file with q2_K, q4_K and q8_0 checked asks "what if
// this were Q2_K / Q4_K / Q8_0". OK opens the files on the job pool (never on the GUI thread)
// and accepts once all of them opened; a file that fails to open keeps the dialog up with why.

#include "Model.h"

#include <QDialog>
#include <QPointer>
#include <memory>
#include <vector>

class QDialogButtonBox;
class QLabel;
class QListWidget;
class QProgressBar;
class BackgroundJob;

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    // `currentModelPath` (may be empty) is listed and checked from the start.
    explicit CompareDialog(const QString& currentModelPath = {}, QWidget* parent = nullptr);

    void addFile(const QString& path, bool checked = true);
    void setSimulatedTypeChecked(const QString& typeName, bool checked);
    QStringList checkedFiles() const;
    std::vector<std::uint32_t> simulatedTypes() const;

    // After accept(): the opened models, in the order of checkedFiles().
    const std::vector<std::shared_ptr<const gguf::Model>>& models() const { return m_models; }

public slots:
    // Opens the checked files in the background; accepts when done.
    void openAndAccept();

private:
    void chooseFiles();
    void updateOkButton();

    QListWidget* m_files;
    QListWidget* m_types;
    QLabel* m_message;
    QProgressBar* m_progress;
    QDialogButtonBox* m_buttons;
    QPointer<BackgroundJob> m_job;
    std::vector<std::shared_ptr<const gguf::Model>> m_models;
};
