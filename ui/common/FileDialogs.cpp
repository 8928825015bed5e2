#include "ui/common/FileDialogs.h"

#include <QFileDialog>
#include <QHeaderView>
#include <QPointer>
#include <QTimer>
#include <QTreeView>

namespace {

bool fitColumnsNow(QFileDialog* dialog)
{
    auto* tree = dialog->findChild<QTreeView*>(QStringLiteral("treeView"));
    if (!tree)
        return false;
    QHeaderView* header = tree->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column = 1; column < header->count(); ++column)
        header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    return true;
}

}  // namespace

void fitFileDialogColumns(QFileDialog* dialog)
{
    if (fitColumnsNow(dialog))
        return;
    QPointer<QFileDialog> later(dialog);
    QTimer::singleShot(0, dialog, [later]() {
        if (later)
            fitColumnsNow(later);
    });
}

QString askOpenFileName(QWidget* parent, const QString& caption, const QString& folder, const QString& filter)
{
    QFileDialog dialog(parent, caption, folder, filter);
    dialog.setFileMode(QFileDialog::ExistingFile);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    fitFileDialogColumns(&dialog);
    if (dialog.exec() != QDialog::Accepted)
        return {};
    return dialog.selectedFiles().value(0);
}

QStringList askOpenFileNames(QWidget* parent, const QString& caption, const QString& folder, const QString& filter)
{
    QFileDialog dialog(parent, caption, folder, filter);
    dialog.setFileMode(QFileDialog::ExistingFiles);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    fitFileDialogColumns(&dialog);
    if (dialog.exec() != QDialog::Accepted)
        return {};
    return dialog.selectedFiles();
}

QString askSaveFileName(QWidget* parent, const QString& caption, const QString& proposal, const QString& filter,
                        QString* selectedFilter)
{
    QFileDialog dialog(parent, caption, proposal, filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    fitFileDialogColumns(&dialog);
    if (dialog.exec() != QDialog::Accepted)
        return {};
    if (selectedFilter)
        *selectedFilter = dialog.selectedNameFilter();
    return dialog.selectedFiles().value(0);
}
