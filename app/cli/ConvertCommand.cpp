// convert: re-quantize a model (via f32) to one type and write a new GGUF file.

#include "app/threads/ParallelRows.h"
#include "Commands.h"
#include "ImatrixOption.h"
#include "core/quantize/Conversion.h"
#include "ModelOpening.h"
#include "QuantChoices.h"
#include "core/remote/RemoteUrl.h"
#include "core/quantize/Quantize.h"

#include <cstdio>
#include <unistd.h>
#include <optional>

int runConvert(const std::vector<std::string>& words)
{
    if (convertWantsPreset(words))
        return runConvertPreset(words);
    const CliArguments args = CliArguments::parse(words, "convert");
    if (!args.error.empty() || args.positionals.size() != 2 || !args.has("--type"))
        return reportFailure(args.error.empty() ? commandUsage("convert") : args.error, 2);
    const std::string typeText = *args.value("--type");
    const gguf::TypeTraits* type = gguf::findTypeByName(typeText);
    if (!type || !gguf::canQuantize(type->id))
        return reportFailure("cannot convert to '" + typeText + "'; types: " + quantizableTypeNames(), 2);

    // The converter reads tensor bytes straight from the mapping, which a remote model fills only on request.
    if (gguf::remote::isRemoteName(args.positionals[0]))
        return reportFailure("convert reads every tensor of its input; download a remote model first (gguf-explorer-cli download URL -o DIR)", 2);
    // `-`: the model goes to standard output (never a file named `-`), and the summary to stderr.
    const bool modelOnStdout = args.positionals[1] == "-";
    if (modelOnStdout && isatty(STDOUT_FILENO))
        return reportFailure("refusing to write a model to a terminal; name a file or use a pipe", 2);
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    gguf::ConversionOptions options;
    std::optional<gguf::ParallelRows> ownPool;  // --threads; otherwise the shared pool (GGUFX_THREADS)
    if (const auto threads = args.value("--threads")) {
        const long n = std::strtol(threads->c_str(), nullptr, 10);
        if (n < 1 || n > 1024)
            return reportFailure("--threads must be a whole number from 1 to 1024", 2);
        ownPool.emplace(static_cast<unsigned>(n));
    }
    options.executor = ownPool ? &*ownPool : &gguf::ParallelRows::shared();
    // --imatrix: llama-imatrix's GGUF output; the weights llama-quantize would use.
    std::optional<gguf::ImportanceWeights> importance;
    if (const auto imatrixPath = args.value("--imatrix")) {
        // Checked as every command that reads an imatrix checks it (values, shapes, this model).
        const auto matrix = loadImatrixForModelOrReport(*imatrixPath, *model);
        if (!matrix)
            return 1;
        auto loaded = gguf::ImportanceWeights::of(*matrix);
        if (!loaded)
            return reportFailure("cannot read the importance matrix: " + loaded.error().toString());
        importance = std::move(*loaded);
        options.importance = &*importance;
    }
    options.targetType = type->id;
    options.tensorPattern = args.value("--tensors").value_or("");
    const auto plan = gguf::convertModel(*model, args.positionals[1], options);
    if (!plan)
        return reportFailure(plan.error().toString());

    for (const std::string& warning : plan->warnings)
        std::fprintf(stderr, "gguf-explorer-cli: warning: %s\n", shown(warning).c_str());
    const auto summary = [modelOnStdout](const char* text) {
        if (modelOnStdout)
            std::fputs(text, stderr);
        else
            writeStdout(text);
    };
    if (!args.has("--quiet")) {
        char line[512];
        std::snprintf(line, sizeof line, "wrote %s: %zu of %zu tensors converted to %s, the others kept\n",
                      shown(args.positionals[1]).c_str(), plan->quantizedCount, plan->tensors.size(), type->name);
        summary(line);
        if (importance) {
            std::snprintf(line, sizeof line, "%zu of them with importance weights from %s\n", plan->weightedCount,
                          shown(importance->path()).c_str());
            summary(line);
        }
    }
    return 0;
}
