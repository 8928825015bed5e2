// logits: runs the model on token ids and writes the logits (and optionally the residual stream
// after every layer) as raw float32 little-endian, in the layout of llama.cpp's reference files.

#include "Commands.h"

#include "ActivationOption.h"
#include "app/threads/ParallelRows.h"
#include "ModelOpening.h"
#include "TokenInput.h"
#include "core/forward/ForwardPass.h"
#include "core/write/ByteSink.h"

#include <bit>
#include <cstdio>
#include <unistd.h>

namespace {


// Writes `values` to `path` through a temp file (renamed on success), never over an input.
bool writeFloatsOrReport(const std::string& path, const std::vector<float>& values)
{
    static_assert(std::endian::native == std::endian::little, "the files are little-endian float32");
    if (path == "-" && isatty(STDOUT_FILENO)) {
        reportFailure("refusing to write binary data to a terminal; use -o PATH or a pipe", 2);
        return false;
    }
    // Never into what this run reads (the model, the text file), whichever name leads there.
    auto sink = gguf::openOutputFile(path);
    if (!sink) {
        reportFailure(sink.error().toString(), 2);
        return false;
    }
    if (gguf::Status s = (*sink)->write(values.data(), values.size() * sizeof(float)); !s) {
        reportFailure(s.error().toString());
        return false;
    }
    if (gguf::Status s = (*sink)->commit(); !s) {
        reportFailure(s.error().toString());
        return false;
    }
    return true;
}

}  // namespace

int runLogits(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "logits");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("logits") : args.error, 2);
    const auto output = args.value("-o") ? args.value("-o") : args.value("--output");
    if (!output || (args.has("--tokens") == args.has("--text-file")))
        return reportFailure(commandUsage("logits"), 2);
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    const auto tokens = args.has("--tokens") ? parseTokenListOrReport(*args.value("--tokens"))
                                             : tokenizeTextFileOrReport(*model, *args.value("--text-file"));
    if (!tokens)
        return 2;

    gguf::ForwardOptions options;
    options.executor = &gguf::ParallelRows::shared();  // GGUFX_THREADS, or every core
    options.accumulateInDouble = args.has("--exact");
    options.accumulateWithBlas = args.has("--sgemm");
    const auto arithmetic = passArithmeticOrReport(args);
    if (!arithmetic)
        return 2;
    options.activations = arithmetic->activations;
    options.kvCache = arithmetic->kvCache;
    options.keepHiddenStates = args.has("--hidden");
    auto result = gguf::runForward(*model, *tokens, options);
    if (!result)
        return reportFailure(result.error().toString());
    if (!inputsUnchangedOrReport())
        return 1;
    if (!writeFloatsOrReport(*output, result->logits))
        return 1;
    if (const auto hidden = args.value("--hidden"); hidden && !writeFloatsOrReport(*hidden, result->hidden))
        return 1;
    // The files hold only floats: the arithmetic they were computed in goes to stderr.
    std::fprintf(stderr, "logits: %zu tokens, %s\n", tokens->size(), passArithmeticText(*arithmetic).c_str());
    return 0;
}
