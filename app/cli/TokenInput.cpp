#include "TokenInput.h"

#include "CliArguments.h"
#include "TextFile.h"
#include "core/tokenize/Tokenizer.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

std::optional<std::vector<std::int32_t>> parseTokenListOrReport(const std::string& text)
{
    std::vector<std::int32_t> ids;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find_first_of(", ", start), text.size());
        const std::string item = text.substr(start, end - start);
        start = end + 1;
        if (item.empty())
            continue;
        char* stop = nullptr;
        errno = 0;
        const long long value = std::strtoll(item.c_str(), &stop, 10);
        if (*stop != '\0' || errno == ERANGE || item[0] == '+' || value < 0 || value > std::numeric_limits<std::int32_t>::max()) {
            reportFailure("--tokens needs non-negative token ids separated by commas, not '" + item + "'", 2);
            return std::nullopt;
        }
        ids.push_back(static_cast<std::int32_t>(value));
    }
    if (ids.empty()) {
        reportFailure("--tokens lists no token ids", 2);
        return std::nullopt;
    }
    return ids;
}

std::optional<std::vector<std::int32_t>> tokenizeTextFileOrReport(const gguf::Model& model, const std::string& path, bool parseSpecial)
{
    std::string text;
    if (!readTextFileOrReport(path, text))
        return std::nullopt;
    auto tokenizer = gguf::Tokenizer::fromModel(model);
    if (!tokenizer) {
        reportFailure(tokenizer.error().toString());
        return std::nullopt;
    }
    // As llama-tokenize and llama-perplexity: BOS as the model asks, special-token text parsed.
    std::vector<std::int32_t> ids = tokenizer.value().encode(text, true, parseSpecial);
    if (ids.empty()) {
        reportFailure(path + " gives no tokens", 2);
        return std::nullopt;
    }
    return ids;
}
