// gguf-explorer-cli: the scriptable face of the core. Every failure is one line on stderr and a
// non-zero exit status. The commands, their options and their help come from one table
// (CommandTable.cpp).

#include "CliOutput.h"
#include "CommandHelp.h"
#include "CommandTable.h"
#include "Commands.h"
#include "ModelOpening.h"
#include "core/base/LargeBufferReuse.h"
#include "core/base/OpenFileLimit.h"

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    const std::vector<std::string> arguments(argv + 1, argv + argc);
    if (arguments.empty()) {
        printCommandList(stderr);
        return 2;
    }
    const std::string& first = arguments[0];
    if (first == "--help" || first == "-h" || first == "help") {
        // `help COMMAND` is `COMMAND --help`.
        if (arguments.size() > 1) {
            const CliCommand* command = findCliCommand(arguments[1]);
            if (!command)
                return reportFailure("unknown command '" + arguments[1] + "' (try --help)", 2);
            printCommandHelp(*command, stdout);
            return 0;
        }
        printCommandList(stdout);
        return 0;
    }
    const CliCommand* command = findCliCommand(first);
    if (!command)
        return reportFailure("unknown command '" + first + "' (try --help)", 2);
    const std::vector<std::string> words(arguments.begin() + 1, arguments.end());
    if (asksForHelp(*command, words)) {
        printCommandHelp(*command, stdout);
        return 0;
    }
    gguf::raiseOpenFileLimit();  // split models of more than 1,000 shards
    gguf::keepLargeBuffersForReuse();
    prepareCliOutputs();
    int status = 1;
    try {
        status = command->run(words);
    } catch (const std::bad_alloc&) {  // a size no check caught: one line, not an abort
        status = reportFailure("out of memory: the input needs more memory than this machine gives");
    } catch (const std::exception& error) {
        status = reportFailure(std::string("internal error: ") + error.what());
    }
    status = standardOutputChecked(status);
    // Whatever the command read, it read from files that must not have changed meanwhile: a
    // rewrite in place (same size) leaves no other trace. Commands that read tensor data check
    // before they print or commit; this covers the others.
    if ((status == 0 || status == 3) && !inputsVerified() && !inputsUnchangedOrReport())
        return 1;
    return status;
}
