#pragma once
// Streams a slice through the core's dequantizer into SHA-256, the way the manifests' sha256_f32
// was made (little-endian f32 in storage order), counting what the statistics must agree with.

#include "core/base/Result.h"
#include "core/gguf/TensorSlice.h"

#include <QByteArray>
#include <QList>

#include <cstdint>

namespace testsupport {

struct SliceDigest {
    QByteArray sha256;  // lowercase hex
    std::uint64_t count = 0;
    std::uint64_t nanCount = 0;
    std::uint64_t infCount = 0;
    QList<float> first8;
};

gguf::Result<SliceDigest> digestSlice(const gguf::TensorSlice& slice);

// Lowercase hex SHA-256 of `bytes`.
QByteArray sha256Hex(QByteArrayView bytes);

// True when two floats have the same bits (NaN payloads included).
bool sameBits(float a, float b);

}  // namespace testsupport
