#pragma once
// File dialogs whose columns fit. Where the desktop offers no dialog of its own, Qt shows its
// widget-based one, whose Size, Type and Date columns start about 60 px wide and elide their text
// in the middle ("19....MiB"). These open that dialog with those columns sized to their contents
// and the name taking the rest; a native dialog is left as the desktop draws it.

#include <QString>
#include <QStringList>

class QFileDialog;
class QWidget;

// Sizes the columns of `dialog`'s detail view, if it has Qt's own widgets (now, or once its event
// loop has started: a native dialog that fails falls back to them there).
void fitFileDialogColumns(QFileDialog* dialog);

// As QFileDialog::getOpenFileName (one existing file; empty when cancelled), columns fitted.
QString askOpenFileName(QWidget* parent, const QString& caption, const QString& folder, const QString& filter);
// As QFileDialog::getOpenFileNames (existing files; empty when cancelled), columns fitted.
QStringList askOpenFileNames(QWidget* parent, const QString& caption, const QString& folder, const QString& filter);
// As QFileDialog::getSaveFileName: `proposal` (a folder, or a file in one) is where it starts;
// `selectedFilter`, if given, receives the filter the user picked.
QString askSaveFileName(QWidget* parent, const QString& caption, const QString& proposal, const QString& filter,
                        QString* selectedFilter = nullptr);
