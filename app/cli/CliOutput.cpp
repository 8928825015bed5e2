#include "CliOutput.h"

#include "CliArguments.h"
#include "base/InputFiles.h"
#include "write/ByteSink.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace {
void noticeOnStderr(const std::string& message)
{
    std::fprintf(stderr, "gguf-explorer-cli: %s\n", message.c_str());
}
}  // namespace

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
    // A write that failed inside printf set the error flag and dropped its bytes; its errno
    // is long gone, unless the final flush failed the same way.
    const std::string why = !flushed && error != 0 ? std::strerror(error) : "a write failed";
    return reportFailure("cannot write to standard output: " + why + "; the output is incomplete");
}
