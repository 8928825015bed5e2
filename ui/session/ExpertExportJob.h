#pragma once
// Exports one expert or a chosen set through the core's exportSlices (the
// CLI's code): a .npy of shape [n, rows, cols] for several experts ([rows, cols] for one), or
// raw f32 / CSV concatenated in the order given. Written to a temp file and renamed into place,
// never over an input file; cancelling leaves nothing behind. The work of a job: owners run it
// through their JobRunner.

#include "core/gguf/Model.h"
#include "ui/session/JobRunner.h"
#include "core/write/SliceExporter.h"

#include <QString>
#include <memory>
#include <vector>

// On a pool thread; `model` keeps `tensor` alive.
gguf::Status exportExpertsFile(const std::shared_ptr<const gguf::Model>& model, const gguf::TensorInfo& tensor, const std::vector<std::uint64_t>& experts,
                               gguf::ExportFormat format, const std::string& target, const JobControl& control);
