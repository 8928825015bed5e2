#include "CommandHelp.h"

#include <algorithm>
#include <cstring>

namespace {

const char* const kProgram = "gguf-explorer-cli";

const char* const kInputNotes =
    "FILE may be any shard of a split model (name-00001-of-00003.gguf); all shards are opened.\n"
    "FILE may be an http(s) URL or hf://OWNER/REPO/FILE.gguf[@REV]; HF_TOKEN for gated models.\n";

// Whether `name` stands as a whole word (between spaces, brackets or bars) in `text`.
bool mentions(const char* text, const char* name)
{
    const std::size_t length = std::strlen(name);
    for (const char* at = std::strstr(text, name); at; at = std::strstr(at + 1, name)) {
        const bool startsWord = at == text || std::strchr(" (|[", at[-1]);
        const bool endsWord = at[length] == '\0' || std::strchr(" )|]", at[length]);
        if (startsWord && endsWord)
            return true;
    }
    return false;
}

std::string optionSpelling(const CliOption& option)
{
    return option.value ? std::string(option.name) + " " + option.value : std::string(option.name);
}

}  // namespace

std::string synopsis(const CliCommand& command)
{
    std::string line = std::string(command.name) + " " + command.operands;
    for (const CliOption& option : command.options) {
        if (mentions(command.operands, option.name))
            continue;
        line += " [" + optionSpelling(option) + "]" + (option.repeats ? "..." : "");
    }
    return line;
}

std::string usageLine(const CliCommand& command)
{
    return "usage: " + synopsis(command);
}

bool asksForHelp(const CliCommand& command, const std::vector<std::string>& words)
{
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "--help" || words[i] == "-h")
            return true;
        const auto option = std::find_if(command.options.begin(), command.options.end(),
                                         [&](const CliOption& o) { return words[i] == o.name; });
        if (option != command.options.end() && option->value)
            ++i;  // its value, whatever it looks like
    }
    return false;
}

void printCommandList(std::FILE* stream)
{
    std::fprintf(stream, "usage: %s COMMAND [ARGS]\n       %s COMMAND --help   (the command's options)\n\ncommands:\n", kProgram,
                 kProgram);
    std::size_t width = 0;
    for (const CliCommand& command : cliCommands())
        width = std::max(width, std::strlen(command.name));
    for (const CliCommand& command : cliCommands())
        std::fprintf(stream, "  %-*s  %s\n", int(width), command.name, command.summary);
    std::fprintf(stream, "\n%s", kInputNotes);
}

void printCommandHelp(const CliCommand& command, std::FILE* stream)
{
    std::fprintf(stream, "usage: %s %s\n\n%s\n", kProgram, synopsis(command).c_str(), command.summary);
    if (command.details)
        std::fprintf(stream, "%s\n", command.details);
    if (command.options.empty()) {
        std::fprintf(stream, "\noptions: none\n");
        return;
    }
    std::size_t width = 0;
    for (const CliOption& option : command.options)
        width = std::max(width, optionSpelling(option).size());
    std::fprintf(stream, "\noptions:\n");
    for (const CliOption& option : command.options)
        std::fprintf(stream, "  %-*s  %s%s\n", int(width), optionSpelling(option).c_str(), option.help,
                     option.repeats ? " (repeatable)" : "");
}
