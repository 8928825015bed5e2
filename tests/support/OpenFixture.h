#pragma once
// Opening fixtures for the suites, in one place. A file that does not open records a failure of
// the running test (QTest::qFail, naming the file and the reader's error) and yields nullptr:
// callers QVERIFY the pointer, so one missing or broken file fails the tests that need it
// instead of aborting the whole suite.

#include "Fixtures.h"
#include "core/gguf/GgufFile.h"
#include "Manifest.h"
#include "core/gguf/Model.h"

#include <QString>
#include <QTest>
#include <memory>
#include <optional>

namespace testsupport {

namespace detail {
inline void failToOpen(const QString& path, const std::string& error)
{
    const QByteArray message = QStringLiteral("cannot open %1: %2").arg(path, QString::fromStdString(error)).toUtf8();
    QTest::qFail(message.constData(), __FILE__, __LINE__);
}
}  // namespace detail

// The model at `path` (any file, not only a fixture).
inline std::shared_ptr<const gguf::Model> openModelAt(const QString& path)
{
    auto model = gguf::Model::open(path.toStdString());
    if (!model) {
        detail::failToOpen(path, model.error().toString());
        return nullptr;
    }
    return *model;
}

// The fixture `name` (relative to the fixtures directory) as a model.
inline std::shared_ptr<const gguf::Model> openFixtureModel(const QString& name)
{
    return openModelAt(fixturePath(name));
}

// The fixture `name` as a single GGUF file.
inline std::shared_ptr<const gguf::GgufFile> openFixtureFile(const QString& name)
{
    const QString path = fixturePath(name);
    auto file = gguf::GgufFile::open(path.toStdString());
    if (!file) {
        detail::failToOpen(path, file.error().toString());
        return nullptr;
    }
    return *file;
}

// The manifest next to fixture `name` ("tiny-moe-Q4_K.gguf" -> "tiny-moe-Q4_K.gguf.json").
inline std::optional<Manifest> loadFixtureManifest(const QString& name)
{
    QString error;
    auto manifest = Manifest::load(fixturePath(name + QStringLiteral(".json")), &error);
    if (!manifest) {
        const QByteArray message = QStringLiteral("cannot load the manifest of %1: %2").arg(name, error).toUtf8();
        QTest::qFail(message.constData(), __FILE__, __LINE__);
    }
    return manifest;
}

}  // namespace testsupport
