#pragma once
// A file mapped read-only into memory. The mapping is never writable: nothing the user has is
// modified by opening it.

#include "Result.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace gguf {

class MappedFile {
public:
    static Result<std::shared_ptr<MappedFile>> open(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return m_path; }
    std::uint64_t size() const { return m_size; }
    const std::uint8_t* data() const { return m_data; }
    std::span<const std::uint8_t> bytes() const { return {m_data, static_cast<std::size_t>(m_size)}; }

private:
    MappedFile(std::string path, const std::uint8_t* data, std::uint64_t size);

    std::string m_path;
    const std::uint8_t* m_data = nullptr;
    std::uint64_t m_size = 0;
};

}  // namespace gguf
