#pragma once
// Exports a slice (.npy, raw f32 or CSV) with the same core code as the CLI; the file appears only
// when complete (temp file, then rename), never over an input file. The work of a job: owners
// run it through their JobRunner.

#include "ui/session/JobRunner.h"
#include "ui/session/SliceRef.h"
#include "core/write/SliceExporter.h"

// On a pool thread; stops, leaving nothing behind, when the job is cancelled.
gguf::Status exportSliceFile(const SliceRef& slice, gguf::ExportFormat format, const std::string& target, const JobControl& control);
