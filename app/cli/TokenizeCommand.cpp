// tokenize MODEL (--text T | --text-file F) [--no-special]: the token ids the model's own
// tokenizer gives, space-separated on one line. By default as llama-tokenize: BOS/EOS as the
// file's add_*_token keys say, and text spelling a special token becomes that token; with
// --no-special neither (llama.cpp's tokenizer tests: add_special and parse_special false).
// The text is bounded by the tokenizer's kMaxTextBytes; running out of memory is one error line.

#include "Commands.h"
#include "ModelOpening.h"
#include "TextFile.h"
#include "core/tokenize/Tokenizer.h"

#include <cstdio>
#include <new>


int runTokenize(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "tokenize");
    if (!args.error.empty() || args.positionals.size() != 1 || args.has("--text") == args.has("--text-file"))
        return reportFailure(args.error.empty() ? commandUsage("tokenize") : args.error, 2);
    std::string text;
    if (const auto inline_ = args.value("--text"))
        text = *inline_;
    else if (!readTextFileOrReport(*args.value("--text-file"), text, gguf::Tokenizer::kMaxTextBytes))
        return 1;
    if (text.size() > gguf::Tokenizer::kMaxTextBytes)
        return reportFailure("--text holds more than " + std::to_string(gguf::Tokenizer::kMaxTextBytes >> 20) + " MiB of text");

    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    auto tokenizer = gguf::Tokenizer::fromModel(*model);
    if (!tokenizer)
        return reportFailure(tokenizer.error().toString());
    const bool special = !args.has("--no-special");
    std::string line;
    try {
        const std::vector<std::int32_t> ids = tokenizer.value().encode(text, special, special);
        if (!inputsUnchangedOrReport())
            return 1;
        line.reserve(ids.size() * 7);
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (i > 0)
                line += ' ';
            line += std::to_string(ids[i]);
        }
        line += '\n';
    } catch (const std::bad_alloc&) {
        return reportFailure("not enough memory to tokenize " + std::to_string(text.size()) + " bytes of text");
    }
    writeStdout(line);
    return 0;
}
