#include "core/gguf/ByteLevelText.h"

#include <array>
#include <cstdint>

namespace gguf {
namespace {

constexpr bool standsForItself(std::uint32_t byte)
{
    return (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
}

// The bytes that do not stand for themselves, in order: the one at position k is U+0100 + k.
constexpr std::array<std::uint8_t, 68> shiftedBytes()
{
    std::array<std::uint8_t, 68> bytes{};
    std::size_t next = 0;
    for (std::uint32_t byte = 0; byte < 256; ++byte)
        if (!standsForItself(byte))
            bytes[next++] = static_cast<std::uint8_t>(byte);
    return bytes;
}
constexpr std::array<std::uint8_t, 68> kShiftedBytes = shiftedBytes();
static_assert(kShiftedBytes[32] == ' ' && kShiftedBytes[10] == '\n', "Ġ is a space, Ċ a newline");

// Reads one code point of at most two bytes (the table ends at U+0143); false otherwise.
bool nextCodePoint(std::string_view text, std::size_t& at, std::uint32_t& codePoint)
{
    const auto lead = static_cast<unsigned char>(text[at]);
    if (lead < 0x80) {
        codePoint = lead;
        at += 1;
        return true;
    }
    if ((lead & 0xE0) != 0xC0 || at + 1 >= text.size())
        return false;
    const auto trail = static_cast<unsigned char>(text[at + 1]);
    if ((trail & 0xC0) != 0x80)
        return false;
    codePoint = ((lead & 0x1Fu) << 6) | (trail & 0x3Fu);
    at += 2;
    return codePoint >= 0x80;  // overlong forms are not UTF-8
}

}  // namespace

std::optional<std::string> decodeByteLevelToken(std::string_view token)
{
    std::string bytes;
    bytes.reserve(token.size());
    for (std::size_t at = 0; at < token.size();) {
        std::uint32_t codePoint = 0;
        if (!nextCodePoint(token, at, codePoint))
            return std::nullopt;
        if (standsForItself(codePoint))
            bytes.push_back(static_cast<char>(codePoint));
        else if (codePoint >= 0x100 && codePoint < 0x100 + kShiftedBytes.size())
            bytes.push_back(static_cast<char>(kShiftedBytes[codePoint - 0x100]));
        else
            return std::nullopt;
    }
    return bytes;
}

}  // namespace gguf
