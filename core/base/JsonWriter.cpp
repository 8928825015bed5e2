#include "core/base/JsonWriter.h"

#include "core/base/Utf8.h"

#include <cmath>
#include <cstdio>

namespace gguf {

void JsonWriter::separate()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_hasItems.empty()) {
        if (m_hasItems.back())
            m_out += ',';
        m_hasItems.back() = true;
    }
}

void JsonWriter::beginObject()
{
    separate();
    m_out += '{';
    m_hasItems.push_back(false);
}

void JsonWriter::endObject()
{
    m_hasItems.pop_back();
    m_out += '}';
}

void JsonWriter::beginArray()
{
    separate();
    m_out += '[';
    m_hasItems.push_back(false);
}

void JsonWriter::endArray()
{
    m_hasItems.pop_back();
    m_out += ']';
}

void JsonWriter::key(std::string_view name)
{
    separate();
    appendEscaped(m_out, name);
    m_out += ':';
    m_afterKey = true;
}

void JsonWriter::value(std::string_view text)
{
    separate();
    appendEscaped(m_out, text);
}

void JsonWriter::value(std::uint64_t number)
{
    separate();
    m_out += std::to_string(number);
}

void JsonWriter::value(std::int64_t number)
{
    separate();
    m_out += std::to_string(number);
}

std::string JsonWriter::numberText(double number)
{
    if (std::isnan(number))
        return "nan";
    if (std::isinf(number))
        return number > 0 ? "inf" : "-inf";
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", number);
    return text;
}

void JsonWriter::value(double number)
{
    if (!std::isfinite(number)) {
        value(std::string_view(numberText(number)));
        return;
    }
    separate();
    m_out += numberText(number);
}

void JsonWriter::value(bool flag)
{
    separate();
    m_out += flag ? "true" : "false";
}

void JsonWriter::null()
{
    separate();
    m_out += "null";
}

void JsonWriter::appendEscaped(std::string& out, std::string_view text)
{
    out += '"';
    forEachCodePoint(text, [&](char32_t codePoint, std::string_view bytes) {
        switch (codePoint) {
        case '"': out += "\\\""; return;
        case '\\': out += "\\\\"; return;
        case '\n': out += "\\n"; return;
        case '\r': out += "\\r"; return;
        case '\t': out += "\\t"; return;
        default: break;
        }
        if (codePoint < 0x20) {
            char escaped[16];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(codePoint));
            out += escaped;
        } else if (codePoint == kReplacementCharacter && bytes.size() == 1) {
            // A byte that is not UTF-8: the lone low surrogate U+DC00 + byte (see the header).
            char escaped[16];
            std::snprintf(escaped, sizeof escaped, "\\udc%02x", static_cast<unsigned char>(bytes[0]));
            out += escaped;
        } else {
            out += bytes;
        }
    });
    out += '"';
}

}  // namespace gguf
