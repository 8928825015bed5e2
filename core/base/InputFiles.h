#pragma once
// The local files this run has read as inputs: models, importance matrices, text files, rules
// files, --set-file values. Readers note each file as they open it, and every output is checked
// against the list before it is written and again before it is committed, so an output is never
// an input of the same run, whatever names it: the same path, a symlink, a hard link,
// /dev/fd/N, or a standard output redirected into the file. Only regular files are noted:
// reading /dev/null or a FIFO does not forbid writing to it.
//
// Noting is off until trackInputFiles() is called. A one-shot process (the CLI) turns it on
// at start; a long-lived one (the GUI) opens and closes files for hours, and what it read an
// hour ago is not an input of what it saves now (its savers check the model they copy).

#include "core/base/Result.h"

#include <optional>
#include <string>
#include <sys/stat.h>

namespace gguf {

void trackInputFiles();

// Notes the file open at `fd`, read as `name`; nothing for a non-regular file.
void noteInputFile(int fd, const std::string& name);
// The same for a file a reader opened by name (a stream); a path that does not exist is ignored.
void noteInputPath(const std::string& path);

// The name an input was read as when `info` (from stat or fstat) is that same file.
std::optional<std::string> inputNamed(const struct stat& info);

// An error naming `output` when `info` is an input of this run; Ok otherwise.
Status refuseInputAsOutput(const struct stat& info, const std::string& output);

}  // namespace gguf
