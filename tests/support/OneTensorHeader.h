#pragma once
// The header of a GGUF v3 file holding one 2-D tensor at data offset 0 and no metadata, padded to
// the default 32-byte alignment: the tests that need a large tensor write this and then extend the
// file (a hole reads back as zero blocks) instead of writing gigabytes.

#include <QByteArray>

#include <cstdint>

namespace testsupport {

inline QByteArray oneTensorHeader(const QByteArray& name, std::uint32_t typeId, std::uint64_t columns, std::uint64_t rows)
{
    QByteArray header;
    auto put = [&header](auto value) { header.append(reinterpret_cast<const char*>(&value), sizeof value); };
    header.append("GGUF", 4);
    put(std::uint32_t(3));
    put(std::uint64_t(1));  // tensors
    put(std::uint64_t(0));  // metadata keys
    put(std::uint64_t(name.size()));
    header.append(name);
    put(std::uint32_t(2));  // dimensions
    put(columns);
    put(rows);
    put(typeId);
    put(std::uint64_t(0));  // data offset
    while (header.size() % 32 != 0)
        header.append('\0');
    return header;
}

}  // namespace testsupport
