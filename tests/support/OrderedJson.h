#pragma once
// A minimal JSON reader for the one thing QJsonDocument cannot do: keep object members in file
// order and keep each number's source text. The manifests list metadata in file order, and
// their u64/i64 values (e.g. 18000000000000000000) do not survive a trip through double.

#include <QByteArray>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace testsupport {

struct JsonNode {
    enum class Kind { Null, Bool, Number, String, Array, Object };

    Kind kind = Kind::Null;
    bool boolean = false;
    QByteArray text;  // a number's source text, or a string's decoded UTF-8 bytes
    std::vector<JsonNode> items;                          // arrays
    std::vector<std::pair<QByteArray, JsonNode>> members;  // objects, in source order

    // Declared here and defaulted in the .cpp: implicit ones would make clang work out the
    // pair's special members while the pair, which holds a JsonNode, is still incomplete.
    JsonNode();
    JsonNode(const JsonNode&);
    JsonNode(JsonNode&&) noexcept;
    JsonNode& operator=(const JsonNode&);
    JsonNode& operator=(JsonNode&&) noexcept;
    ~JsonNode();

    const JsonNode* member(const QByteArray& key) const;
    // Compact description for failure messages, e.g. `[1, "a", {...}]`.
    QString describe() const;
};

// Parses a complete JSON document; on failure returns nullopt and sets `error`.
std::optional<JsonNode> parseOrderedJson(const QByteArray& json, QString* error);

}  // namespace testsupport
