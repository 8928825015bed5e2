#pragma once
// A copy of a fixture with chosen bytes of chosen blocks overwritten (NaN, Inf or absurd
// scales), and the table of such injections that the check tests share.

#include "core/gguf/GgufFile.h"
#include "core/blocks/TensorCheck.h"

#include <QFile>
#include <QList>
#include <QString>

namespace testsupport {

struct Injection {
    QString tensor;
    std::uint64_t block = 0;   // the damaged block, in storage order
    int byteInBlock = 0;       // where `bytes` go inside the block
    QByteArray bytes;          // stored bytes, in the file's byte order
    QString field;             // what `check` must name
    gguf::DamageKind kind = gguf::DamageKind::NonFiniteScale;
};

// Copies `source` to `target` and applies every injection; offsets come from the parsed source.
inline QString writeDamagedCopy(const QString& source, const QString& target, const QList<Injection>& injections)
{
    const auto file = gguf::GgufFile::open(source.toStdString());
    if (!file)
        return QString::fromStdString(file.error().toString());
    QFile::remove(target);
    if (!QFile::copy(source, target) || !QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return QStringLiteral("cannot copy ") + source;
    QFile out(target);
    if (!out.open(QIODevice::ReadWrite))
        return QStringLiteral("cannot write ") + target;
    for (const Injection& injection : injections) {
        const gguf::TensorInfo* tensor = (*file)->findTensor(injection.tensor.toStdString());
        if (!tensor || !tensor->traits)
            return QStringLiteral("no tensor ") + injection.tensor;
        const std::uint64_t offset = tensor->fileOffset + injection.block * tensor->traits->blockBytes + std::uint64_t(injection.byteInBlock);
        if (!out.seek(qint64(offset)) || out.write(injection.bytes) != injection.bytes.size())
            return QStringLiteral("cannot write at %1").arg(offset);
    }
    return {};
}

inline QByteArray bytesOf(std::initializer_list<unsigned char> list)
{
    QByteArray bytes;
    for (unsigned char b : list)
        bytes.append(char(b));
    return bytes;
}

// Damage for tiny-llama-Q4_K.gguf: every kind, in a quantized and a float tensor.
inline QList<Injection> tinyLlamaQ4KInjections()
{
    using K = gguf::DamageKind;
    return {
        {QStringLiteral("blk.0.attn_q.weight"), 5, 0, bytesOf({0x00, 0x7E}), QStringLiteral("d"), K::NonFiniteScale},      // f16 NaN
        {QStringLiteral("blk.0.attn_q.weight"), 77, 2, bytesOf({0x00, 0x7C}), QStringLiteral("dmin"), K::NonFiniteScale},  // f16 +Inf
        // d = 65504 (finite, f16's largest) with sub-block 0's 6-bit scale 63: 4.1e6 per level step.
        {QStringLiteral("blk.0.attn_q.weight"), 200, 0, bytesOf({0xFF, 0x7B, 0x00, 0x00, 0x3F}), QStringLiteral("scale[0]"), K::AbsurdScale},
        {QStringLiteral("blk.1.ffn_down.weight"), 0, 0, bytesOf({0x00, 0xFC}), QStringLiteral("d"), K::NonFiniteScale},    // f16 -Inf
        {QStringLiteral("blk.0.attn_norm.weight"), 7, 0, bytesOf({0x00, 0x00, 0xC0, 0x7F}), QStringLiteral("value"), K::NonFiniteValue},
        {QStringLiteral("blk.0.attn_norm.weight"), 100, 0, bytesOf({0x00, 0x00, 0x80, 0xFF}), QStringLiteral("value"), K::NonFiniteValue},
    };
}

}  // namespace testsupport
