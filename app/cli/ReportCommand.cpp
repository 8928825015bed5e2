// report FILE -o OUT.html|OUT.md: the model report the app's File › Export Report… writes, from
// the same builder (core/report/ModelReport.h), without the app's measured figures and plots.

#include "Commands.h"
#include "ModelOpening.h"
#include "core/report/ModelReport.h"

#include <cstdio>

int runReport(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "report");
    const auto out = args.value("-o");
    if (!args.error.empty() || args.positionals.size() != 1 || !out || out->empty())
        return reportFailure(args.error.empty() ? commandUsage("report") : args.error, 2);
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    const std::string text = gguf::buildModelReport(*model, gguf::reportFormatForPath(*out));
    if (gguf::Status written = gguf::writeReportFile(*out, text); !written)
        return reportFailure(written.error().toString());
    return 0;
}
