#pragma once
// The format `imatrix ... -o OUT [--output-format gguf|dat]` writes (converting or computing):
// OUT's name decides (.dat = legacy, else GGUF) unless --output-format says.

#include "CliArguments.h"
#include "core/imatrix/ImatrixWriter.h"

#include <string>

// False after reporting an --output-format that is neither gguf nor dat.
bool imatrixOutputFormatOrReport(const CliArguments& args, const std::string& output, gguf::ImatrixOutputFormat& format);
