#pragma once
// The help texts, written from the command table: `gguf-explorer-cli --help` lists the
// commands, `gguf-explorer-cli COMMAND --help` one command's operands and options.

#include "CommandTable.h"

#include <cstdio>
#include <string>
#include <vector>

// "estimate FILE [--ctx N] [--json]": the operands, then every option not among them.
std::string synopsis(const CliCommand& command);
// "usage: " and the synopsis.
std::string usageLine(const CliCommand& command);

// Whether `words` ask for the command's help (--help or -h where an option may stand, not as
// the value of another option).
bool asksForHelp(const CliCommand& command, const std::vector<std::string>& words);

void printCommandList(std::FILE* stream);
void printCommandHelp(const CliCommand& command, std::FILE* stream);
