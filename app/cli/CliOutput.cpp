#include "CliOutput.h"

#include "CliArguments.h"
#include "base/InputFiles.h"
#include "write/ByteSink.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace {
int g_standardOutputError = 0;

void noticeOnStderr(const std::string& message)
{
    std::fprintf(stderr, "gguf-explorer-cli: %s\n", message.c_str());
}
}  // namespace

void rememberStandardOutputError(int error)
{
    if (g_standardOutputError == 0)
        g_standardOutputError = error;
}

void prepareCliOutputs()
{
    gguf::trackInputFiles();
    gguf::setOutputNotice(noticeOnStderr);
}

int standardOutputChecked(int status)
{
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (flushed && !std::ferror(stdout))
        return status;
    if (status != 0 && status != 3)
        return status;
    // A write that failed inside printf set the error flag and dropped its bytes; its errno is
    // known when writeStdout saw it, or when the final flush failed the same way.
    const int known = g_standardOutputError != 0 ? g_standardOutputError : (flushed ? 0 : error);
    const std::string why = known != 0 ? std::strerror(known) : "a write failed";
    return reportFailure("cannot write to standard output: " + why + "; the output is incomplete");
}
