#include "core/write/ByteSink.h"
#include "Commands.h"
#include "ModelOpening.h"
#include "app/threads/ParallelRows.h"
#include "core/write/SliceExporter.h"

#include <unistd.h>

int runExport(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "export");
    if (!args.error.empty() || args.positionals.size() != 2)
        return reportFailure(args.error.empty() ? commandUsage("export") : args.error, 2);
    const std::string formatName = args.value("--format").value_or("f32");
    const auto format = gguf::parseExportFormat(formatName);
    if (!format)
        return reportFailure("unknown export format '" + formatName + "' (use f32, npy or csv)", 2);
    const std::string output = args.value("-o").value_or(args.value("--output").value_or("-"));

    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    const std::vector<gguf::TensorSlice> slices = selectSlicesOrReport(*model, args.positionals[1], args);
    if (slices.empty())
        return 1;

    if (output == "-" && *format != gguf::ExportFormat::Csv && isatty(STDOUT_FILENO))
        return reportFailure("refusing to write binary data to a terminal; use -o PATH or a pipe", 2);
    // Never into what this run reads, whichever name or descriptor leads there.
    auto opened = gguf::openOutputFile(output);
    if (!opened)
        return reportFailure(opened.error().toString(), 2);
    std::unique_ptr<gguf::ByteSink> sink = std::move(opened.value());
    if (gguf::Status status = gguf::exportSlices(slices, *format, *sink, {}, &gguf::ParallelRows::shared()); !status)
        return reportFailure(status.error().toString());
    // A rewrite in place during the export would leave output that is neither file: keep the
    // target as it was (the sink's temp file is removed) and say so.
    if (!inputsUnchangedOrReport())
        return 1;
    if (gguf::Status status = sink->commit(); !status)
        return reportFailure(status.error().toString());
    return 0;
}
