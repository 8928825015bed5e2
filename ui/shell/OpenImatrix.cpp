#include "ui/shell/OpenImatrix.h"

#include "ui/common/FileDialogs.h"
#include "ui/session/ImatrixLoader.h"
#include "ui/common/ExportLocation.h"
#include "ui/imatrix/ComputeImatrixDialog.h"
#include "ui/imatrix/ImatrixPage.h"
#include "ui/imatrix/ImportanceStrip.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ModelPage.h"

#include <QFileInfo>
#include <QPointer>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

void chooseImportanceMatrix(MainWindow* window)
{
    QSettings settings;
    // Importance matrices usually sit next to their model.
    const ModelPage* current = window->currentModelPage();
    const QString start = modelFolder(current ? QString::fromStdString(current->model().primary().path()) : QString(),
                                      settings.value(QStringLiteral("lastImatrixDirectory")).toString());
    const QString path = askOpenFileName(window, MainWindow::tr("Open importance matrix"), start,
                                                      MainWindow::tr("Importance matrices (*.gguf *.dat *.imatrix);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastImatrixDirectory"), QFileInfo(path).absolutePath());
    openImportanceMatrix(window, path);
}

void openImportanceMatrix(MainWindow* window, const QString& path)
{
    QPointer<ModelPage> modelPage = window->currentModelPage();
    auto* loader = new ImatrixLoader(window);
    window->statusBar()->showMessage(MainWindow::tr("Opening importance matrix %1…").arg(QFileInfo(path).fileName()));
    QObject::connect(loader, &ImatrixLoader::loaded, window, [window, loader, modelPage](const QString& file, std::shared_ptr<const LoadedImatrix> imatrix) {
        loader->deleteLater();
        auto* page = new ImatrixPage(imatrix, window->tabs());
        const int index = window->tabs()->addTab(page, page->title());
        window->tabs()->setTabToolTip(index, file);
        window->tabs()->setCurrentIndex(index);
        if (modelPage && modelPage->tensorPage())
            attachImportanceStrip(modelPage->tensorPage(), imatrix);
        // The model's matrix from now on, for Compare, Recipe and Convert to start with, while
        // its page is open; one that does not fit the model is only shown.
        if (modelPage && imatrix->refusal.isEmpty()) {
            modelPage->setImportanceMatrixPath(file);
            QObject::connect(page, &QObject::destroyed, modelPage, [modelPage, file]() {
                if (modelPage && modelPage->importanceMatrixPath() == file)
                    modelPage->setImportanceMatrixPath(QString());
            });
        }
        // Said where it was chosen, as the CLI says it on stderr: why it is not the model's
        // matrix, or what using it would leave out. Kept on screen until the next message.
        const QString name = QFileInfo(file).fileName();
        if (!imatrix->refusal.isEmpty())
            window->statusBar()->showMessage(MainWindow::tr("Opened importance matrix %1, not used with %2: %3")
                                                 .arg(name, QFileInfo(imatrix->modelPath).fileName(), imatrix->refusal));
        else if (!imatrix->warnings.isEmpty())
            window->statusBar()->showMessage(MainWindow::tr("Opened importance matrix %1 — ⚠ %2").arg(name, imatrix->warnings.join(QStringLiteral("; ⚠ "))));
        else
            window->statusBar()->showMessage(MainWindow::tr("Opened importance matrix %1").arg(name), 5000);
    });
    QObject::connect(loader, &ImatrixLoader::failed, window, [window, loader](const QString& file, const QString& message) {
        loader->deleteLater();
        // In a tab, whole: the status bar cut the reason short (a model opened as a matrix).
        window->showError(file, MainWindow::tr("It is not an importance matrix this app reads: %1").arg(message));
    });
    loader->load(path, modelPage ? modelPage->sharedModel() : nullptr);
}

void computeImportanceMatrix(MainWindow* window)
{
    ModelPage* modelPage = window->currentModelPage();
    if (!modelPage) {
        window->statusBar()->showMessage(MainWindow::tr("Open a model first: the matrix is computed with its forward pass"), 5000);
        return;
    }
    auto* dialog = new ComputeImatrixDialog(modelPage->sharedModel(), window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(dialog, &ComputeImatrixDialog::computationFinished, window,
                     [window](bool succeeded, const QString&, const QString& output) {
                         if (succeeded)
                             openImportanceMatrix(window, output);
                     });
    dialog->show();
}
