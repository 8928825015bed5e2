#include "core/base/JsonReader.h"

#include "core/base/EscapedText.h"
#include "core/base/Utf8.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace gguf {

namespace {

constexpr std::size_t kSourceChunk = 64 * 1024;

bool isSpace(int c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Where a bare literal ends: JSON's structural characters, whitespace, a quote.
bool endsLiteral(int c)
{
    return c < 0 || isSpace(c) || c == ',' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool isJsonNumber(std::string_view s)
{
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t start = i;
        while (i < s.size() && isDigit(s[i]))
            ++i;
        return i > start;
    };
    if (i < s.size() && s[i] == '-')
        ++i;
    if (i < s.size() && s[i] == '0')
        ++i;
    else if (!digits())
        return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!digits())
            return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            ++i;
        if (!digits())
            return false;
    }
    return i == s.size();
}

}  // namespace

JsonReader::JsonReader(std::string_view text, std::string where, JsonReaderOptions options)
    : m_view(text), m_sourceDone(true), m_where(std::move(where)), m_options(options)
{
}

JsonReader::JsonReader(JsonByteSource source, std::string where, JsonReaderOptions options)
    : m_source(std::move(source)), m_buffer(kSourceChunk), m_where(std::move(where)), m_options(options)
{
}

Error JsonReader::errorAt(std::uint64_t offset, const std::string& what) const
{
    return Error{what, offset, m_where};
}

Error JsonReader::error(const std::string& what) const
{
    return errorAt(m_tokenStart, what);
}

bool JsonReader::refill()
{
    if (m_sourceDone || m_failure)
        return false;
    m_base += m_view.size();
    m_view = {};
    m_at = 0;
    auto got = m_source(m_buffer.data(), m_buffer.size());
    if (!got) {
        m_failure = got.error();
        return false;
    }
    if (*got > m_buffer.size()) {
        m_failure = errorAt(position(), "the input gave more bytes than were asked for");
        return false;
    }
    if (*got == 0) {
        m_sourceDone = true;
        return false;
    }
    m_view = std::string_view(m_buffer.data(), *got);
    return true;
}

int JsonReader::peek()
{
    if (m_at >= m_view.size() && !refill())
        return -1;
    return static_cast<unsigned char>(m_view[m_at]);
}

void JsonReader::skipSpace()
{
    while (isSpace(peek()))
        advance();
}

Result<JsonEvent> JsonReader::next()
{
    if (m_failure)
        return *m_failure;
    auto event = step();
    if (m_failure)  // a read error, which may have looked like the end of the input
        return *m_failure;
    if (!event)
        m_failure = event.error();
    else
        m_last = *event;
    return event;
}

Status JsonReader::skip()
{
    if (m_last == JsonEvent::Key) {
        auto event = next();
        if (!event)
            return event.error();
        if (*event != JsonEvent::BeginObject && *event != JsonEvent::BeginArray)
            return Ok{};
    } else if (m_last != JsonEvent::BeginObject && m_last != JsonEvent::BeginArray) {
        return Ok{};
    }
    const std::size_t outside = m_stack.size() - 1;
    while (m_stack.size() > outside)
        if (auto event = next(); !event)
            return event.error();
    return Ok{};
}

Result<JsonEvent> JsonReader::step()
{
    if (m_state == State::Finished)
        return JsonEvent::End;
    skipSpace();
    m_tokenStart = position();
    switch (m_state) {
    case State::AfterDocument:
        if (peek() >= 0)
            return fail("text after the end of the document");
        m_state = State::Finished;
        return JsonEvent::End;
    case State::AfterValue: {
        const bool inObject = m_stack.back() == 'o';
        const int c = peek();
        if (c == (inObject ? '}' : ']')) {
            advance();
            return close();
        }
        if (c != ',')
            return fail(c < 0 ? std::string("the document ends inside ") + (inObject ? "an object" : "an array")
                              : std::string("',' or '") + (inObject ? '}' : ']') + "' expected");
        advance();
        skipSpace();
        m_tokenStart = position();
        return inObject ? key() : value();
    }
    case State::FirstMember:
        if (peek() == '}') {
            advance();
            return close();
        }
        return key();
    case State::FirstItem:
        if (peek() == ']') {
            advance();
            return close();
        }
        return value();
    case State::Value:
    case State::Finished:
        break;
    }
    return value();
}

Result<JsonEvent> JsonReader::close()
{
    const bool object = m_stack.back() == 'o';
    m_stack.pop_back();
    return afterValue(object ? JsonEvent::EndObject : JsonEvent::EndArray);
}

JsonEvent JsonReader::afterValue(JsonEvent event)
{
    m_state = m_stack.empty() ? State::AfterDocument : State::AfterValue;
    return event;
}

Result<JsonEvent> JsonReader::key()
{
    if (peek() != '"')
        return fail("a key (a string in double quotes) expected");
    if (Status s = string(); !s)
        return s.error();
    skipSpace();
    if (peek() != ':')
        return fail("':' expected after the key");
    advance();
    m_state = State::Value;
    return JsonEvent::Key;
}

