#pragma once
// A fixture manifest (`<file>.gguf.json`, see ../shared/fixtures/README.md) as plain values.
// Everything but the metadata comes from QJsonDocument; the metadata is kept as ordered JSON
// nodes because its order and its 64-bit integers matter.

#include "OrderedJson.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <cstdint>
#include <optional>

namespace testsupport {

struct ManifestExpert {
    std::uint64_t index = 0;
    QByteArray sha256;  // lowercase hex
    double mean = 0.0;
    double rms = 0.0;
};

struct ManifestTensor {
    QString name;
    QString type;  // ggml's name, e.g. "q4_K"
    std::uint32_t typeId = 0;
    QList<std::int64_t> ne;  // exactly the stored dims
    std::uint64_t offset = 0;  // relative to the data section
    std::uint64_t nbytes = 0;
    QByteArray sha256;  // of the dequantized f32 output, lowercase hex
    // Statistics over all values; the strings "nan", "inf", "-inf" become the matching doubles.
    double min = 0.0;
    double max = 0.0;
    double mean = 0.0;
    double rms = 0.0;
    QList<float> first8;
    QList<ManifestExpert> experts;
};

struct Manifest {
    QString manifestPath;
    QString file;  // the .gguf file's name
    std::uint64_t fileSize = 0;
    QByteArray fileSha256;  // of the whole .gguf, lowercase hex
    QString magic;
    QString byteOrder;  // "little" or "big"
    std::uint32_t version = 0;
    std::uint64_t alignment = 0;
    std::uint64_t dataOffset = 0;
    std::uint64_t kvCount = 0;
    std::uint64_t tensorCount = 0;
    JsonNode metadata;          // an object, members in file order
    QJsonObject metadataTypes;  // key -> "u32", "arr[str]", ...
    QList<ManifestTensor> tensors;

    QString filePath() const;  // the .gguf beside the manifest
    const ManifestTensor* findTensor(const QString& name) const;

    // Loads and checks the shape of a manifest; nullopt with `error` set when it is malformed.
    static std::optional<Manifest> load(const QString& manifestPath, QString* error);
};

}  // namespace testsupport
