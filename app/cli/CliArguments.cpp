#include "CliArguments.h"

#include "base/EscapedText.h"

#include <cstdio>

CliArguments CliArguments::parse(const std::vector<std::string>& words, const std::set<std::string>& valueOptions,
                                 const std::set<std::string>& flagOptions)
{
    CliArguments args;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word.size() > 1 && word[0] == '-') {
            if (valueOptions.count(word)) {
                if (i + 1 >= words.size()) {
                    args.error = "option " + word + " needs a value";
                    return args;
                }
                args.options[word] = words[++i];
            } else if (flagOptions.count(word)) {
                args.options[word] = "";
            } else {
                args.error = "unknown option " + word;
                return args;
            }
        } else {
            args.positionals.push_back(word);
        }
    }
    return args;
}

std::optional<std::string> CliArguments::value(const std::string& name) const
{
    const auto it = options.find(name);
    return it == options.end() ? std::nullopt : std::optional<std::string>(it->second);
}

int reportFailure(const std::string& message, int status)
{
    // Messages quote names, keys and paths from files: escaped, they stay one harmless line.
    const std::string line = gguf::escapeMessage(message);
    std::fprintf(stderr, "gguf-explorer-cli: %s\n", line.c_str());
    return status;
}
