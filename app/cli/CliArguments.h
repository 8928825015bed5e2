#pragma once
// Command-line words split into positionals and options. Each command says which options take
// a value, so `-o -` and `--expert 3` parse without guessing.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

struct CliArguments {
    std::vector<std::string> positionals;
    std::map<std::string, std::string> options;  // "--json" -> "" for flags
    std::string error;                            // set when parsing failed

    static CliArguments parse(const std::vector<std::string>& words, const std::set<std::string>& valueOptions,
                              const std::set<std::string>& flagOptions);
    bool has(const std::string& name) const { return options.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
};

// Prints "gguf-explorer-cli: <message>" as one line on stderr and returns the exit status.
int reportFailure(const std::string& message, int status = 1);
