#pragma once
// Whole-file reads and writes for suites that check what a command left on disk.

#include <QByteArray>
#include <QFile>
#include <QString>

namespace testsupport {

// The file's bytes, or "<unreadable>" (never equal to real content the suites write).
inline QByteArray contentOf(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

inline bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

}  // namespace testsupport
