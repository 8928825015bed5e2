#pragma once
// Where export dialogs start: the folder of the last export (one setting for every export in the
// app), or the open model's folder before the first one, never the process's working folder
// (often `/` for a desktop launch).

#include <QString>

// `fileName` inside the folder an export dialog should open in for a model stored at `modelPath`.
QString proposedExportPath(const QString& modelPath, const QString& fileName);
// Remembers the folder of `exportedPath` for the next proposedExportPath().
void rememberExportFolder(const QString& exportedPath);

// The folder of a model stored at `modelPath`, where Open, Open Importance Matrix, Save rules and
// Convert dialogs start; `fallback` for a model opened from a URL, or none.
QString modelFolder(const QString& modelPath, const QString& fallback = {});
