#pragma once
// A self-contained report of one model, for an issue or a model card: the file's facts, its
// metadata (long arrays and strings summarized), the type mix with sizes and bits per weight,
// the bytes per layer, the tokenizer, and whatever the caller measured (tables and PNG plots,
// embedded). One builder for the CLI's `report` and the app's File › Export Report…, so both
// say the same; every text from the file is escaped for the format (no markup, no control
// characters reach the reader).

#include "core/base/Result.h"
#include "core/gguf/Model.h"

#include <string>
#include <vector>

namespace gguf {

enum class ReportFormat { Html, Markdown };

// Markdown for a path ending in .md or .markdown (any case), HTML otherwise.
ReportFormat reportFormatForPath(const std::string& path);

// A measured figure table the caller holds (a comparison's totals, a KLD run, a scan): plain
// text cells, escaped when written.
struct ReportTable {
    std::string title;
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    std::string note;  // one paragraph under the table, may be empty
};

// A plot as PNG bytes, embedded as a data: URI.
struct ReportImage {
    std::string title;
    std::string png;
};

struct ReportExtras {
    std::vector<ReportTable> measured;
    std::vector<ReportImage> images;
};

// The report's text. Reads the header only (no tensor data).
std::string buildModelReport(const Model& model, ReportFormat format, const ReportExtras& extras = {});

// Writes `text` to `path` through a temporary file renamed into place (never half a report).
Status writeReportFile(const std::string& path, const std::string& text);

}  // namespace gguf
