#pragma once
// Text input of the commands that tokenize (tokenize, logits, kld): a regular file, a pipe or a
// device, read whole up to 1 GiB (or a command's own smaller bound).

#include <cstddef>
#include <string>

// Appends the bytes of `path` to `text`, at most `maxBytes` (0: 1 GiB); false after reporting
// why it cannot.
bool readTextFileOrReport(const std::string& path, std::string& text, std::size_t maxBytes = 0);
