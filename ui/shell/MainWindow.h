#pragma once
// The main window: a tab per open model, File menu with Open, recent files and Quit, drag and
// drop of .gguf files. Opening runs in the background; errors show in the window.

#include "Model.h"

#include <QMainWindow>
#include <memory>

class QLabel;
class QMenu;
class ModelPage;
class QTabWidget;
class ModelLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    void openFile(const QString& path);
    QTabWidget* tabs() const { return m_tabs; }
    ModelPage* currentModelPage() const;

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();
    void chooseFile();
    void showModel(const QString& path, std::shared_ptr<const gguf::Model> model);
    void showError(const QString& path, const QString& message);
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void showCacheUsage(qint64 usedBytes, qint64 budgetBytes);

    QTabWidget* m_tabs;
    ModelLoader* m_loader;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_cacheLabel = nullptr;
    QLabel* m_jobsLabel = nullptr;
};