Result<JsonEvent> JsonReader::value()
{
    const int c = peek();
    if (c == '{' || c == '[') {
        if (m_stack.size() >= m_options.maxDepth)
            return fail("nesting deeper than " + std::to_string(m_options.maxDepth));
        advance();
        m_stack += c == '{' ? 'o' : 'a';
        m_state = c == '{' ? State::FirstMember : State::FirstItem;
        return c == '{' ? JsonEvent::BeginObject : JsonEvent::BeginArray;
    }
    if (c == '"') {
        if (Status s = string(); !s)
            return s.error();
        return afterValue(JsonEvent::String);
    }
    return literal();
}

Result<JsonEvent> JsonReader::literal()
{
    m_text.clear();
    for (int c = peek(); !endsLiteral(c); c = peek()) {
        if (m_text.size() == m_options.maxLiteralBytes)
            return errorAt(m_tokenStart, "a number or word longer than " + std::to_string(m_options.maxLiteralBytes) + " characters");
        m_text += static_cast<char>(c);
        advance();
    }
    if (m_text.empty())
        return fail(peek() < 0 ? "a value expected: the document ends here" : "a value expected");
    if (m_text == "true" || m_text == "false" || m_text == "null")
        return afterValue(m_text == "true" ? JsonEvent::True : m_text == "false" ? JsonEvent::False : JsonEvent::Null);
    if (isJsonNumber(m_text))
        return afterValue(JsonEvent::Number);
    if (m_options.lenient)
        return afterValue(JsonEvent::Word);
    return errorAt(m_tokenStart, "a value expected, not '" + escapeForDisplay(m_text) + "'");
}

Result<char32_t> JsonReader::hex4()
{
    char32_t value = 0;
    for (int i = 0; i < 4; ++i) {
        const int h = peek();
        value <<= 4;
        if (h >= '0' && h <= '9')
            value |= char32_t(h - '0');
        else if (h >= 'a' && h <= 'f')
            value |= char32_t(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            value |= char32_t(h - 'A' + 10);
        else
            return fail("\\u needs four hex digits");
        advance();
    }
    return value;
}

Status JsonReader::string()
{
    const std::uint64_t start = position();
    advance();  // the opening quote
    m_text.clear();
    const auto tooLong = [&] { return errorAt(start, "a string longer than " + std::to_string(m_options.maxStringBytes) + " bytes"); };
    for (;;) {
        if (m_text.size() > m_options.maxStringBytes)
            return tooLong();
        const int c = peek();
        if (c < 0)
            return errorAt(start, "a string without its closing '\"'");
        advance();
        if (c == '"')
            return m_text.size() > m_options.maxStringBytes ? Status(tooLong()) : Status(Ok{});
        if (c != '\\') {
            if (c < 0x20 && !m_options.lenient)
                return errorAt(position() - 1, "a control character inside a string (JSON writes it as an escape)");
            m_text += static_cast<char>(c);
            continue;
        }
        const int e = peek();
        switch (e) {
        case '"': case '\\': case '/': m_text += static_cast<char>(e); break;
        case 'b': m_text += '\b'; break;
        case 'f': m_text += '\f'; break;
        case 'n': m_text += '\n'; break;
        case 'r': m_text += '\r'; break;
        case 't': m_text += '\t'; break;
        case 'u': {
            advance();
            auto unit = hex4();
            if (!unit)
                return unit.error();
            char32_t codePoint = *unit;
            if (codePoint >= 0xDC80 && codePoint <= 0xDCFF) {
                m_text += static_cast<char>(codePoint - 0xDC00);  // a raw byte (JsonWriter's escape)
                continue;
            }
            if (codePoint >= 0xD800 && codePoint <= 0xDBFF) {
                if (peek() != '\\')
                    return fail("a high surrogate not followed by a low one");
                advance();
                if (peek() != 'u')
                    return fail("a high surrogate not followed by a low one");
                advance();
                auto low = hex4();
                if (!low)
                    return low.error();
                if (*low < 0xDC00 || *low > 0xDFFF)
                    return fail("a high surrogate not followed by a low one");
                codePoint = 0x10000 + ((codePoint - 0xD800) << 10) + (*low - 0xDC00);
            } else if (codePoint >= 0xDC00 && codePoint <= 0xDFFF) {
                return errorAt(position() - 6, "a lone low surrogate");
            }
            appendUtf8(m_text, codePoint);
            continue;
        }
        default:
            return fail(e < 0 ? std::string("a string without its closing '\"'") : "an unknown escape \\" + escapeForDisplay(std::string(1, char(e))));
        }
        advance();
    }
}

Result<double> JsonReader::number() const
{
    double value = 0.0;
    const char* end = m_text.data() + m_text.size();
    const auto [ptr, ec] = std::from_chars(m_text.data(), end, value);
    if (ec == std::errc() && ptr == end)
        return value;
    if (ec == std::errc::result_out_of_range) {
        // from_chars leaves `value` alone then; strtod tells an overflow (HUGE_VAL) from an
        // underflow (a subnormal or 0), which is a number like any other.
        value = std::strtod(m_text.c_str(), nullptr);
        if (std::isfinite(value))
            return value;
    }
    return error("the number " + escapeForDisplay(m_text) + " is out of range");
}

}  // namespace gguf
