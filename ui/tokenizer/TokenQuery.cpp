#include "ui/tokenizer/TokenQuery.h"

#include <QStringDecoder>

namespace {

QString fromUtf8(std::string_view bytes)
{
    return QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

bool isValidUtf8(std::string_view bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    (void)decoder.decode(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())));
    return !decoder.hasError();
}

void appendUtf8(std::string& out, char32_t codePoint)
{
    const QByteArray bytes = QString::fromUcs4(&codePoint, 1).toUtf8();
    out.append(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

int hexDigit(QChar c)
{
    return static_cast<int>(QStringLiteral("0123456789abcdef").indexOf(c.toLower()));
}

}  // namespace

std::string unescapeTokenQuery(const QString& query)
{
    std::string out;
    // Walk the query as text; the escapes are ASCII, everything else is copied as UTF-8.
    for (qsizetype i = 0; i < query.size(); ++i) {
        const QChar c = query[i];
        if (c != QLatin1Char('\\') || i + 1 >= query.size()) {
            const qsizetype width = c.isHighSurrogate() && i + 1 < query.size() ? 2 : 1;
            out += query.mid(i, width).toUtf8().toStdString();
            i += width - 1;
            continue;
        }
        const QChar next = query[i + 1];
        if (next == QLatin1Char('n') || next == QLatin1Char('t') || next == QLatin1Char('r') || next == QLatin1Char('\\')) {
            out += next == QLatin1Char('n') ? '\n' : next == QLatin1Char('t') ? '\t' : next == QLatin1Char('r') ? '\r' : '\\';
            ++i;
        } else if (next == QLatin1Char('x') && i + 3 < query.size() && hexDigit(query[i + 2]) >= 0 && hexDigit(query[i + 3]) >= 0) {
            out += static_cast<char>(hexDigit(query[i + 2]) * 16 + hexDigit(query[i + 3]));
            i += 3;
        } else if (next == QLatin1Char('u') && i + 2 < query.size() && query[i + 2] == QLatin1Char('{')) {
            const qsizetype close = query.indexOf(QLatin1Char('}'), i + 3);
            bool ok = false;
            const uint codePoint = close > i + 3 && close - (i + 3) <= 6 ? query.mid(i + 3, close - (i + 3)).toUInt(&ok, 16) : 0;
            if (ok && codePoint <= 0x10FFFF && !(codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
                appendUtf8(out, static_cast<char32_t>(codePoint));
                i = close;
            } else {
                out += '\\';
            }
        } else {
            out += '\\';
        }
    }
    return out;
}

std::function<bool(std::string_view)> tokenSubstringMatcher(const QString& query)
{
    const std::string needle = unescapeTokenQuery(query);
    // Case-insensitive where the query is text; a query with bytes that are not UTF-8 (`\xff`)
    // can only be matched byte for byte.
    if (!isValidUtf8(needle))
        return [needle](std::string_view text) { return text.find(needle) != std::string_view::npos; };
    const QString text = fromUtf8(needle);
    return [text](std::string_view token) { return fromUtf8(token).contains(text, Qt::CaseInsensitive); };
}

std::function<bool(std::string_view)> tokenExpressionMatcher(const QRegularExpression& expression)
{
    return [expression](std::string_view token) { return expression.match(fromUtf8(token)).hasMatch(); };
}
