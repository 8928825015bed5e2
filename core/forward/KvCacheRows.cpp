#include "core/forward/KvCacheRows.h"

#include "core/kernels/BlockLayouts.h"
#include "core/kernels/Codebooks.h"
#include "core/kernels/HalfFloat.h"
#include "core/kernels/QuantizedDot.h"
#include "core/kernels/FloatEncode.h"
#include "core/quantize/Quantizers.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gguf {

namespace {

constexpr std::int64_t kBlock = 32;

float halfAt(const std::uint8_t* p)
{
    return f16ToF32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
}

// One stored block's integers, in element order, as ggml's AVX2 vec_dot unpacks them.
void unpackLevels(GgmlTypeId type, const std::uint8_t* block, std::int8_t* levels, float& scale, float& minimum)
{
    scale = halfAt(block);
    minimum = 0.0f;
    const auto nibbles = [&](std::size_t qs, int offset) {
        for (int j = 0; j < 16; ++j) {
            levels[j] = static_cast<std::int8_t>((block[qs + j] & 0xF) + offset);
            levels[j + 16] = static_cast<std::int8_t>((block[qs + j] >> 4) + offset);
        }
    };
    const auto highBits = [&](std::size_t qh) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, block + qh, sizeof bits);
        for (int j = 0; j < 32; ++j)
            levels[j] = static_cast<std::int8_t>(levels[j] + (((bits >> j) & 1u) << 4));
    };
    switch (type) {
    case GgmlTypeId::Q4_0:
        nibbles(blocks::Q4_0::qs, -8);
        break;
    case GgmlTypeId::Q4_1:
        minimum = halfAt(block + blocks::Q4_1::m);
        nibbles(blocks::Q4_1::qs, 0);
        break;
    case GgmlTypeId::Q5_0:
        nibbles(blocks::Q5_0::qs, 0);
        highBits(blocks::Q5_0::qh);
        for (int j = 0; j < 32; ++j)
            levels[j] = static_cast<std::int8_t>(levels[j] - 16);
        break;
    case GgmlTypeId::Q5_1:
        minimum = halfAt(block + blocks::Q5_1::m);
        nibbles(blocks::Q5_1::qs, 0);
        highBits(blocks::Q5_1::qh);
        break;
    case GgmlTypeId::IQ4_NL:
        for (int j = 0; j < 16; ++j) {
            levels[j] = codebooks::kvalues_iq4nl[block[blocks::IQ4_NL::qs + j] & 0xF];
            levels[j + 16] = codebooks::kvalues_iq4nl[block[blocks::IQ4_NL::qs + j] >> 4];
        }
        break;
    default:
        break;
    }
}

}  // namespace

CachedRows cacheRows(std::uint32_t type, const float* x, std::int64_t rows, std::int64_t width)
{
    CachedRows out;
    out.type = type;
    out.rows = rows;
    out.width = width;
    const auto count = static_cast<std::size_t>(rows * width);
    out.values.resize(count);
    const auto id = static_cast<GgmlTypeId>(type);
    if (id == GgmlTypeId::F32) {
        std::copy_n(x, count, out.values.begin());
        return out;
    }
    if (id == GgmlTypeId::F16 || id == GgmlTypeId::BF16) {
        for (std::size_t i = 0; i < count; ++i)
            out.values[i] = id == GgmlTypeId::F16 ? f16ToF32(quantize::f32ToF16Bits(x[i])) : bf16ToF32(quantize::f32ToBf16Bits(x[i]));
        return out;
    }
    const std::size_t blockCount = count / kBlock;
    out.levels.resize(count);
    out.scales.resize(blockCount);
    if (id == GgmlTypeId::Q8_0) {
        // ggml-cpu's from_float for q8_0 is its AVX2 quantize_row_q8_0, as for activations.
        Q8Activations q;
        quantizeActivations(Q8Kind::Q8_0, x, rows, width, q);
        out.levels = std::move(q.values);
        out.scales = std::move(q.scales);
        for (std::size_t i = 0; i < count; ++i)
            out.values[i] = static_cast<float>(out.levels[i]) * out.scales[i / kBlock];
        return out;
    }
    const TypeTraits& traits = traitsOf(id);
    std::vector<std::uint8_t> stored(blockCount * traits.blockBytes);
    if (id == GgmlTypeId::IQ4_NL) {
        for (std::int64_t r = 0; r < rows; ++r)
            quantize::quantizeRowIQ4_NLReference(x + r * width, stored.data() + static_cast<std::size_t>(r * width / kBlock) * traits.blockBytes,
                                                 width);
    } else {
        traits.quantize(x, stored.data(), blockCount);  // the reference quantizers ggml-cpu calls
    }
    traits.dequantize(stored.data(), out.values.data(), blockCount);
    if (id == GgmlTypeId::Q4_1 || id == GgmlTypeId::Q5_1)
        out.minimums.resize(blockCount);
    float unused = 0.0f;
    for (std::size_t b = 0; b < blockCount; ++b)
        unpackLevels(id, stored.data() + b * traits.blockBytes, out.levels.data() + b * kBlock, out.scales[b],
                     out.minimums.empty() ? unused : out.minimums[b]);
    return out;
}

void quantizeQuery(std::uint32_t keyType, const float* x, std::int64_t width, QuantizedQuery& out)
{
    Q8Activations q;
    quantizeActivations(Q8Kind::Q8_0, x, 1, width, q);  // q8_1 rounds as q8_0 does
    out.levels = std::move(q.values);
    out.scales = std::move(q.scales);
    out.sums.clear();
    const auto id = static_cast<GgmlTypeId>(keyType);
    if (id != GgmlTypeId::Q4_1 && id != GgmlTypeId::Q5_1)
        return;
    // s = f16(d * sum(q)) with d = amax / 127 before its f16 rounding.
    for (std::int64_t first = 0; first < width; first += kBlock) {
        float amax = 0.0f;
        int sum = 0;
        for (std::int64_t j = first; j < first + kBlock; ++j) {
            amax = std::max(amax, std::fabs(x[j]));
            sum += out.levels[static_cast<std::size_t>(j)];
        }
        out.sums.push_back(f16ToF32(quantize::f32ToF16Bits(amax / 127.0f * static_cast<float>(sum))));
    }
}

std::string cacheRowWidthProblem(std::uint32_t type, std::int64_t width, const char* what)
{
    const TypeTraits* traits = findType(type);
    if (!traits || traits->blockSize <= 1 || width % traits->blockSize == 0)
        return {};
    return std::string(what) + " cache type " + traits->name + " with block size " + std::to_string(traits->blockSize)
         + " does not divide the head size " + std::to_string(width) + " (llama.cpp refuses it too)";
}

}  // namespace gguf
