#pragma once
// Exports one expert or a chosen set in the background through the core's exportSlices (the
// CLI's code): a .npy of shape [n, rows, cols] for several experts ([rows, cols] for one), or
// raw f32 / CSV concatenated in the order given. Written to a temp file and renamed into place,
// never over an input file; cancelling leaves nothing behind.

#include "gguf/Model.h"
#include "write/SliceExporter.h"

#include <QString>
#include <memory>
#include <vector>

class BackgroundJob;
class QObject;

// Returns the running job; its finished() signal carries the outcome.
BackgroundJob* startExpertExport(std::shared_ptr<const gguf::Model> model, const gguf::TensorInfo& tensor, std::vector<std::uint64_t> experts,
                                 gguf::ExportFormat format, const QString& path, QObject* parent);
