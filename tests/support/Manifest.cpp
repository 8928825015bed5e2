#include "Manifest.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace testsupport {

namespace {

// Field readers throw a message naming the field; load() turns it into its error. Throwing keeps
// the dozens of field reads below free of error plumbing, and never crosses the support API.
struct ManifestError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

QJsonValue field(const QJsonObject& object, const char* name)
{
    const QJsonValue value = object.value(QLatin1String(name));
    if (value.isUndefined())
        throw ManifestError(std::string("missing field '") + name + "'");
    return value;
}

// Sizes and offsets in the manifests stay far below 2^53, so a JSON double holds them exactly;
// anything else is rejected instead of silently rounded.
std::uint64_t unsignedField(const QJsonObject& object, const char* name)
{
    const QJsonValue value = field(object, name);
    const double number = value.toDouble(-1.0);
    if (!value.isDouble() || number < 0 || number > 9007199254740992.0 || std::floor(number) != number)
        throw ManifestError(std::string("field '") + name + "' is not a small non-negative integer");
    return static_cast<std::uint64_t>(number);
}

QString stringField(const QJsonObject& object, const char* name)
{
    const QJsonValue value = field(object, name);
    if (!value.isString())
        throw ManifestError(std::string("field '") + name + "' is not a string");
    return value.toString();
}

// A statistic: a number, or "nan" / "inf" / "-inf" where the value is not finite.
double statisticField(const QJsonObject& object, const char* name)
{
    const QJsonValue value = field(object, name);
    if (value.isDouble())
        return value.toDouble();
    const QString text = value.toString();
    if (text == QLatin1String("nan"))
        return std::numeric_limits<double>::quiet_NaN();
    if (text == QLatin1String("inf"))
        return std::numeric_limits<double>::infinity();
    if (text == QLatin1String("-inf"))
        return -std::numeric_limits<double>::infinity();
    throw ManifestError(std::string("statistic '") + name + "' is neither a number nor nan/inf/-inf");
}

ManifestTensor readTensor(const QJsonObject& object)
{
    ManifestTensor tensor;
    tensor.name = stringField(object, "name");
    tensor.type = stringField(object, "type");
    tensor.typeId = static_cast<std::uint32_t>(unsignedField(object, "type_id"));
    for (const QJsonValue dim : field(object, "ne").toArray()) {
        if (!dim.isDouble())
            throw ManifestError("a dim of tensor '" + tensor.name.toStdString() + "' is not a number");
        tensor.ne.append(static_cast<std::int64_t>(dim.toDouble()));
    }
    tensor.offset = unsignedField(object, "offset");
    tensor.nbytes = unsignedField(object, "nbytes");
    tensor.sha256 = stringField(object, "sha256_f32").toLatin1();
    tensor.min = statisticField(object, "min");
    tensor.max = statisticField(object, "max");
    tensor.mean = statisticField(object, "mean");
    tensor.rms = statisticField(object, "rms");
    // Printed with 9 significant digits, so double -> float gives back the exact float.
    for (const QJsonValue value : field(object, "first8").toArray())
        tensor.first8.append(static_cast<float>(value.toDouble()));
    for (const QJsonValue value : object.value(QLatin1String("experts")).toArray()) {
        const QJsonObject expert = value.toObject();
        tensor.experts.append(ManifestExpert{unsignedField(expert, "index"), stringField(expert, "sha256_f32").toLatin1(),
                                             statisticField(expert, "mean"), statisticField(expert, "rms")});
    }
    return tensor;
}

}  // namespace

QString Manifest::filePath() const
{
    return QFileInfo(manifestPath).dir().filePath(file);
}

const ManifestTensor* Manifest::findTensor(const QString& name) const
{
    for (const ManifestTensor& tensor : tensors) {
        if (tensor.name == name)
            return &tensor;
    }
    return nullptr;
}

std::optional<Manifest> Manifest::load(const QString& manifestPath, QString* error)
{
    QFile source(manifestPath);
    if (!source.open(QIODevice::ReadOnly)) {
        *error = manifestPath + QStringLiteral(": ") + source.errorString();
        return std::nullopt;
    }
    const QByteArray bytes = source.readAll();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (!document.isObject()) {
        *error = manifestPath + QStringLiteral(": ") + parseError.errorString();
        return std::nullopt;
    }
    QString orderedError;
    const std::optional<JsonNode> ordered = parseOrderedJson(bytes, &orderedError);
    if (!ordered) {
        *error = manifestPath + QStringLiteral(": ") + orderedError;
        return std::nullopt;
    }

    try {
        const QJsonObject root = document.object();
        Manifest manifest;
        manifest.manifestPath = manifestPath;
        manifest.file = stringField(root, "file");
        manifest.fileSize = unsignedField(root, "file_size");
        manifest.fileSha256 = stringField(root, "sha256_file").toLatin1();
        manifest.magic = stringField(root, "magic");
        manifest.byteOrder = stringField(root, "byte_order");
        manifest.version = static_cast<std::uint32_t>(unsignedField(root, "gguf_version"));
        manifest.alignment = unsignedField(root, "alignment");
        manifest.dataOffset = unsignedField(root, "data_offset");
        manifest.kvCount = unsignedField(root, "n_kv");
        manifest.tensorCount = unsignedField(root, "n_tensors");
        manifest.metadataTypes = field(root, "metadata_types").toObject();
        for (const QJsonValue tensor : field(root, "tensors").toArray())
            manifest.tensors.append(readTensor(tensor.toObject()));

        const JsonNode* metadata = ordered->member("metadata");
        if (!metadata || metadata->kind != JsonNode::Kind::Object)
            throw ManifestError("'metadata' is not an object");
        // Both readers must agree on the keys; otherwise the ordered reader is broken.
        if (metadata->members.size() != static_cast<std::size_t>(field(root, "metadata").toObject().size()))
            throw ManifestError("ordered and Qt JSON readers disagree on the metadata keys");
        manifest.metadata = *metadata;
        return manifest;
    } catch (const ManifestError& failure) {
        *error = manifestPath + QStringLiteral(": ") + QString::fromStdString(failure.what());
        return std::nullopt;
    }
}

}  // namespace testsupport
