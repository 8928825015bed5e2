#include "MetadataComparison.h"

#include "SliceDigest.h"

#include <QJsonValue>

#include <algorithm>
#include <bit>
#include <charconv>

namespace testsupport {

namespace {

using gguf::MetadataValue;
using gguf::ValueType;

// The manifest's number text, parsed exactly; from_chars is also immune to the C locale that
// QCoreApplication installs from the environment.
template <typename T>
bool parseNumber(const QByteArray& text, T& out)
{
    const char* end = text.constData() + text.size();
    const auto [stop, error] = std::from_chars(text.constData(), end, out);
    return error == std::errc() && stop == end;
}

QString show(const MetadataValue& value)
{
    switch (value.type()) {
    case ValueType::U8: case ValueType::U16: case ValueType::U32: case ValueType::U64:
        return value.toUInt() ? QString::number(*value.toUInt()) : QStringLiteral("<unreadable>");
    case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64:
        return value.toInt() ? QString::number(*value.toInt()) : QStringLiteral("<unreadable>");
    case ValueType::F32: case ValueType::F64:
        return value.toDouble() ? QString::number(*value.toDouble(), 'g', 17) : QStringLiteral("<unreadable>");
    case ValueType::Bool:
        return value.toBool() ? (*value.toBool() ? QStringLiteral("true") : QStringLiteral("false")) : QStringLiteral("<unreadable>");
    case ValueType::String:
        return QLatin1Char('"') + QString::fromUtf8(value.toStringView().data(), static_cast<qsizetype>(value.toStringView().size())) + QLatin1Char('"');
    case ValueType::Array:
        return QStringLiteral("array of %1").arg(value.arrayLength());
    }
    return {};
}

class Comparer {
public:
    Comparer(bool bigEndian, QStringList& mismatches) : m_bigEndian(bigEndian), m_mismatches(mismatches) {}

    void compare(const MetadataValue& actual, const JsonNode& expected, const QString& where)
    {
        if (actual.type() == ValueType::Array) {
            compareArray(actual, expected, where);
            return;
        }
        if (!scalarMatches(actual, expected))
            m_mismatches << QStringLiteral("%1: file has %2, manifest has %3").arg(where, show(actual), expected.describe());
    }

private:
    bool scalarMatches(const MetadataValue& actual, const JsonNode& expected) const
    {
        switch (actual.type()) {
        case ValueType::U8: case ValueType::U16: case ValueType::U32: case ValueType::U64: {
            std::uint64_t want = 0;
            return expected.kind == JsonNode::Kind::Number && parseNumber(expected.text, want) && actual.toUInt() == want;
        }
        case ValueType::I8: case ValueType::I16: case ValueType::I32: case ValueType::I64: {
            std::int64_t want = 0;
            return expected.kind == JsonNode::Kind::Number && parseNumber(expected.text, want) && actual.toInt() == want;
        }
        case ValueType::F32: {
            // Printed with 9 significant digits: parsed as float it is the stored float exactly.
            float want = 0;
            const auto have = actual.toDouble();
            return expected.kind == JsonNode::Kind::Number && parseNumber(expected.text, want) && have
                && sameBits(static_cast<float>(*have), want);
        }
        case ValueType::F64: {
            double want = 0;
            const auto have = actual.toDouble();
            return expected.kind == JsonNode::Kind::Number && parseNumber(expected.text, want) && have
                && std::bit_cast<std::uint64_t>(*have) == std::bit_cast<std::uint64_t>(want);
        }
        case ValueType::Bool:
            return expected.kind == JsonNode::Kind::Bool && actual.toBool() == expected.boolean;
        case ValueType::String: {
            const std::string_view bytes = actual.toStringView();
            return expected.kind == JsonNode::Kind::String
                && QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())) == QByteArrayView(expected.text);
        }
        case ValueType::Array:
            break;
        }
        return false;
    }

