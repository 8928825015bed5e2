#include "core/base/EscapedText.h"

#include "core/base/Utf8.h"

#include <cstdio>

namespace gguf {

namespace {
bool isInvisibleFormatting(char32_t codePoint)
{
    return (codePoint >= 0x80 && codePoint <= 0x9F) || (codePoint >= 0x202A && codePoint <= 0x202E)
        || (codePoint >= 0x2066 && codePoint <= 0x2069);
}

std::string escape(std::string_view text, bool escapeBackslash)
{
    std::string out;
    out.reserve(text.size());
    forEachCodePoint(text, [&](char32_t codePoint, std::string_view bytes) {
        char escaped[16];
        switch (codePoint) {
        case '\n': out += "\\n"; return;
        case '\r': out += "\\r"; return;
        case '\t': out += "\\t"; return;
        case '\\': out += escapeBackslash ? "\\\\" : "\\"; return;
        default: break;
        }
        if (codePoint == kReplacementCharacter && bytes.size() == 1) {
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(bytes[0]));
            out += escaped;
        } else if (codePoint < 0x20 || codePoint == 0x7F) {
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(codePoint));
            out += escaped;
        } else if (isInvisibleFormatting(codePoint)) {
            std::snprintf(escaped, sizeof escaped, "\\u{%x}", static_cast<unsigned>(codePoint));
            out += escaped;
        } else {
            out += bytes;
        }
    });
    return out;
}

}  // namespace

std::string escapeForDisplay(std::string_view text)
{
    return escape(text, true);
}

std::string escapeMessage(std::string_view text)
{
    return escape(text, false);
}

}  // namespace gguf
