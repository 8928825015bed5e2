#include "OrderedJson.h"

#include <QStringList>

namespace testsupport {

JsonNode::JsonNode() = default;
JsonNode::JsonNode(const JsonNode&) = default;
JsonNode::JsonNode(JsonNode&&) noexcept = default;
JsonNode& JsonNode::operator=(const JsonNode&) = default;
JsonNode& JsonNode::operator=(JsonNode&&) noexcept = default;
JsonNode::~JsonNode() = default;

namespace {

class Parser {
public:
    explicit Parser(const QByteArray& json) : m_json(json) {}

    std::optional<JsonNode> document(QString* error)
    {
        JsonNode node;
        if (value(node, 0)) {
            skipSpace();
            if (m_pos == m_json.size())
                return node;
            m_error = QStringLiteral("trailing characters");
        }
        if (error)
            *error = QStringLiteral("JSON error at byte %1: %2").arg(m_pos).arg(m_error);
        return std::nullopt;
    }

private:
    // Manifests nest a few levels; the cap only guards against a corrupt file.
    static constexpr int kMaxDepth = 64;

    bool fail(const char* message)
    {
        m_error = QString::fromLatin1(message);
        return false;
    }
    void skipSpace()
    {
        while (m_pos < m_json.size() && (m_json[m_pos] == ' ' || m_json[m_pos] == '\n' || m_json[m_pos] == '\r' || m_json[m_pos] == '\t'))
            ++m_pos;
    }
    bool literal(const char* word)
    {
        const QByteArray expected(word);
        if (m_json.mid(m_pos, expected.size()) != expected)
            return fail("unknown literal");
        m_pos += expected.size();
        return true;
    }

    bool value(JsonNode& node, int depth)
    {
        if (depth > kMaxDepth)
            return fail("nested too deeply");
        skipSpace();
        if (m_pos >= m_json.size())
            return fail("unexpected end");
        const char c = m_json[m_pos];
        if (c == '{')
            return object(node, depth);
        if (c == '[')
            return array(node, depth);
        if (c == '"') {
            node.kind = JsonNode::Kind::String;
            return string(node.text);
        }
        if (c == 't' || c == 'f') {
            node.kind = JsonNode::Kind::Bool;
            node.boolean = c == 't';
            return literal(node.boolean ? "true" : "false");
        }
        if (c == 'n') {
            node.kind = JsonNode::Kind::Null;
            return literal("null");
        }
        return number(node);
    }

    bool number(JsonNode& node)
    {
        const qsizetype start = m_pos;
        while (m_pos < m_json.size() && QByteArrayView("+-0123456789.eE").contains(m_json[m_pos]))
            ++m_pos;
        if (m_pos == start)
            return fail("expected a value");
        node.kind = JsonNode::Kind::Number;
        node.text = m_json.mid(start, m_pos - start);
        return true;
    }

    bool hex4(char32_t& out)
    {
        if (m_pos + 4 > m_json.size())
            return fail("short \\u escape");
        bool ok = false;
        out = m_json.mid(m_pos, 4).toUInt(&ok, 16);
        m_pos += 4;
        return ok || fail("bad \\u escape");
    }

    static void appendUtf8(QByteArray& out, char32_t cp)
    {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    bool string(QByteArray& out)
    {
        ++m_pos;  // opening quote
        out.clear();
        while (m_pos < m_json.size()) {
            const char c = m_json[m_pos++];
            if (c == '"')
                return true;
            if (c != '\\') {
                out += c;  // raw UTF-8 passes through byte for byte
                continue;
            }
            if (m_pos >= m_json.size())
                break;
            const char e = m_json[m_pos++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                char32_t cp = 0;
                if (!hex4(cp))
                    return false;
                if (cp >= 0xD800 && cp < 0xDC00) {
                    char32_t low = 0;
                    if (m_json.mid(m_pos, 2) != "\\u")
                        return fail("lone high surrogate");
                    m_pos += 2;
                    if (!hex4(low) || low < 0xDC00 || low >= 0xE000)
                        return fail("bad low surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    return fail("lone low surrogate");
                }
                appendUtf8(out, cp);
                break;
            }
            default:
                return fail("unknown escape");
            }
        }
        return fail("unterminated string");
    }

    bool array(JsonNode& node, int depth)
    {
        node.kind = JsonNode::Kind::Array;
        ++m_pos;
        skipSpace();
        if (m_pos < m_json.size() && m_json[m_pos] == ']') {
            ++m_pos;
            return true;
        }
        while (true) {
            node.items.emplace_back();
            if (!value(node.items.back(), depth + 1))
                return false;
            skipSpace();
            if (m_pos >= m_json.size())
                return fail("unterminated array");
            const char c = m_json[m_pos++];
            if (c == ']')
                return true;
            if (c != ',')
                return fail("expected , or ]");
        }
    }

    bool object(JsonNode& node, int depth)
    {
        node.kind = JsonNode::Kind::Object;
        ++m_pos;
        skipSpace();
        if (m_pos < m_json.size() && m_json[m_pos] == '}') {
            ++m_pos;
            return true;
        }
        while (true) {
            skipSpace();
            if (m_pos >= m_json.size() || m_json[m_pos] != '"')
                return fail("expected a member name");
            QByteArray key;
            if (!string(key))
                return false;
            skipSpace();
            if (m_pos >= m_json.size() || m_json[m_pos++] != ':')
                return fail("expected :");
            node.members.emplace_back(key, JsonNode{});
            if (!value(node.members.back().second, depth + 1))
                return false;
            skipSpace();
            if (m_pos >= m_json.size())
                return fail("unterminated object");
            const char c = m_json[m_pos++];
            if (c == '}')
                return true;
            if (c != ',')
                return fail("expected , or }");
        }
    }

    const QByteArray& m_json;
    qsizetype m_pos = 0;
    QString m_error;
};

}  // namespace

const JsonNode* JsonNode::member(const QByteArray& key) const
{
    for (const auto& [name, node] : members) {
        if (name == key)
            return &node;
    }
    return nullptr;
}

QString JsonNode::describe() const
{
    switch (kind) {
    case Kind::Null: return QStringLiteral("null");
    case Kind::Bool: return boolean ? QStringLiteral("true") : QStringLiteral("false");
    case Kind::Number: return QString::fromLatin1(text);
    case Kind::String: return QLatin1Char('"') + QString::fromUtf8(text) + QLatin1Char('"');
    case Kind::Array: {
        QStringList parts;
        for (const JsonNode& item : items)
            parts << item.describe();
        return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    case Kind::Object: return QStringLiteral("{...}");
    }
    return {};
}

std::optional<JsonNode> parseOrderedJson(const QByteArray& json, QString* error)
{
    return Parser(json).document(error);
}

}  // namespace testsupport
