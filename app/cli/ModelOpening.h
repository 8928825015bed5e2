#pragma once
// Opening the model and picking the slice that several commands share, and the run-wide record
// of what was opened (main.cpp checks it once more after every command).

#include "CliArguments.h"
#include "CliOutput.h"
#include "core/gguf/TensorSlice.h"
#include "core/gguf/Model.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

// Every model this run opened, in opening order, for the check at the end (main.cpp).
std::vector<std::shared_ptr<const gguf::Model>>& openedModels();

// Opens `path` (a file, an http(s) URL or hf://owner/repo/file.gguf[@rev]) and records it in
// openedModels(), or prints why not and returns nullptr.
std::shared_ptr<const gguf::Model> openModelOrReport(const std::string& path);

// Set once a command has checked after its last read: what it then prints or commits was read
// from unchanged files, and a later change is not its business.
bool& inputsVerified();

// True when every opened file is still the one that was read (and sets inputsVerified()); else
// prints "the file changed on disk ..." and returns false. Commands call it after reading tensor
// data and before they print or commit results; main() calls it once more after every command.
bool inputsUnchangedOrReport();

// Text from a file (names, keys, values) as it may be printed: no control characters.
std::string shown(std::string_view text);

// For a remote model: says on stderr how much tensor data reading `slices` will fetch (nothing
// for local files or bytes already fetched).
void announceRemoteFetch(const std::vector<gguf::TensorSlice>& slices);

// The tensor named `name`, or the experts of it listed by `--expert 3` or `--expert 3,5,7`, after
// announcing the fetch of a remote model's bytes; empty after printing the error.
std::vector<gguf::TensorSlice> selectSlicesOrReport(const gguf::Model& model, const std::string& name, const CliArguments& args);

// Writes `text` to stdout; a failed write is remembered for main() to report once the command
// is done (rememberStandardOutputError).
void writeStdout(const std::string& text);
