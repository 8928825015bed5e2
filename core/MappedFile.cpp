#include "MappedFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gguf {

namespace {
Error systemError(const std::string& path, const char* what)
{
    return Error{std::string(what) + ": " + std::strerror(errno), Error::kNoOffset, path};
}
}  // namespace

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return systemError(path, "cannot open file");
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        Error error = systemError(path, "cannot stat file");
        ::close(fd);
        return error;
    }
    if (!S_ISREG(info.st_mode)) {
        ::close(fd);
        return Error{"not a regular file", Error::kNoOffset, path};
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const std::uint8_t* data = nullptr;
    if (size > 0) {
        void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapping == MAP_FAILED) {
            Error error = systemError(path, "cannot map file");
            ::close(fd);
            return error;
        }
        data = static_cast<const std::uint8_t*>(mapping);
    }
    // The mapping keeps the file alive; the descriptor is no longer needed.
    ::close(fd);
    return std::shared_ptr<MappedFile>(new MappedFile(path, data, size));
}

MappedFile::MappedFile(std::string path, const std::uint8_t* data, std::uint64_t size)
    : m_path(std::move(path)), m_data(data), m_size(size)
{
}

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
}

}  // namespace gguf
