#include "FuzzSupport.h"

#include <sys/mman.h>
#include <unistd.h>

namespace fuzz {

MemoryFile::MemoryFile(const char* name) : m_fd(::memfd_create(name, MFD_CLOEXEC))
{
    FUZZ_CHECK(m_fd >= 0);
    m_path = "/proc/self/fd/" + std::to_string(m_fd);
}

MemoryFile::~MemoryFile()
{
    ::close(m_fd);
}

const std::string& MemoryFile::write(const void* data, std::size_t size)
{
    FUZZ_CHECK(::ftruncate(m_fd, 0) == 0);
    const auto* bytes = static_cast<const char*>(data);
    for (std::size_t done = 0; done < size;) {
        const ssize_t written = ::pwrite(m_fd, bytes + done, size - done, static_cast<off_t>(done));
        FUZZ_CHECK(written > 0);
        done += static_cast<std::size_t>(written);
    }
    return m_path;
}

gguf::Status MemorySink::write(const void* data, std::size_t size)
{
    if (m_bytes.size() + size > m_cap)
        return gguf::Error{"output larger than the harness's cap", gguf::Error::kNoOffset, {}};
    m_bytes.append(static_cast<const char*>(data), size);
    return gguf::Ok{};
}

}  // namespace fuzz
