#include "SliceDigest.h"

#include "core/gguf/Dequantize.h"

#include <QCryptographicHash>

#include <bit>
#include <cmath>

static_assert(std::endian::native == std::endian::little, "the digests hash floats as stored in memory, which must be little-endian");

namespace testsupport {

namespace {
// Small enough that a chunk boundary falls inside most tensors, so chunking is exercised too.
constexpr std::uint64_t kChunkElements = 1 << 16;
}

gguf::Result<SliceDigest> digestSlice(const gguf::TensorSlice& slice)
{
    SliceDigest digest;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::uint64_t expectedFirst = 0;
    bool inOrder = true;
    const gguf::Status status = gguf::forEachChunk(slice, kChunkElements, [&](std::span<const float> values, std::uint64_t first) {
        inOrder = inOrder && first == expectedFirst;
        expectedFirst = first + values.size();
        hash.addData(QByteArrayView(reinterpret_cast<const char*>(values.data()), static_cast<qsizetype>(values.size_bytes())));
        for (const float value : values) {
            digest.nanCount += std::isnan(value);
            digest.infCount += std::isinf(value);
            if (digest.first8.size() < 8)
                digest.first8.append(value);
        }
        digest.count += values.size();
        return true;
    });
    if (!status)
        return status.error();
    if (!inOrder)
        return gguf::Error{"forEachChunk delivered chunks out of order", gguf::Error::kNoOffset, {}};
    digest.sha256 = hash.result().toHex();
    return digest;
}

QByteArray sha256Hex(QByteArrayView bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

bool sameBits(float a, float b)
{
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

}  // namespace testsupport
