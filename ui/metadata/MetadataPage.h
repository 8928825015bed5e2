#pragma once
// The metadata of one model as an expandable tree (MetadataTreeModel) with a filter box over the
// keys. The filter waits for a pause in typing (300 ms) and keeps the children of matching keys.
// Long arrays load a page at a time as their last loaded element scrolls into view (QTreeView
// itself only does that for the last top-level row), and "Go to index" jumps to any element.
//
// Editing: Edit… (or a double-click) opens an editor fit for the value's type, on a key or on an
// element of an array; Add Key…, Remove, Revert and Revert All; edited keys are drawn bold (removed
// ones struck out) until saved. Save As… writes the edited copy on the job pool (core/edit's
// saveModelAs), with progress and Cancel; the window never waits for it. Only the elements an
// edit changed are marked; an edited key the tensors contradict is named under the tree.

#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"

#include <QPointer>
#include <QWidget>
#include <atomic>
#include <memory>

class MetadataValueEditor;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSortFilterProxyModel;
class QTimer;
class QTreeView;
class MetadataTreeModel;

class MetadataPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kFilterDelayMs = 300;

    explicit MetadataPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);

    MetadataTreeModel* treeModel() const { return m_tree; }
    QSortFilterProxyModel* filterModel() const { return m_proxy; }
    QTreeView* view() const { return m_view; }

    // Loads, expands to, selects and scrolls to element `element` of the array at `array` (a
    // source-model index, column 0). False when that is not an array or the element is past its
    // end, or when the filter hides the array.
    bool jumpToElement(const QModelIndex& array, int element);

    // Arrays longer than this are edited element by element, not as one text.
    static constexpr qint64 kMaxArrayTextElements = 4096;
    // Opens the editor (window-modal, not blocking) for a source-model index: a key, or an element
    // of a top-level array of numbers or strings. Returns it, or nullptr when the row is not
    // editable that way (the reason goes to statusMessage).
    MetadataValueEditor* editIndex(const QModelIndex& sourceIndex);
    MetadataValueEditor* editCurrent();
    MetadataValueEditor* addKey();
    void removeCurrent();
    void revertCurrent();
    // Writes the model with the edits to `path` (a split model as shards named after it).
    void saveAs(const QString& path);
    void cancelSave();
    bool isSaving() const;
    // Asks for a file name (proposing proposedSavePath(); the file open here is refused in the
    // dialog) and starts saveAs. False when the user cancelled.
    bool chooseSaveAs();
    // NAME-edited.gguf next to the open file.
    QString proposedSavePath() const;
    bool hasUnsavedEdits() const;
    // Edited keys the tensors contradict, one sentence each (also shown under the tree).
    QStringList contradictions() const;

signals:
    void filterApplied(const QString& text);
    void statusMessage(bool succeeded, const QString& message);
    // Once per saveAs(); `paths` are the files written (empty on failure).
    void saveFinished(bool succeeded, const QString& message, const QStringList& paths);
    // The page went from no edits to some, or back (saved, reverted).
    void unsavedEditsChanged(bool unsaved);

private:
    void saveEnded(const JobOutcome& outcome, const std::vector<std::string>& written);
    void applyFilter();
    void updateKeyCount();
    // The array the jump box works on: the current row when it is an array, else the array that
    // holds the current element. A source-model index; invalid when neither.
    QModelIndex currentArray() const;
    void updateJumpBox();
    // Fetches the next page of any expanded array whose last loaded element is on screen.
    void fetchVisibleTails();
    int currentTopRow() const;
    void selectTopRow(int row);  // a source row; edits reset the tree, this brings the row back
    void updateEditControls();

    MetadataTreeModel* m_tree;
    QSortFilterProxyModel* m_proxy;
    QTreeView* m_view;
    QLineEdit* m_filter;
    QTimer* m_filterDelay;
    QTimer* m_tailCheck;
    QLabel* m_count;
    QSpinBox* m_jumpIndex;
    QPushButton* m_jumpButton;
    int m_keyCount = 0;
    std::shared_ptr<const gguf::Model> m_model;
    QPushButton* m_editButton;
    QPushButton* m_addButton;
    QPushButton* m_removeButton;
    QPushButton* m_revertButton;
    QPushButton* m_revertAllButton;
    QPushButton* m_saveButton;
    QLabel* m_editCount;
    QLabel* m_contradictions;
    bool m_hadEdits = false;
    QProgressBar* m_saveProgress;
    JobRunner m_saveJobs{this};
};
