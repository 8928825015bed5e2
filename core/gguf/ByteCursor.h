#pragma once
// The one bounds-checked reader of header bytes. Every read checks the bytes left first, so no
// field can make the parser read outside the file; multi-byte fields honour the file's byte order.
// With a PrefixSource, bytes become readable only as the cursor reaches them: MappedFile copies
// the header into private memory while it is parsed, so what is validated is what stays.

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gguf {

// Makes bytes [0, end) of the cursor's buffer readable, and returns how far they now are
// (less than `end` when it could not, e.g. a read error; the source keeps the reason).
class PrefixSource {
public:
    virtual std::uint64_t providePrefix(std::uint64_t end) = 0;
    // Bytes before `end` not provided yet will never be read through the cursor (a summary
    // open's elided array, see HeaderRetention): the source need not provide them. Returns how
    // far bytes are now provided or skipped.
    virtual std::uint64_t skipPrefix(std::uint64_t end) = 0;

protected:
    ~PrefixSource() = default;
};

class ByteCursor {
public:
    ByteCursor(const std::uint8_t* data, std::uint64_t size) : m_data(data), m_size(size), m_ready(size) {}
    ByteCursor(const std::uint8_t* data, std::uint64_t size, PrefixSource& source)
        : m_data(data), m_size(size), m_ready(0), m_source(&source)
    {
    }

    std::uint64_t position() const { return m_position; }
    std::uint64_t size() const { return m_size; }
    std::uint64_t remaining() const { return m_size - m_position; }
    bool bigEndian() const { return m_bigEndian; }
    void setBigEndian(bool bigEndian) { m_bigEndian = bigEndian; }

    bool seek(std::uint64_t position)
    {
        if (position > m_size)
            return false;
        m_position = position;
        return true;
    }

    bool skip(std::uint64_t count)
    {
        if (count > remaining() || !provide(m_position + count))
            return false;
        m_position += count;
        return true;
    }

    // Moves past `count` bytes that are never read through this cursor (checked elsewhere, and
    // not kept): the source is not asked to provide them.
    bool skipUnread(std::uint64_t count)
    {
        if (count > remaining())
            return false;
        m_position += count;
        if (m_source && m_position > m_ready)
            m_ready = m_source->skipPrefix(m_position);
        return true;
    }

    const std::uint8_t* data() const { return m_data; }

    // Points `out` at the next `count` bytes and moves past them.
    bool readBytes(std::uint64_t count, const std::uint8_t*& out)
    {
        if (count > remaining() || !provide(m_position + count))
            return false;
        out = m_data + m_position;
        m_position += count;
        return true;
    }

    bool readString(std::uint64_t length, std::string_view& out)
    {
        const std::uint8_t* bytes = nullptr;
        if (!readBytes(length, bytes))
            return false;
        out = std::string_view(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(length));
        return true;
    }

    template <typename T>
    bool read(T& out)
    {
        static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
        if (sizeof(T) > remaining() || !provide(m_position + sizeof(T)))
            return false;
        out = decode<T>(m_data + m_position, m_bigEndian);
        m_position += sizeof(T);
        return true;
    }

    // Decodes a value stored at `bytes` in the given byte order.
    template <typename T>
    static T decode(const std::uint8_t* bytes, bool bigEndian)
    {
        using Bits = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                     std::conditional_t<sizeof(T) == 2, std::uint16_t,
                     std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
        Bits bits;
        std::memcpy(&bits, bytes, sizeof(T));
        if (bigEndian)
            bits = byteSwap(bits);
        T value;
        std::memcpy(&value, &bits, sizeof(T));
        return value;
    }

    template <typename U>
    static U byteSwap(U value)
    {
        if constexpr (sizeof(U) == 1)
            return value;
        else if constexpr (sizeof(U) == 2)
            return static_cast<U>(__builtin_bswap16(value));
        else if constexpr (sizeof(U) == 4)
            return static_cast<U>(__builtin_bswap32(value));
        else
            return static_cast<U>(__builtin_bswap64(value));
    }

private:
    // Inline fast path: the source is asked only when the cursor passes what it already gave.
    bool provide(std::uint64_t end)
    {
        if (end <= m_ready)
            return true;
        m_ready = m_source->providePrefix(end);
        return end <= m_ready;
    }

    const std::uint8_t* m_data;
    std::uint64_t m_size;
    std::uint64_t m_ready;  // bytes [0, m_ready) may be read
    PrefixSource* m_source = nullptr;
    std::uint64_t m_position = 0;
    bool m_bigEndian = false;
};

}  // namespace gguf
