#pragma once
// Text input of the commands that tokenize (tokenize, logits, kld): a regular file, a pipe or a
// device, read whole up to 1 GiB.

#include <string>

// Appends the bytes of `path` to `text`; false after reporting why it cannot.
bool readTextFileOrReport(const std::string& path, std::string& text);
