#pragma once
// Command-line words split into positionals and options. The options a command accepts, and
// which of them take a value, come from its row in the command table (CommandTable.cpp), so
// `-o -` and `--expert 3` parse without guessing and the help lists exactly what parses.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct CliCommand;

struct CliArguments {
    std::vector<std::string> positionals;
    std::map<std::string, std::string> options;  // "--json" -> "" for flags
    std::string error;                            // set when parsing failed

    // `command` names a row of the command table.
    static CliArguments parse(const std::vector<std::string>& words, std::string_view command);
    static CliArguments parse(const std::vector<std::string>& words, const CliCommand& command);
    bool has(const std::string& name) const { return options.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
};

// "usage: estimate FILE [--ctx N] ... (see: gguf-explorer-cli estimate --help)", one line
// from the command's row, for a usage error.
std::string commandUsage(std::string_view command);

// Prints "gguf-explorer-cli: <message>" as one line on stderr and returns the exit status.
int reportFailure(const std::string& message, int status = 1);
