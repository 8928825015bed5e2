#include "CliOutput.h"

#include "CliArguments.h"
#include "core/base/InputFiles.h"
#include "core/write/ByteSink.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {
int g_standardOutputError = 0;
std::string g_refusal;  // why standard output was not written at all

void noticeOnStderr(const std::string& message)
{
    std::fprintf(stderr, "gguf-explorer-cli: %s\n", message.c_str());
}

// Standard output as a stdio stream whose first write checks where the bytes go: a report
// (`info M >> M`, `meta M --json 1<> M`) must not go into a file the command read, any more
// than an -o output may. Every printf, fputs and fwrite of every command passes here, so no
// command can forget it; the check runs once the command has read its inputs, at its first
// write. Written bytes go straight to descriptor 1, in the order stdio hands them over.
ssize_t writeStandardOutput(void*, const char* data, size_t size)
{
    static bool checked = false;
    if (!checked) {
        checked = true;
        struct stat info {};
        if (::fstat(STDOUT_FILENO, &info) == 0)
            if (gguf::Status s = gguf::refuseInputAsOutput(info, "standard output"); !s)
                g_refusal = s.error().toString();
    }
    if (!g_refusal.empty()) {
        errno = EPERM;
        return -1;
    }
    std::size_t done = 0;
    while (done < size) {
        const ssize_t written = ::write(STDOUT_FILENO, data + done, size - done);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            rememberStandardOutputError(written < 0 ? errno : EIO);
            return done > 0 ? static_cast<ssize_t>(done) : -1;
        }
        done += static_cast<std::size_t>(written);
    }
    return static_cast<ssize_t>(size);
}

void checkedStandardOutput()
{
    cookie_io_functions_t functions{};
    functions.write = writeStandardOutput;
    std::FILE* stream = ::fopencookie(nullptr, "w", functions);
    if (!stream)
        return;  // then stdout stays as it was; the check at the end still runs
    // As the C library buffers standard output: by line for a terminal, in blocks otherwise.
    std::setvbuf(stream, nullptr, ::isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    stdout = stream;
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
    checkedStandardOutput();
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
    if (!g_refusal.empty())
        return reportFailure(g_refusal);
    // A write that failed inside printf set the error flag and dropped its bytes; its errno is
    // known when a writer saw it, or when the final flush failed the same way.
    const int known = g_standardOutputError != 0 ? g_standardOutputError : (flushed ? 0 : error);
    const std::string why = known != 0 ? std::strerror(known) : "a write failed";
    return reportFailure("cannot write to standard output: " + why + "; the output is incomplete");
}
