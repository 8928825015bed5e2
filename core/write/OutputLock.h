#pragma once
// An exclusive claim on an output that one run rewrites many times (a scan's file, replaced
// after every probe): two runs writing one file by mistake would each replace the other's
// figures with their own, and both end well. The claim is flock(2) on "<output>.lock" beside the
// output (after the output's symlinks): not on the output itself, which every write replaces
// with a new file (a temp file renamed over it), so a lock on it would be lost at the first
// write. The kernel releases the lock when its holder dies, crash or SIGKILL included; the file
// is removed when the lock is released, and one left by a killed run is taken over.

#include "core/base/Result.h"

#include <string>

namespace gguf {

class OutputLock {
public:
    // Takes the lock at once or fails, naming the output, when another process (or another
    // OutputLock of this one) holds it. An output that is not a file in a folder (`-`, a device,
    // a FIFO, /dev/stdout) needs no lock and gets an empty one.
    static Result<OutputLock> acquire(const std::string& outputPath);

    OutputLock() = default;
    OutputLock(OutputLock&& other) noexcept;
    OutputLock& operator=(OutputLock&& other) noexcept;
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;
    ~OutputLock();

    const std::string& lockPath() const { return m_lockPath; }  // empty for an empty lock

    static std::string lockPathFor(const std::string& resolvedOutput) { return resolvedOutput + ".lock"; }

private:
    void release();

    int m_fd = -1;
    std::string m_lockPath;
};

}  // namespace gguf
