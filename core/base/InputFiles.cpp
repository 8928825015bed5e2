#include "core/base/InputFiles.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace gguf {

namespace {
struct NotedInput {
    dev_t device;
    ino_t inode;
    std::string name;
};

std::atomic<bool> g_tracking{false};

// Readers may run on worker threads, so the list is guarded.
std::mutex& inputsLock()
{
    static std::mutex lock;
    return lock;
}

std::vector<NotedInput>& inputs()
{
    static std::vector<NotedInput> list;
    return list;
}

void note(const struct stat& info, const std::string& name)
{
    if (!S_ISREG(info.st_mode))
        return;
    const std::lock_guard<std::mutex> guard(inputsLock());
    for (const NotedInput& input : inputs())
        if (input.device == info.st_dev && input.inode == info.st_ino)
            return;
    inputs().push_back({info.st_dev, info.st_ino, name});
}
}  // namespace

void trackInputFiles()
{
    g_tracking = true;
}

void noteInputFile(int fd, const std::string& name)
{
    struct stat info {};
    if (g_tracking && ::fstat(fd, &info) == 0)
        note(info, name);
}

void noteInputPath(const std::string& path)
{
    struct stat info {};
    if (g_tracking && ::stat(path.c_str(), &info) == 0)
        note(info, path);
}

std::optional<std::string> inputNamed(const struct stat& info)
{
    if (!g_tracking || !S_ISREG(info.st_mode))
        return std::nullopt;
    const std::lock_guard<std::mutex> guard(inputsLock());
    for (const NotedInput& input : inputs())
        if (input.device == info.st_dev && input.inode == info.st_ino)
            return input.name;
    return std::nullopt;
}

Status refuseInputAsOutput(const struct stat& info, const std::string& output)
{
    const auto input = inputNamed(info);
    if (!input)
        return Ok{};
    const std::string which = *input == output ? "an input" : "the input " + *input;
    return Error{"the output is " + which + " of this run; refusing to overwrite it", Error::kNoOffset, output};
}

}  // namespace gguf
