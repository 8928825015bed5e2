#include "ui/shell/MainWindow.h"

#include "ui/common/FileDialogs.h"
#include "ui/session/ModelLoader.h"
#include "ui/common/ExportLocation.h"
#include "ui/shell/ModelPage.h"
#include "ui/shell/ReportExport.h"
#include "ui/shell/AboutDialog.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/ComparePage.h"
#include "ui/recipe/RecipePage.h"
#include "ui/diff/DiffPage.h"
#include "ui/metadata/MetadataPage.h"
#include "ui/session/MetadataTreeModel.h"
#include "ui/shell/ConvertDialog.h"
#include "ui/session/JobMonitor.h"
#include "core/base/HumanFormat.h"
#include "ui/session/ResultCache.h"
#include "ui/common/CopySelection.h"
#include "ui/shell/WindowPlacement.h"
#include "ui/shell/ThemeChoice.h"
#include "ui/shell/FindEverywhere.h"
#include "ui/shell/OpenUrl.h"
#include "ui/tensor/TensorBrowser.h"
#include "ui/common/PageSearch.h"
#include "ui/shell/OpenImatrix.h"
#include "ui/imatrix/ImatrixPage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QStyle>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTabWidget>
#include <algorithm>
#include <type_traits>

namespace {
constexpr int kMaxRecentFiles = 10;
const char* const kRecentKey = "recentFiles";
const char* const kLastDirKey = "lastDirectory";
const char* const kGeometryKey = "mainWindow/geometry";
// On the page of a tab that an open made: the number of that open, which orders the tabs.
const char* const kOpenRequestProperty = "ggufxOpenRequest";
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_tabs(new QTabWidget(this)), m_loader(new ModelLoader(this))
{
    setWindowTitle(tr("GGUF Explorer"));
    // The theme chosen in an earlier session (View › Theme); System leaves the desktop's palette.
    if (const Theme theme = savedTheme(); theme != Theme::System)
        applyTheme(theme, false);
    setAcceptDrops(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setDocumentMode(true);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::requestCloseTab);
    setCentralWidget(m_tabs);
    connect(m_loader, &ModelLoader::opened, this, &MainWindow::showModel);
    connect(m_loader, &ModelLoader::failed, this, &MainWindow::showError);
    connect(m_loader, &ModelLoader::cancelled, this, [this](const QString& path) { takePendingOpen(path); });
    createMenus();
    m_cacheLabel = new QLabel(this);
    m_cacheLabel->setObjectName(QStringLiteral("cacheLabel"));
    statusBar()->addPermanentWidget(m_cacheLabel);
    connect(&ResultCache::instance(), &ResultCache::usageChanged, this, &MainWindow::showCacheUsage);
    showCacheUsage(ResultCache::instance().usedBytes(), ResultCache::instance().budgetBytes());
    m_jobsLabel = new QLabel(this);
    m_jobsLabel->setObjectName(QStringLiteral("jobsLabel"));
    statusBar()->addPermanentWidget(m_jobsLabel);
    connect(&JobMonitor::instance(), &JobMonitor::runningChanged, this, [this](int running) {
        m_jobsLabel->setText(running > 0 ? tr("%n job(s) running", nullptr, running) : QString());
    });
    resize(1280, 800);
    restoreGeometry(QSettings().value(kGeometryKey).toByteArray());
    fitToScreen();
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateWindowTitle);
    // A message is about the tab that gave it ("Exported the comparison to …"): another tab
    // brought forward must not seem to have said it.
    connect(m_tabs, &QTabWidget::currentChanged, statusBar(), &QStatusBar::clearMessage);
    statusBar()->showMessage(tr("Open a .gguf file (Ctrl+O) or drop one on the window"));
}

MainWindow::~MainWindow()
{
    // The pages die in ~QWidget, after this object has stopped being a MainWindow; jobs they own
    // report their end to these application-wide singletons on the way out, which must not
    // reach a half-destroyed window.
    disconnect(&JobMonitor::instance(), nullptr, this, nullptr);
    disconnect(&ResultCache::instance(), nullptr, this, nullptr);
}

