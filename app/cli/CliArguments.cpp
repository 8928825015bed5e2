#include "CliArguments.h"

#include "CommandHelp.h"
#include "CommandTable.h"
#include "core/base/EscapedText.h"

#include <cstdio>

namespace {

const CliOption* findOption(const CliCommand& command, const std::string& word)
{
    for (const CliOption& option : command.options)
        if (word == option.name)
            return &option;
    return nullptr;
}

}  // namespace

CliArguments CliArguments::parse(const std::vector<std::string>& words, std::string_view command)
{
    return parse(words, cliCommand(command));
}

CliArguments CliArguments::parse(const std::vector<std::string>& words, const CliCommand& command)
{
    CliArguments args;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word.size() > 1 && word[0] == '-') {
            const CliOption* option = findOption(command, word);
            if (!option) {
                args.error = "unknown option " + word + " (see: gguf-explorer-cli " + command.name + " --help)";
                return args;
            }
            if (!option->value) {
                args.options[word] = "";
            } else if (i + 1 >= words.size()) {
                args.error = "option " + word + " needs a value";
                return args;
            } else {
                args.options[word] = words[++i];
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

std::string commandUsage(std::string_view command)
{
    return usageLine(cliCommand(command)) + " (see: gguf-explorer-cli " + std::string(command) + " --help)";
}

int reportFailure(const std::string& message, int status)
{
    // Messages quote names, keys and paths from files: escaped, they stay one harmless line.
    const std::string line = gguf::escapeMessage(message);
    std::fprintf(stderr, "gguf-explorer-cli: %s\n", line.c_str());
    return status;
}
