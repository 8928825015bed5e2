#pragma once
// The CLI's commands and their options, one row each: dispatch (main.cpp), the option parser
// (CliArguments), `--help` and `COMMAND --help` (CommandHelp.cpp) all read this table, so an
// option the parser accepts is an option the help lists.

#include <span>
#include <string>
#include <string_view>
#include <vector>

struct CliOption {
    const char* name;           // "--ctx", "-o"
    const char* value;          // what follows it, "N"; nullptr for a flag
    const char* help;           // one line
    bool repeats = false;       // may be given several times (taken out of the words by the command)
};

struct CliCommand {
    const char* name;                      // "estimate"
    const char* operands;                  // "FILE|URL"; required options may be spelled here too
    const char* summary;                   // one line for the command list
    std::span<const CliOption> options;    // every option the command accepts
    int (*run)(const std::vector<std::string>& words);
    const char* details = nullptr;         // more lines for `COMMAND --help`, or nullptr
};

std::span<const CliCommand> cliCommands();
// The row named `name`, or nullptr.
const CliCommand* findCliCommand(std::string_view name);
// The row named `name`; a name missing from the table is a programming error and aborts.
const CliCommand& cliCommand(std::string_view name);