namespace {
// `keys`, then the platform's keys for `standard` that are not among them.
template <class... Keys>
QList<QKeySequence> withPlatformKeys(Keys... keys)
{
    QList<QKeySequence> all;
    const auto add = [&all](const auto& key) {
        if constexpr (std::is_same_v<std::decay_t<decltype(key)>, QKeySequence::StandardKey>) {
            for (const QKeySequence& platform : QKeySequence::keyBindings(key))
                if (!all.contains(platform))
                    all.append(platform);
        } else if (!all.contains(key)) {
            all.append(key);
        }
    };
    (add(keys), ...);
    return all;
}
}  // namespace

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::chooseFile);
    file->addAction(tr("Open &URL…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this]() {
        const QString url = askForModelUrl(this);
        if (!url.isEmpty())
            openFile(url);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addAction(tr("&Close Tab"), QKeySequence::Close, this, [this]() {
        if (m_tabs->count() > 0)
            emit m_tabs->tabCloseRequested(m_tabs->currentIndex());
    });
    file->addAction(tr("Open &Importance Matrix…"), this, [this]() { chooseImportanceMatrix(this); })
        ->setObjectName(QStringLiteral("openImportanceMatrixAction"));
    file->addAction(tr("Compute Importance Matrix from &Text…"), this, [this]() { computeImportanceMatrix(this); })
        ->setObjectName(QStringLiteral("computeImportanceMatrixAction"));
    file->addSeparator();
    file->addAction(tr("Compare &Quant Levels…"), this, [this]() {
        const ModelPage* current = modelPageInView();
        CompareDialog dialog(current ? QString::fromStdString(current->model().primary().path()) : QString(), this);
        dialog.offerOpenModels(openModelPaths(current));  // remote tabs too: the file dialog takes no URL
        if (current && !current->importanceMatrixPath().isEmpty())
            dialog.setImportanceMatrixPath(current->importanceMatrixPath());
        if (dialog.exec() != QDialog::Accepted)
            return;
        showComparison(dialog.models(), dialog.simulatedTypes(), dialog.importanceMatrix());
    });
    file->addAction(tr("Con&vert…"), this, [this]() {
        const ModelPage* current = modelPageInView();
        if (!current) {
            statusBar()->showMessage(tr("Open a model to convert first"), 5000);
            return;
        }
        ConvertDialog dialog(current->sharedModel(), this);
        if (!current->importanceMatrixPath().isEmpty())
            dialog.setImportanceMatrixPath(current->importanceMatrixPath());
        dialog.exec();
    });
    file->addAction(tr("Recipe and Mix &Planner"), this, [this]() {
        const ModelPage* current = modelPageInView();
        if (!current) {
            statusBar()->showMessage(tr("Open a model to see its recipe first"), 5000);
            return;
        }
        auto* page = new RecipePage(current->sharedModel(), m_tabs);
        if (!current->importanceMatrixPath().isEmpty())
            page->loadImatrix(current->importanceMatrixPath());
        m_tabs->setCurrentIndex(m_tabs->addTab(page, uniqueTabTitle(page->title())));
    });
    QAction* saveAs = file->addAction(tr("Save &As…"), this, [this]() {
        ModelPage* current = currentModelPage();
        auto* metadata = current ? current->findChild<MetadataPage*>() : nullptr;
        if (!metadata) {
            statusBar()->showMessage(tr("Open a model to save first"), 5000);
            return;
        }
        metadata->chooseSaveAs();
    });
    // Ctrl+Shift+S everywhere: QKeySequence::SaveAs is empty on desktops whose platform theme
    // names no Save As key (plain X11, offscreen), and the guide documents this one.
    saveAs->setShortcuts(withPlatformKeys(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), QKeySequence::SaveAs));
    file->addAction(tr("&Diff With…"), this, [this]() {
        const ModelPage* current = currentModelPage();
        if (!current) {
            statusBar()->showMessage(tr("Open a model to diff first"), 5000);
            return;
        }
        const QString path = askOpenFileName(this, tr("Diff With"), QFileInfo(QString::fromStdString(current->model().primary().path())).path(),
                                                          tr("GGUF models (*.gguf);;All files (*)"));
        if (!path.isEmpty())
            showDiff(current->sharedModel(), path);
    });
    // A remote file: the file dialog takes no URL ("File not found"); and the models open in
    // the other tabs, remote ones included.
    file->addAction(tr("Diff With U&RL…"), this, [this]() {
        const ModelPage* current = currentModelPage();
        if (!current) {
            statusBar()->showMessage(tr("Open a model to diff first"), 5000);
            return;
        }
        const QString url = askForModelUrl(this);
        if (!url.isEmpty())
            showDiff(current->sharedModel(), url);
    });
    QMenu* diffWithTab = file->addMenu(tr("Diff With Open &Tab"));
    diffWithTab->setObjectName(QStringLiteral("diffWithOpenTabMenu"));
    connect(diffWithTab, &QMenu::aboutToShow, this, [this, diffWithTab]() {
        diffWithTab->clear();
        const ModelPage* current = currentModelPage();
        const QStringList others = openModelPaths(current);
        for (const QString& path : others)
            diffWithTab->addAction(path, this, [this, path]() {
                if (const ModelPage* page = currentModelPage())
                    showDiff(page->sharedModel(), path);
            });
        if (!current || others.isEmpty())
            diffWithTab->addAction(current ? tr("No other model is open") : tr("Open a model to diff first"))->setEnabled(false);
    });
    file->addSeparator();
    file->addAction(tr("Export &Report…"), this, [this]() {
        chooseAndExportReport(currentModelPage(), m_tabs, this, [this](const QString& line) { statusBar()->showMessage(line, 8000); });
    });
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    // The search of the page in view (Metadata's key filter, the Tokenizer's search, a
    // comparison's filter); the Tensors page's filter from a model page that has none.
    view->addAction(tr("&Find"), QKeySequence::Find, this, [this]() {
        ModelPage* model = currentModelPage();
        QWidget* page = model ? model->pages()->currentWidget() : m_tabs->currentWidget();
        QLineEdit* field = pageSearchIn(page);
        if (!field && model) {
            model->showTensorsPage();
            page = model->pages()->currentWidget();
            field = pageSearchIn(page);
        }
        if (field)
            focusPageSearch(field, page);
    });
    view->addAction(tr("Find &Everywhere…"), QKeySequence(Qt::CTRL | Qt::Key_K), this, &MainWindow::findEverywhere);
    view->addAction(tr("&Next Tensor"), QKeySequence(Qt::ALT | Qt::Key_Down), this, [this]() {
        if (auto* page = currentModelPage())
            page->tensorBrowser()->selectAdjacent(+1);
    });
    view->addAction(tr("&Previous Tensor"), QKeySequence(Qt::ALT | Qt::Key_Up), this, [this]() {
        if (auto* page = currentModelPage())
            page->tensorBrowser()->selectAdjacent(-1);
    });
    view->addSeparator();
    // Between the window's tabs, as browsers do (QTabWidget's own Ctrl+Tab reaches it only
    // while the focus is on its tab bar).
    const auto stepTab = [this](int step) {
        if (m_tabs->count() > 1)
            m_tabs->setCurrentIndex((m_tabs->currentIndex() + step + m_tabs->count()) % m_tabs->count());
    };
    view->addAction(tr("Ne&xt Tab"), this, [stepTab]() { stepTab(+1); })
        ->setShortcuts(withPlatformKeys(QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown), QKeySequence::NextChild));
    view->addAction(tr("Pre&vious Tab"), this, [stepTab]() { stepTab(-1); })
        ->setShortcuts(withPlatformKeys(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageUp),
                                        QKeySequence::PreviousChild));
    view->addSeparator();
    view->addMenu(createThemeMenu(this));
    view->addAction(tr("Result &Cache Budget…"), this, [this]() {
        bool ok = false;
        const int mib = QInputDialog::getInt(this, tr("Result cache budget"), tr("Memory for finished heatmaps and statistics (MiB):"),
                                             static_cast<int>(ResultCache::instance().budgetBytes() >> 20), 16, 1 << 20, 16, &ok);
        if (ok)
            ResultCache::instance().setBudgetBytes(static_cast<qint64>(mib) << 20);
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About GGUF Explorer"), this, [this]() { AboutDialog(this).exec(); });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

ComparePage* MainWindow::showComparison(const std::vector<std::shared_ptr<const gguf::Model>>& models, const std::vector<std::uint32_t>& simulatedTypes,
                                        std::shared_ptr<gguf::ImportanceMatrix> importance)
{
    auto* page = new ComparePage(models, simulatedTypes, m_tabs, std::move(importance));
    connect(page, &ComparePage::exportFinished, this, [this](bool, const QString& message) { statusBar()->showMessage(message, 8000); });
    installCopyAction(page->tableView());
    const int index = m_tabs->addTab(page, uniqueTabTitle(page->title()));
    QStringList files;
    for (const auto& model : models)
        files << QString::fromStdString(model->primary().path());
    m_tabs->setTabToolTip(index, files.join(QLatin1Char('\n')));
    m_tabs->setCurrentIndex(index);
    return page;
}

DiffPage* MainWindow::showDiff(std::shared_ptr<const gguf::Model> a, const QString& pathB)
{
    auto* page = new DiffPage(std::move(a), pathB, m_tabs);
    const int index = m_tabs->addTab(page, uniqueTabTitle(page->title()));
    m_tabs->setTabToolTip(index, pathB);
    m_tabs->setCurrentIndex(index);
    return page;
}

void MainWindow::requestCloseTab(int index)
{
    QWidget* page = m_tabs->widget(index);
    if (!page)
        return;
    auto* model = qobject_cast<ModelPage*>(page);
    if (model && model->hasUnsavedEdits()) {
        askAboutUnsavedEdits(model, [this, page]() {
            if (const int at = m_tabs->indexOf(page); at >= 0)
                requestCloseTab(at);  // asks again if the user edited while saving
        });
        return;
    }
    m_tabs->removeTab(index);
    page->deleteLater();
}

// Window-modal and not blocking: the event loop runs on, and a test (or the user) answers with
// a click. `then` runs once the edits are saved or discarded; Cancel leaves everything as it was.
void MainWindow::askAboutUnsavedEdits(ModelPage* page, std::function<void()> then)
{
    if (m_unsavedEditsPrompt)
        return;  // already asking
    m_tabs->setCurrentWidget(page);
    const QString name = m_tabs->tabBar()->tabData(m_tabs->indexOf(page)).toString();
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Unsaved metadata edits"),
                                tr("%1 has metadata edits that are not saved.").arg(name), QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("unsavedEditsPrompt"));
    box->setInformativeText(tr("Save them to a new file, or discard them?"));
    box->setStandardButtons(QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    box->setDefaultButton(QMessageBox::Save);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    m_unsavedEditsPrompt = box;
    QPointer<ModelPage> target(page);
    connect(box, &QMessageBox::finished, this, [this, box, target, then = std::move(then)]() {
        // Answered: the box is on its way out (deleted later), and the next close asks again.
        box->setObjectName(QString());
        m_unsavedEditsPrompt = nullptr;
        if (!target)
            return;
        const QMessageBox::StandardButton answer = box->standardButton(box->clickedButton());
        if (answer == QMessageBox::Discard) {
            target->metadataPage()->treeModel()->revertAll();
            then();
        } else if (answer == QMessageBox::Save) {
            MetadataPage* metadata = target->metadataPage();
            // The save runs in the background; the tab (or the window) closes once it is written.
            connect(metadata, &MetadataPage::saveFinished, this, [then](bool succeeded) {
                if (succeeded)
                    then();
            }, Qt::SingleShotConnection);
            m_closingAfterSave = true;
            if (!metadata->chooseSaveAs()) {
                m_closingAfterSave = false;
                disconnect(metadata, &MetadataPage::saveFinished, this, nullptr);
            }
        }
    });
    box->open();
}

void MainWindow::markUnsavedEdits(ModelPage* page, bool unsaved)
{
    const int index = m_tabs->indexOf(page);
    if (index < 0)
        return;
    const QString name = m_tabs->tabBar()->tabData(index).toString();
    QString text = unsaved ? name + QLatin1Char('*') : name;
    m_tabs->setTabText(index, text.replace(QLatin1Char('&'), QLatin1String("&&")));
    updateWindowTitle();
}

void MainWindow::fitToScreen()
{
    fitWindowIntoScreen(this);
}

void MainWindow::findEverywhere()
{
    ModelPage* page = currentModelPage();
    if (!page) {
        statusBar()->showMessage(tr("Open a model to search it first"), 5000);
        return;
    }
    QStringList pages;
    for (int i = 0; i < page->pages()->count(); ++i)
        pages << page->pages()->tabText(i).remove(QLatin1Char('&'));
    auto* dialog = new FindEverywhereDialog(page->sharedModel(), pages, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &FindEverywhereDialog::chosen, this, [page = QPointer<ModelPage>(page)](int kind, const QString& name, int index) {
        if (!page)
            return;
        const auto searchPage = [&page](const char* field, const QString& text) {
            if (auto* edit = page->findChild<QLineEdit*>(QLatin1String(field))) {
                focusPageSearch(edit, page);
                edit->setText(text);
            }
        };
        switch (static_cast<FindEverywhereDialog::Kind>(kind)) {
        case FindEverywhereDialog::Kind::Page: page->pages()->setCurrentIndex(index); break;
        case FindEverywhereDialog::Kind::Metadata: searchPage("metadataFilter", name); break;
        case FindEverywhereDialog::Kind::Token: searchPage("tokenSearch", name); break;
        case FindEverywhereDialog::Kind::Tensor:
            page->showTensorsPage();
            page->tensorBrowser()->clearFilter();
            page->tensorBrowser()->selectTensor(index);
            break;
        }
    });
    dialog->open();
}

QStringList MainWindow::openModelPaths(const ModelPage* except) const
{
    QStringList paths;
    for (int i = 0; i < m_tabs->count(); ++i) {
        const auto* page = qobject_cast<ModelPage*>(m_tabs->widget(i));
        if (!page || page == except)
            continue;
        const QString path = QString::fromStdString(page->model().primary().path());
        if (!paths.contains(path))
            paths << path;
    }
    return paths;
}

QString MainWindow::uniqueTabTitle(const QString& title) const
{
    const auto taken = [this](const QString& text) {
        for (int i = 0; i < m_tabs->count(); ++i)
            if (m_tabs->tabText(i) == text)
                return true;
        return false;
    };
    QString candidate = title;
    for (int n = 2; taken(candidate); ++n)
        candidate = QStringLiteral("%1 (%2)").arg(title).arg(n);
    return candidate;
}

void MainWindow::updateWindowTitle()
{
    const int index = m_tabs->currentIndex();
    // Tab texts are file names (or "Compare: …"); "&" in one would be a mnemonic there, not here.
    const QString name = index >= 0 ? m_tabs->tabText(index).replace(QLatin1String("&&"), QLatin1String("&")) : QString();
    setWindowTitle(name.isEmpty() ? tr("GGUF Explorer") : tr("%1 — GGUF Explorer").arg(name));
}

ModelPage* MainWindow::currentModelPage() const
{
    return qobject_cast<ModelPage*>(m_tabs->currentWidget());
}

ModelPage* MainWindow::modelPageInView() const
{
    if (ModelPage* page = currentModelPage())
        return page;
    const auto* imatrix = qobject_cast<ImatrixPage*>(m_tabs->currentWidget());
    if (!imatrix || imatrix->imatrix().modelPath.isEmpty())
        return nullptr;
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto* page = qobject_cast<ModelPage*>(m_tabs->widget(i));
        if (page && QString::fromStdString(page->model().primary().path()) == imatrix->imatrix().modelPath)
            return page;
    }
    return nullptr;
}

void MainWindow::showCacheUsage(qint64 usedBytes, qint64 budgetBytes)
{
    m_cacheLabel->setText(tr("Cache: %1 of %2")
                              .arg(QString::fromStdString(gguf::formatBytes(static_cast<std::uint64_t>(usedBytes))),
                                   QString::fromStdString(gguf::formatBytes(static_cast<std::uint64_t>(budgetBytes)))));
}

void MainWindow::chooseFile()
{
    QSettings settings;
    // The open model's folder (the next file is often its sibling), else the last folder used.
    const ModelPage* current = currentModelPage();
    const QString start = modelFolder(current ? QString::fromStdString(current->model().primary().path()) : QString(),
                                      settings.value(kLastDirKey).toString());
    const QStringList paths = askOpenFileNames(this, tr("Open GGUF model"), start, tr("GGUF models (*.gguf);;All files (*)"));
    if (paths.isEmpty())
        return;
    settings.setValue(kLastDirKey, QFileInfo(paths.front()).absolutePath());
    for (const QString& path : paths)
        openFile(path);
}

void MainWindow::openFile(const QString& path)
{
    statusBar()->showMessage(tr("Opening %1…").arg(isModelUrl(path) ? path : QFileInfo(path).fileName()));
    m_pendingOpens.emplace_back(m_nextOpenRequest++, path);
    m_loader->open(path);
}

quint64 MainWindow::takePendingOpen(const QString& path)
{
    const auto pending = std::find_if(m_pendingOpens.begin(), m_pendingOpens.end(), [&path](const auto& open) { return open.second == path; });
    if (pending == m_pendingOpens.end())
        return m_nextOpenRequest++;
    const quint64 request = pending->first;
    m_pendingOpens.erase(pending);
    return request;
}

int MainWindow::addOpenedTab(quint64 request, QWidget* page, const QString& text)
{
    page->setProperty(kOpenRequestProperty, request);
    int index = m_tabs->count();
    for (int i = 0; i < m_tabs->count(); ++i) {
        const QVariant other = m_tabs->widget(i)->property(kOpenRequestProperty);
        if (other.isValid() && other.toULongLong() > request) {
            index = i;
            break;
        }
    }
    index = m_tabs->insertTab(index, page, text);
    // A slow file that ends last does not pull the user away from the tab of a later one.
    if (request > m_newestShownRequest) {
        m_newestShownRequest = request;
        m_tabs->setCurrentIndex(index);
    }
    return index;
}

void MainWindow::showModel(const QString& path, std::shared_ptr<const gguf::Model> model)
{
    auto* page = new ModelPage(std::move(model), m_tabs);
    connect(page, &ModelPage::statusMessage, this, [this](bool, const QString& message) { statusBar()->showMessage(message, 8000); });
    if (auto* metadata = page->findChild<MetadataPage*>()) {
        connect(metadata, &MetadataPage::statusMessage, this, [this](bool, const QString& message) { statusBar()->showMessage(message, 8000); });
        // A saved copy opens in its own tab: it is what holds the edits now.
        connect(metadata, &MetadataPage::saveFinished, this, [this](bool succeeded, const QString&, const QStringList& paths) {
            // Saved on the way out (Save on closing the tab or the window): nothing to show it in.
            if (succeeded && !paths.isEmpty() && !m_closingAfterSave)
                openFile(paths.front());
            m_closingAfterSave = false;
        });
    }
    connect(page, &ModelPage::unsavedEditsChanged, this, [this, page](bool unsaved) { markUnsavedEdits(page, unsaved); });
    const QString name = QFileInfo(path).fileName();
    QString tabText = name;
    const int index = addOpenedTab(takePendingOpen(path), page, tabText.replace(QLatin1Char('&'), QLatin1String("&&")));
    m_tabs->tabBar()->setTabData(index, name);
    m_tabs->setTabToolTip(index, path);
    // A remote model reads its tensors over the network, slower and maybe failing: its tab says
    // so with the network-drive icon, the whole URL in the tool tip.
    if (isModelUrl(path))
        m_tabs->setTabIcon(index, style()->standardIcon(QStyle::SP_DriveNetIcon));
    rememberRecent(path);
    // The name, as on the tab; the tab's tool tip has the whole path.
    statusBar()->showMessage(tr("Opened %1").arg(name), 5000);
}

void MainWindow::showError(const QString& path, const QString& message)
{
    // Shown in a tab, not a modal box: the window stays usable and the text can be copied.
    auto* label = new QLabel(tr("<h3>Could not open %1</h3><p>%2</p>").arg(QFileInfo(path).fileName().toHtmlEscaped(), message.toHtmlEscaped()), m_tabs);
    label->setToolTip(path);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    label->setMargin(16);
    label->setObjectName(QStringLiteral("errorLabel"));
    const int index = addOpenedTab(takePendingOpen(path), label, tr("Error: %1").arg(QFileInfo(path).fileName()));
    m_tabs->setTabToolTip(index, path);
    // Of several files opened together, the one this message is about.
    statusBar()->showMessage(tr("Could not open %1: %2").arg(QFileInfo(path).fileName(), message));
}

void MainWindow::rememberRecent(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    const QString absolute = isModelUrl(path) ? path : QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path]() { openFile(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            openFile(url.toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    // Each model with unsaved edits is asked about in turn; the window closes after the last.
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto* page = qobject_cast<ModelPage*>(m_tabs->widget(i));
        if (page && page->hasUnsavedEdits()) {
            event->ignore();
            askAboutUnsavedEdits(page, [this]() { close(); });
            return;
        }
    }
    QSettings().setValue(kGeometryKey, saveGeometry());
    QMainWindow::closeEvent(event);
}
