#pragma once
// What a path is when it is not a regular file, for messages that refuse it ("not a regular
// file (a FIFO)"): the reader's inputs and the writer's outputs say it the same way.

#include <sys/stat.h>

namespace gguf {

inline const char* nonRegularFileKind(mode_t mode, const char* otherwise)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return otherwise;
}

}  // namespace gguf
