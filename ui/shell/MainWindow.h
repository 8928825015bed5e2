#pragma once
// The main window: a tab per open model, File menu with Open, recent files and Quit, drag and
// drop of .gguf files. Opening runs in the background; errors show in the window. The window
// title names the file of the current tab; tabs and messages name files, the tab's tool tip
// holds the whole path, and a model opened from a URL has the network icon on its tab. Closing a tab or the window with unsaved metadata edits asks first.
// Files opened together (the command line, one drop, one Open of several files) load side by
// side, each into its own tab (or error tab), the tabs in the order the files were asked for.

#include "core/gguf/Model.h"

#include <QMainWindow>
#include <QPointer>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QMessageBox;
namespace gguf {
class ImportanceMatrix;
}
class QMenu;
class ComparePage;
class DiffPage;
class ModelPage;
class QTabWidget;
class ModelLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    // Opens `path` (a file or a URL) in a new tab once it is read; beside any opens still running.
    void openFile(const QString& path);
    QTabWidget* tabs() const { return m_tabs; }
    ModelPage* currentModelPage() const;
    // The current model page, or on an importance-matrix tab the page of the model it was opened
    // for: what Compare, Recipe and Convert start from.
    ModelPage* modelPageInView() const;
    // View › Find Everywhere (Ctrl+K) over the current model page: a dialog; its choice is shown.
    void findEverywhere();
    // The files (paths or URLs) of the models open in tabs, but `except`'s.
    QStringList openModelPaths(const ModelPage* except = nullptr) const;
    // Opens a Compare tab; its title differs from every other tab's ("… (2)").
    ComparePage* showComparison(const std::vector<std::shared_ptr<const gguf::Model>>& models, const std::vector<std::uint32_t>& simulatedTypes,
                                std::shared_ptr<gguf::ImportanceMatrix> importance = nullptr);

    // A file that could not be opened: a tab with the whole message (the status bar cuts a long
    // one), and a line in the status bar.
    void showError(const QString& path, const QString& message);

    // Opens a Diff tab: `a` (an open model) against the file at `pathB`.
    DiffPage* showDiff(std::shared_ptr<const gguf::Model> a, const QString& pathB);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    // Closes the tab, asking first (Save / Discard / Cancel) when it holds unsaved edits.
    void requestCloseTab(int index);
    void askAboutUnsavedEdits(ModelPage* page, std::function<void()> then);
    // "name*" on the tab (and so in the window title) while `page` has unsaved edits.
    void markUnsavedEdits(ModelPage* page, bool unsaved);
    void createMenus();
    void chooseFile();
    void showModel(const QString& path, std::shared_ptr<const gguf::Model> model);
    // The request number of the oldest open of `path` still pending, which has now ended.
    quint64 takePendingOpen(const QString& path);
    // Adds the tab of a finished open where the order of the requests puts it, and brings it
    // forward unless the tab of a later request is already shown. Returns its index.
    int addOpenedTab(quint64 request, QWidget* page, const QString& text);
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void showCacheUsage(qint64 usedBytes, qint64 budgetBytes);
    // Pulls a restored geometry that does not fit the current screen back onto it.
    void fitToScreen();
    // `title`, or "title (2)", "(3)", … when a tab already reads `title`.
    QString uniqueTabTitle(const QString& title) const;
    void updateWindowTitle();

    QTabWidget* m_tabs;
    ModelLoader* m_loader;
    // The opens not yet ended, in the order they were asked for: (request number, path). A
    // request's number stays on its tab, which keeps the tabs in the order of the requests
    // whatever order the loads end in.
    std::vector<std::pair<quint64, QString>> m_pendingOpens;
    quint64 m_nextOpenRequest = 1;
    quint64 m_newestShownRequest = 0;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_cacheLabel = nullptr;
    QLabel* m_jobsLabel = nullptr;
    QPointer<QMessageBox> m_unsavedEditsPrompt;  // the Save / Discard / Cancel question on screen
    bool m_closingAfterSave = false;  // a Save picked on closing: the copy is not opened
};
