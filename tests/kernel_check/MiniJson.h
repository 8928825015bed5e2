#pragma once
// Just enough JSON for reading the fixture manifests in kernel_check (not part of the product).
// Numbers keep their source text so 64-bit integers survive.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace minijson {

struct Value {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool boolean = false;
    std::string text;  // number source text or decoded string
    std::vector<Value> items;       // array elements or object member values
    std::vector<std::string> keys;  // object member names, parallel to `items`

    const Value* find(std::string_view key) const;
    const Value& at(std::string_view key) const;
    std::uint64_t asU64() const { return std::stoull(text); }
    const std::string& str() const { return text; }
};

inline const Value* Value::find(std::string_view key) const
{
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] == key) {
            return &items[i];
        }
    }
    return nullptr;
}

inline const Value& Value::at(std::string_view key) const
{
    if (const Value* v = find(key)) {
        return *v;
    }
    throw std::runtime_error("missing key " + std::string(key));
}

class Parser {
public:
    explicit Parser(std::string_view s) : m_s(s) {}

    Value parseDocument()
    {
        Value v = parseValue();
        skipSpace();
        if (m_pos != m_s.size()) {
            fail("trailing characters");
        }
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::runtime_error("json: " + what + " at " + std::to_string(m_pos));
    }
    void skipSpace()
    {
        while (m_pos < m_s.size() && (m_s[m_pos] == ' ' || m_s[m_pos] == '\n' || m_s[m_pos] == '\r' || m_s[m_pos] == '\t')) {
            ++m_pos;
        }
    }
    bool consume(std::string_view token)
    {
        if (m_s.substr(m_pos, token.size()) == token) {
            m_pos += token.size();
            return true;
        }
        return false;
    }
    Value parseValue()
    {
        skipSpace();
        if (m_pos >= m_s.size()) {
            fail("unexpected end");
        }
        Value v;
        const char c = m_s[m_pos];
        if (c == '{') {
            v.kind = Value::Kind::Object;
            ++m_pos;
            skipSpace();
            if (consume("}")) {
                return v;
            }
            for (;;) {
                skipSpace();
                std::string key = parseString();
                skipSpace();
                if (!consume(":")) {
                    fail("expected ':'");
                }
                v.keys.push_back(std::move(key));
                v.items.push_back(parseValue());
                skipSpace();
                if (consume("}")) {
                    return v;
                }
                if (!consume(",")) {
                    fail("expected ',' in object");
                }
            }
        }
        if (c == '[') {
            v.kind = Value::Kind::Array;
            ++m_pos;
            skipSpace();
            if (consume("]")) {
                return v;
            }
            for (;;) {
                v.items.push_back(parseValue());
                skipSpace();
                if (consume("]")) {
                    return v;
                }
                if (!consume(",")) {
                    fail("expected ',' in array");
                }
            }
        }
        if (c == '"') {
            v.kind = Value::Kind::String;
            v.text = parseString();
            return v;
        }
        if (consume("true")) {
            v.kind = Value::Kind::Bool;
            v.boolean = true;
            return v;
        }
        if (consume("false")) {
            v.kind = Value::Kind::Bool;
            return v;
        }
        if (consume("null")) {
            return v;
        }
        // Numbers, plus Python's NaN / Infinity spellings.
        const std::size_t start = m_pos;
        while (m_pos < m_s.size() && std::string_view("+-0123456789.eEaNIfinty").find(m_s[m_pos]) != std::string_view::npos) {
            ++m_pos;
        }
        if (start == m_pos) {
            fail("unexpected character");
        }
        v.kind = Value::Kind::Number;
        v.text = std::string(m_s.substr(start, m_pos - start));
        return v;
    }
    std::string parseString()
    {
        if (!consume("\"")) {
            fail("expected string");
        }
        std::string out;
        while (m_pos < m_s.size() && m_s[m_pos] != '"') {
            char c = m_s[m_pos++];
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_s.size()) {
                fail("bad escape");
            }
            c = m_s[m_pos++];
            switch (c) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                // Kept as UTF-8 for the BMP; surrogate pairs are not needed by kernel_check.
                const unsigned cp = std::stoul(std::string(m_s.substr(m_pos, 4)), nullptr, 16);
                m_pos += 4;
                if (cp < 0x80) {
                    out += char(cp);
                } else if (cp < 0x800) {
                    out += char(0xC0 | (cp >> 6));
                    out += char(0x80 | (cp & 0x3F));
                } else {
                    out += char(0xE0 | (cp >> 12));
                    out += char(0x80 | ((cp >> 6) & 0x3F));
                    out += char(0x80 | (cp & 0x3F));
                }
                break;
            }
            default: out += c; break;
            }
        }
        if (!consume("\"")) {
            fail("unterminated string");
        }
        return out;
    }

    std::string_view m_s;
    std::size_t m_pos = 0;
};

inline Value parse(std::string_view text)
{
    return Parser(text).parseDocument();
}

}  // namespace minijson
