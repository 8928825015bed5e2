#include "ManifestModel.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace testsupport {

namespace {
// Written here rather than reusing the core's SplitName, so the test does not share its bugs.
const QRegularExpression& splitPattern()
{
    static const QRegularExpression pattern(QStringLiteral("-(\\d{5})-of-(\\d{5})\\.gguf$"));
    return pattern;
}
}  // namespace

bool isSplitShard(const QString& path)
{
    return splitPattern().match(path).hasMatch();
}

QString firstShardPath(const QString& path)
{
    const QRegularExpressionMatch match = splitPattern().match(path);
    if (!match.hasMatch())
        return path;
    QString first = path;
    first.replace(match.capturedStart(1), match.capturedLength(1), QStringLiteral("00001"));
    return first;
}

gguf::Result<ManifestModel> openManifestModel(const Manifest& manifest)
{
    auto opened = gguf::Model::open(firstShardPath(manifest.filePath()).toStdString());
    if (!opened)
        return opened.error();
    ManifestModel result;
    result.model = opened.value();
    const auto& shards = result.model->shards();
    for (std::uint32_t k = 0; k < shards.size(); ++k) {
        if (QFileInfo(QString::fromStdString(shards[k]->path())).fileName() == manifest.file) {
            result.shardIndex = k;
            result.file = shards[k].get();
        }
    }
    if (!result.file)
        return gguf::Error{"the opened model has no shard named " + manifest.file.toStdString(), gguf::Error::kNoOffset, {}};
    for (const gguf::TensorInfo& tensor : result.model->tensors()) {
        if (tensor.shard == result.shardIndex)
            result.tensors.push_back(&tensor);
    }
    return result;
}

}  // namespace testsupport
