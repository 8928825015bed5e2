#include "core/edit/PayloadByteOrder.h"

#include <algorithm>

namespace gguf {

namespace {
constexpr int kMaxDepth = 1024;  // deeper than any file this reader accepts

class Swapper {
public:
    explicit Swapper(const std::string& in) : m_in(in) {}

    Status value(ValueType type, int depth)
    {
        if (depth > kMaxDepth)
            return fail();
        if (const std::uint32_t size = fixedValueSize(type))
            return swapped(size);
        if (type == ValueType::String) {
            std::uint64_t length = 0;
            if (Status s = number(length); !s)
                return s;
            return copied(length);
        }
        if (type != ValueType::Array)
            return fail();
        std::uint64_t elementType = 0;
        std::uint64_t count = 0;
        if (Status s = number32(elementType); !s)
            return s;
        if (Status s = number(count); !s)
            return s;
        if (!isValidValueType(static_cast<std::uint32_t>(elementType)))
            return fail();
        for (std::uint64_t i = 0; i < count; ++i)
            if (Status s = value(static_cast<ValueType>(elementType), depth + 1); !s)
                return s;
        return Ok{};
    }

    bool finished() const { return m_at == m_in.size(); }
    std::string take() { return std::move(m_out); }

private:
    Status swapped(std::size_t size)
    {
        if (m_in.size() - m_at < size)
            return fail();
        std::string piece = m_in.substr(m_at, size);
        std::reverse(piece.begin(), piece.end());
        m_out += piece;
        m_at += size;
        return Ok{};
    }
    Status number(std::uint64_t& value)  // a u64, read little-endian, written swapped
    {
        if (m_in.size() - m_at < 8)
            return fail();
        value = 0;
        for (int i = 7; i >= 0; --i)
            value = (value << 8) | static_cast<unsigned char>(m_in[m_at + static_cast<std::size_t>(i)]);
        return swapped(8);
    }
    Status number32(std::uint64_t& value)
    {
        if (m_in.size() - m_at < 4)
            return fail();
        value = 0;
        for (int i = 3; i >= 0; --i)
            value = (value << 8) | static_cast<unsigned char>(m_in[m_at + static_cast<std::size_t>(i)]);
        return swapped(4);
    }
    Status copied(std::uint64_t size)
    {
        if (m_in.size() - m_at < size)
            return fail();
        m_out.append(m_in, m_at, static_cast<std::size_t>(size));
        m_at += static_cast<std::size_t>(size);
        return Ok{};
    }
    static Error fail() { return Error{"an encoded metadata value is malformed", Error::kNoOffset, {}}; }

    const std::string& m_in;
    std::size_t m_at = 0;
    std::string m_out;
};
}  // namespace

Result<std::string> bigEndianPayload(ValueType type, const std::string& payload)
{
    Swapper swapper(payload);
    if (Status s = swapper.value(type, 0); !s)
        return s.error();
    if (!swapper.finished())
        return Error{"an encoded metadata value has bytes after its end", Error::kNoOffset, {}};
    return swapper.take();
}

}  // namespace gguf
