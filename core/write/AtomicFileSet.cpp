#include "core/write/AtomicFileSet.h"

#include "core/base/InputFiles.h"
#include "core/write/TempFileCleanup.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gguf {

namespace {
Error systemError(const std::string& what, const std::string& path)
{
    return Error{what + ": " + std::strerror(errno), Error::kNoOffset, path};
}

// A second name for the old target, so the rename over it does not lose it. Empty when the
// target does not exist; an error when it cannot be kept.
Result<std::string> keepOldTarget(const std::string& target)
{
    struct stat info {};
    if (::lstat(target.c_str(), &info) != 0)
        return std::string();
    const auto slash = target.find_last_of('/');
    const std::string folder = slash == std::string::npos ? std::string() : target.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
    thread_local std::mt19937 random{std::random_device{}()};
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string backup = folder + "." + base + ".old-" + std::to_string(random() % 1000000);
        if (::link(target.c_str(), backup.c_str()) == 0)
            return backup;
        if (errno != EEXIST)
            return systemError("cannot keep the old file while the new set is moved into place", target);
    }
    return systemError("cannot keep the old file while the new set is moved into place", target);
}

std::string folderOf(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? "." : path.substr(0, slash + 1);
}

void syncFolder(const std::string& folder)
{
    if (const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}
}  // namespace

Status commitTogether(std::span<AtomicFileSink* const> sinks)
{
    for (AtomicFileSink* sink : sinks)
        if (Status s = sink->prepare(); !s)
            return s;  // nothing renamed yet; the sinks remove their files
    for (AtomicFileSink* sink : sinks) {
        struct stat existing {};
        if (::stat(sink->targetPath().c_str(), &existing) == 0)
            if (Status s = refuseInputAsOutput(existing, sink->targetPath()); !s)
                return s;
    }

    const HeldInterrupts held;
    std::vector<std::string> backups;
    const auto dropBackups = [&] {
        for (const std::string& backup : backups)
            if (!backup.empty())
                ::unlink(backup.c_str());
    };
    for (AtomicFileSink* sink : sinks) {
        auto backup = keepOldTarget(sink->targetPath());
        if (!backup) {
            dropBackups();
            return backup.error();
        }
        backups.push_back(std::move(backup.value()));
    }
    for (std::size_t k = 0; k < sinks.size(); ++k) {
        if (::rename(sinks[k]->preparedPath().c_str(), sinks[k]->targetPath().c_str()) == 0)
            continue;
        Error error = systemError("cannot move the output into place; the files of the previous save are kept", sinks[k]->targetPath());
        for (std::size_t j = 0; j < k; ++j) {
            // The new file j is under the target's name now: the old one goes back over it,
            // or, where there was none, the new one goes.
            const bool restored = backups[j].empty() ? ::unlink(sinks[j]->targetPath().c_str()) == 0
                                                     : ::rename(backups[j].c_str(), sinks[j]->targetPath().c_str()) == 0;
            if (!restored)
                error.message += "; " + sinks[j]->targetPath() + " could not be put back (" + std::strerror(errno)
                               + (backups[j].empty() ? ")" : "), its old content is in " + backups[j]);
            else
                backups[j].clear();
            sinks[j]->markCommitted();  // its temp name is gone: nothing for its destructor
        }
        for (std::size_t j = k; j < backups.size(); ++j)
            if (!backups[j].empty())
                ::unlink(backups[j].c_str());
        return error;
    }
    for (AtomicFileSink* sink : sinks)
        sink->markCommitted();
    dropBackups();
    std::string synced;
    for (AtomicFileSink* sink : sinks)
        if (const std::string folder = folderOf(sink->targetPath()); folder != synced) {
            syncFolder(folder);
            synced = folder;
        }
    return Ok{};
}

}  // namespace gguf
