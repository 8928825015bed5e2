#include "Commands.h"
#include "core/base/JsonWriter.h"
#include "core/gguf/MetadataFormat.h"
#include "ModelOpening.h"
#include "core/analysis/Statistics.h"
#include "core/gguf/CompanionScales.h"

#include <cstdio>

int runStats(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "stats");
    if (!args.error.empty() || args.positionals.size() != 2)
        return reportFailure(args.error.empty() ? commandUsage("stats") : args.error, 2);
    const std::string binsText = args.value("--bins").value_or("20");
    const long bins = std::strtol(binsText.c_str(), nullptr, 10);
    if (bins < 1 || bins > 100000)
        return reportFailure("--bins must be a whole number from 1 to 100000", 2);

    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    const std::vector<gguf::TensorSlice> slices = selectSlicesOrReport(*model, args.positionals[1], args);
    if (slices.empty())
        return 1;
    if (slices.size() > 1)
        return reportFailure("stats takes one expert at a time", 2);
    const gguf::TensorSlice* slice = &slices.front();
    const auto result = gguf::computeStatistics(*slice, static_cast<std::uint32_t>(bins));
    if (!result)
        return reportFailure(result.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;
    const gguf::Statistics& s = result->statistics;
    const gguf::Histogram& h = result->histogram;
    // The values are the weight's effective ones when it has a companion scale (CompanionScales.h).
    std::optional<std::uint64_t> shownExpert;
    if (const auto text = args.value("--expert"))
        shownExpert = std::strtoull(text->c_str(), nullptr, 10);
    const std::string companions =
        gguf::companionSummary(*slice->tensor, shownExpert, [&](std::string_view name) { return model->findTensor(name); });

    std::string out;
    if (args.has("--json")) {
        gguf::JsonWriter json(out);
        json.beginObject();
        json.key("tensor"), json.value(slice->tensor->name);
        if (const auto expert = args.value("--expert"))
            json.key("expert"), json.value(static_cast<std::uint64_t>(std::strtoull(expert->c_str(), nullptr, 10)));
        json.key("count"), json.value(s.count);
        json.key("min"), json.value(s.min);
        json.key("max"), json.value(s.max);
        json.key("mean"), json.value(s.mean);
        json.key("std"), json.value(s.stddev);
        json.key("rms"), json.value(s.rms);
        json.key("zeros"), json.value(s.zeroCount);
        json.key("nans"), json.value(s.nanCount);
        json.key("infs"), json.value(s.infCount);
        if (!companions.empty())
            json.key("companions"), json.value(companions);
        json.key("histogram");
        json.beginObject();
        json.key("lower"), json.value(h.lower());
        json.key("upper"), json.value(h.upper());
        json.key("counts");
        json.beginArray();
        for (const std::uint64_t count : h.counts())
            json.value(count);
        json.endArray();
        json.endObject();
        json.endObject();
        out += '\n';
    } else {
        auto line = [&](const char* label, const std::string& value) { out += std::string(label) + value + "\n"; };
        line("tensor:  ", shown(slice->tensor->name) + (args.has("--expert") ? " expert " + *args.value("--expert") : ""));
        line("count:   ", std::to_string(s.count));
        line("min:     ", gguf::formatFloat(s.min, false));
        line("max:     ", gguf::formatFloat(s.max, false));
        line("mean:    ", gguf::formatFloat(s.mean, false));
        line("std:     ", gguf::formatFloat(s.stddev, false));
        line("rms:     ", gguf::formatFloat(s.rms, false));
        line("zeros:   ", std::to_string(s.zeroCount));
        line("NaN:     ", std::to_string(s.nanCount));
        line("Inf:     ", std::to_string(s.infCount));
        if (!companions.empty())
            line("values:  ", companions);
        out += "histogram:\n";
        std::uint64_t peak = 1;
        for (const std::uint64_t count : h.counts())
            peak = std::max(peak, count);
        for (std::uint32_t bin = 0; bin < h.counts().size(); ++bin) {
            char row[160];
            const std::uint64_t count = h.counts()[bin];
            std::snprintf(row, sizeof row, "  %14.6g %10llu ", h.binLower(bin), static_cast<unsigned long long>(count));
            out += row + std::string(static_cast<std::size_t>(40 * count / peak), '#') + "\n";
        }
    }
    writeStdout(out);
    return 0;
}
