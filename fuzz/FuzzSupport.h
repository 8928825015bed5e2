#pragma once
// Shared by the harnesses: fuzz bytes as a file the core can open (a memfd, so no disk I/O and
// nothing left behind), an in-memory ByteSink, and a check that fails loudly.

#include "core/write/ByteSink.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

// Harness invariants: a violation is a finding, reported like a crash.
#define FUZZ_CHECK(condition)                                                                    \
    do {                                                                                         \
        if (!(condition)) {                                                                      \
            std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
            std::abort();                                                                        \
        }                                                                                        \
    } while (0)

namespace fuzz {

// A memory-backed file whose /proc/self/fd path opens like any other file. Each write()
// replaces the whole content; files opened from the previous content must be closed first.
class MemoryFile {
public:
    explicit MemoryFile(const char* name);
    ~MemoryFile();
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    const std::string& write(const void* data, std::size_t size);  // returns the path

private:
    int m_fd = -1;
    std::string m_path;
};

// Collects everything written, up to a cap (a harness must not be killed for memory by an
// input that legitimately asks for a huge output).
class MemorySink final : public gguf::ByteSink {
public:
    explicit MemorySink(std::size_t cap) : m_cap(cap) {}
    gguf::Status write(const void* data, std::size_t size) override;
    gguf::Status commit() override { return gguf::Ok{}; }
    const std::string& bytes() const { return m_bytes; }

private:
    std::size_t m_cap;
    std::string m_bytes;
};

}  // namespace fuzz
