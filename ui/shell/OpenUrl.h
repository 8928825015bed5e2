#pragma once
// File › Open URL: asks for an http(s) or hf:// model URL, offering the URLs opened before
// (newest first, kept in the settings). The model then opens like a file, in the background.

#include <QString>
#include <QStringList>

class QWidget;

bool isModelUrl(const QString& text);
QStringList recentModelUrls();
void rememberModelUrl(const QString& url);
// Empty when cancelled or when the text is not a URL this app opens (it says so).
QString askForModelUrl(QWidget* parent);
