#pragma once
// Where the shared fixtures live. Each test target is compiled with GGUFX_FIXTURES_DIR; the
// environment variable of the same name overrides it, so a build can be pointed at another copy.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QStringList>

#ifndef GGUFX_FIXTURES_DIR
#error "GGUFX_FIXTURES_DIR must be defined by the build"
#endif

namespace testsupport {

inline QString fixturesDir()
{
    const QByteArray fromEnvironment = qgetenv("GGUFX_FIXTURES_DIR");
    return QDir::cleanPath(fromEnvironment.isEmpty() ? QStringLiteral(GGUFX_FIXTURES_DIR) : QString::fromLocal8Bit(fromEnvironment));
}

inline QString fixturePath(const QString& relativePath)
{
    return QDir(fixturesDir()).filePath(relativePath);
}

// Names (not paths) of the files in `subdir` matching `pattern`, sorted, so data rows are stable.
inline QStringList fixtureNames(const QString& subdir, const QString& pattern)
{
    return QDir(fixturePath(subdir)).entryList({pattern}, QDir::Files, QDir::Name);
}

// The whole file, or an empty array when it cannot be read (callers compare sizes first).
inline QByteArray readWholeFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace testsupport
