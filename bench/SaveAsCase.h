#pragma once
// Save As (core/edit) on a dense file of real bytes: one metadata edit, every tensor byte copied,
// timed next to a plain read/write copy of the same file (what `cp` does without reflinks), with
// the kernel copy (copy_file_range) and with the read/write fallback forced.

#include "BenchOptions.h"
#include "Report.h"

namespace bench {

// Writes a file of about `megabytes` MiB in `workDir`, measures, removes it. False (with a
// message on stderr) when the file cannot be written.
bool runSaveAsCase(const BenchOptions& options, std::uint64_t megabytes, Report& report);

}  // namespace bench
