#pragma once
// Small importance matrices in llama-imatrix's legacy .dat format, made by the suites that need a
// matrix of some other shape than the fixtures': i32 entry count; per entry the name's length and
// bytes, ncall, nval and nval f32 values; then the chunk trailer (last chunk, dataset name).

#include "FileBytes.h"

#include <QByteArray>
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <utility>
#include <vector>

namespace testsupport {

// Writes `dir`/`name` with an entry of `values` ones (ncall 1) per (tensor name, values); returns
// its path, or an empty string when it cannot be written.
inline QString writeLegacyImatrix(const QTemporaryDir& dir, const QString& name, const std::vector<std::pair<QByteArray, int>>& entries)
{
    QByteArray bytes;
    const auto i32 = [&bytes](std::int32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); };
    i32(static_cast<std::int32_t>(entries.size()));
    for (const auto& [tensor, values] : entries) {
        i32(static_cast<std::int32_t>(tensor.size()));
        bytes.append(tensor);
        i32(1);
        i32(values);
        for (int i = 0; i < values; ++i) {
            const float one = 1.0f;
            bytes.append(reinterpret_cast<const char*>(&one), 4);
        }
    }
    i32(10);
    i32(4);
    bytes.append("data");
    const QString path = dir.filePath(name);
    return writeFile(path, bytes) ? path : QString();
}

}  // namespace testsupport
