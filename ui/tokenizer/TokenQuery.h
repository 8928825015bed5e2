#pragma once
// What a token search looks for. The table shows a token escaped (tokenDisplayText: `\n`, `\t`,
// `\\`, `\xHH`, `\u{hh}`), but a search matches the token's own text: a query is read with the
// same escapes, so `\n` finds the newline token and a plain "n" does not find it through its
// display. A regular expression has its own escapes and is matched as typed.

#include <QRegularExpression>
#include <QString>
#include <functional>
#include <string>
#include <string_view>

// The bytes `query` stands for: its display escapes replaced by what they show; a backslash
// before anything else stays a backslash.
std::string unescapeTokenQuery(const QString& query);

// A case-insensitive substring match of `query` (unescaped) against a token's bytes.
std::function<bool(std::string_view)> tokenSubstringMatcher(const QString& query);

// A match of `expression` against a token's bytes read as UTF-8.
std::function<bool(std::string_view)> tokenExpressionMatcher(const QRegularExpression& expression);