    void compareArray(const MetadataValue& actual, const JsonNode& expected, const QString& where)
    {
        if (expected.kind == JsonNode::Kind::Array) {
            if (actual.arrayLength() != expected.items.size()) {
                m_mismatches << QStringLiteral("%1: file has %2 elements, manifest has %3").arg(where).arg(actual.arrayLength()).arg(expected.items.size());
                return;
            }
            for (std::size_t i = 0; i < expected.items.size(); ++i)
                compare(actual.element(i), expected.items[i], QStringLiteral("%1[%2]").arg(where).arg(i));
            return;
        }
        // Long arrays are summarised: {"length", "element_type", "first4", "sha256"}.
        const JsonNode* length = expected.member("length");
        const JsonNode* elementType = expected.member("element_type");
        const JsonNode* first4 = expected.member("first4");
        const JsonNode* sha256 = expected.member("sha256");
        if (expected.kind != JsonNode::Kind::Object || !length || !elementType || !first4 || !sha256) {
            m_mismatches << where + QStringLiteral(": file has an array, manifest has ") + expected.describe();
            return;
        }
        std::uint64_t wantLength = 0;
        if (!parseNumber(length->text, wantLength) || actual.arrayLength() != wantLength) {
            m_mismatches << QStringLiteral("%1: file has %2 elements, manifest has %3").arg(where).arg(actual.arrayLength()).arg(length->describe());
            return;
        }
        const QByteArray typeName = gguf::valueTypeName(actual.elementType());
        if (typeName != elementType->text)
            m_mismatches << QStringLiteral("%1: element type %2, manifest has %3").arg(where, QString::fromLatin1(typeName), elementType->describe());
        for (std::size_t i = 0; i < first4->items.size() && i < wantLength; ++i)
            compare(actual.element(i), first4->items[i], QStringLiteral("%1[%2]").arg(where).arg(i));
        const QByteArray payloadHash = sha256Hex(littleEndianArrayPayload(actual, m_bigEndian));
        if (payloadHash != sha256->text)
            m_mismatches << QStringLiteral("%1: payload sha256 %2, manifest has %3").arg(where, QString::fromLatin1(payloadHash), sha256->describe());
    }

    bool m_bigEndian;
    QStringList& m_mismatches;
};

template <typename T>
void appendLittleEndian(QByteArray& out, T value)
{
    for (std::size_t i = 0; i < sizeof(T); ++i)
        out += static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xFF);
}

}  // namespace

QByteArray littleEndianArrayPayload(const gguf::MetadataValue& array, bool bigEndian)
{
    QByteArray out;
    const std::uint32_t size = gguf::fixedValueSize(array.elementType());
    if (size > 0) {
        const auto* data = reinterpret_cast<const char*>(array.fixedElementsData());
        out = QByteArray(data, static_cast<qsizetype>(array.arrayLength() * size));
        if (bigEndian) {
            for (qsizetype at = 0; at < out.size(); at += size)
                std::reverse(out.begin() + at, out.begin() + at + size);
        }
        return out;
    }
    for (const std::uint64_t offset : array.elementOffsets()) {
        const MetadataValue element = array.elementAt(offset);
        if (element.type() == ValueType::String) {
            const std::string_view bytes = element.toStringView();
            appendLittleEndian<std::uint64_t>(out, bytes.size());
            out.append(bytes.data(), static_cast<qsizetype>(bytes.size()));
        } else {
            appendLittleEndian<std::uint32_t>(out, static_cast<std::uint32_t>(element.elementType()));
            appendLittleEndian<std::uint64_t>(out, element.arrayLength());
            out += littleEndianArrayPayload(element, bigEndian);
        }
    }
    return out;
}

QStringList compareMetadata(const gguf::GgufFile& file, const Manifest& manifest)
{
    QStringList mismatches;
    const auto& entries = file.metadata();
    const auto& expected = manifest.metadata.members;
    if (entries.size() != expected.size())
        mismatches << QStringLiteral("file has %1 metadata keys, manifest lists %2").arg(entries.size()).arg(expected.size());
    if (static_cast<qsizetype>(expected.size()) != manifest.metadataTypes.size())
        mismatches << QStringLiteral("manifest lists %1 metadata values but %2 metadata types").arg(expected.size()).arg(manifest.metadataTypes.size());

    Comparer comparer(file.bigEndian(), mismatches);
    const std::size_t common = std::min(entries.size(), expected.size());
    for (std::size_t i = 0; i < common; ++i) {
        const gguf::MetadataEntry& entry = entries[i];
        const QByteArray key(entry.key.data(), static_cast<qsizetype>(entry.key.size()));
        const auto& [expectedKey, expectedValue] = expected[i];
        if (key != expectedKey) {
            mismatches << QStringLiteral("metadata key %1 is '%2', manifest has '%3' there").arg(i).arg(QString::fromUtf8(key), QString::fromUtf8(expectedKey));
            continue;  // values of different keys say nothing
        }
        const QString where = QString::fromUtf8(key);
        const QString expectedType = manifest.metadataTypes.value(where).toString();
        const QString actualType = QString::fromStdString(entry.value.typeName());
        if (actualType != expectedType) {
            mismatches << QStringLiteral("%1: type %2, manifest has %3").arg(where, actualType, expectedType);
            continue;
        }
        comparer.compare(entry.value, expectedValue, where);
    }
    return mismatches;
}

}  // namespace testsupport
