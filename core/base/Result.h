#pragma once
// Errors are values in the core: bad file content never throws through the API and never aborts.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>

namespace gguf {

struct Error {
    static constexpr std::uint64_t kNoOffset = std::numeric_limits<std::uint64_t>::max();

    std::string message;               // what is wrong, naming the field, key or tensor
    std::uint64_t offset = kNoOffset;  // absolute byte offset in the file, when one applies
    std::string path;                  // the file, when one applies

    // "path: message (at byte N)" with the parts that are known.
    std::string toString() const
    {
        std::string text = path.empty() ? message : path + ": " + message;
        if (offset != kNoOffset)
            text += " (at byte " + std::to_string(offset) + ")";
        return text;
    }
};

// Holds either a value or an Error; a small stand-in for C++23 std::expected.
template <typename T>
class Result {
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_state); }
    const T& value() const& { return std::get<0>(m_state); }
    T&& value() && { return std::get<0>(std::move(m_state)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(m_state); }

private:
    std::variant<T, Error> m_state;
};

// For operations that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace gguf
