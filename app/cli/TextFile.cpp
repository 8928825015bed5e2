#include "TextFile.h"

#include "Commands.h"
#include "core/base/FileKind.h"
#include "core/base/InputFiles.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

// A text file may be a pipe or a device; past this it is refused rather than read into memory
// without end (/dev/zero).
constexpr std::size_t kMaxTextBytes = std::size_t(1) << 30;

bool readTextFileOrReport(const std::string& path, std::string& text, std::size_t maxBytes)
{
    if (maxBytes == 0)
        maxBytes = kMaxTextBytes;
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        reportFailure("cannot read " + path + ": " + std::strerror(errno));
        return false;
    }
    if (S_ISDIR(info.st_mode)) {
        reportFailure("cannot read " + path + ": " + gguf::nonRegularFileKind(info.st_mode, "not a regular file"));
        return false;
    }
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) {
        reportFailure("cannot read " + path + ": " + std::strerror(errno));
        return false;
    }
    gguf::noteInputFile(fileno(file), path);  // no output of this run may replace it
    char buffer[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        if (text.size() + got > maxBytes) {
            std::fclose(file);
            reportFailure(path + " holds more than " + std::to_string(maxBytes >> 20) + " MiB of text");
            return false;
        }
        text.append(buffer, got);
    }
    const bool failed = std::ferror(file) != 0;
    const int error = errno;
    std::fclose(file);
    if (failed) {
        reportFailure("cannot read " + path + ": " + std::strerror(error));
        return false;
    }
    return true;
}
