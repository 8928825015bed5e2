#pragma once
// Exports a slice (.npy, raw f32 or CSV) in the background with the same core code as the CLI;
// the file appears only when complete (temp file, then rename), never over an input file.

#include "write/SliceExporter.h"
#include "session/SliceRef.h"

class BackgroundJob;
class QObject;

// Returns the running job; its finished() signal carries the outcome.
BackgroundJob* startSliceExport(const SliceRef& slice, gguf::ExportFormat format, const QString& path, QObject* parent);
