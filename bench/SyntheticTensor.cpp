#include "SyntheticTensor.h"

#include "core/blocks/BlockFields.h"
#include "core/types/GgmlType.h"
#include "core/kernels/BlockLayouts.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace bench {

namespace b = gguf::blocks;

void fillRandom(std::uint8_t* bytes, std::uint64_t count, std::uint64_t seed)
{
    std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    std::uint64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
        const std::uint64_t word = state * 0x2545F4914F6CDD1Dull;
        std::memcpy(bytes + i, &word, 8);
    }
    for (; i < count; ++i) {
        state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
        bytes[i] = static_cast<std::uint8_t>(state * 0x2545F4914F6CDD1Dull >> 56);
    }
}

namespace {

// A small generator for the scale fields (speed does not matter here).
class Values {
public:
    explicit Values(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ull + 7) {}
    double uniform()  // [0, 1)
    {
        m_state ^= m_state >> 12, m_state ^= m_state << 25, m_state ^= m_state >> 27;
        return static_cast<double>((m_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
    }
    // Roughly normal (Irwin-Hall: four uniforms, unit variance): plenty for test weights, and
    // far cheaper than Box-Muller when filling 16M values.
    double gaussian() { return (uniform() + uniform() + uniform() + uniform() - 2.0) * 1.7320508075688772; }

private:
    std::uint64_t m_state;
};

// Normal-range f32 -> f16 bits (truncating the mantissa is fine for test data).
std::uint16_t halfBits(float value)
{
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (bits >> 16) & 0x8000;
    const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
    if (exponent <= 0)
        return static_cast<std::uint16_t>(sign);
    return static_cast<std::uint16_t>(sign | (std::min(exponent, 30) << 10) | ((bits >> 13) & 0x3FF));
}

void putHalf(std::uint8_t* p, float value)
{
    const std::uint16_t h = halfBits(value);
    std::memcpy(p, &h, 2);
}

// Scales of quantized blocks: d around 1e-3 (as in real weights), positive; mins likewise. The
// float fields come from the core's block-field table, so every quantized type is covered.
void fixQuantScales(const gguf::TypeTraits& type, std::uint8_t* block, Values& values)
{
    auto scale = [&] { return static_cast<float>(0.0005 + 0.002 * values.uniform()); };
    for (const gguf::BlockField& field : gguf::blockFields(type.id)) {
        std::uint8_t* p = block + field.offset;
        switch (field.encoding) {
        case gguf::FieldEncoding::F16: putHalf(p, scale()); break;
        case gguf::FieldEncoding::F32: {
            const float d = scale();
            std::memcpy(p, &d, 4);
            break;
        }
        case gguf::FieldEncoding::E8M0: p[0] = static_cast<std::uint8_t>(117 + values.uniform() * 6); break;  // 2^-10 .. 2^-5
        case gguf::FieldEncoding::UE4M3x4:
            for (std::size_t s = 0; s < 4; ++s)  // UE4M3 with exponents 1..6: 2^-6 .. 2^-1
                p[s] = static_cast<std::uint8_t>(0x08 + values.uniform() * 0x30);
            break;
        case gguf::FieldEncoding::Packed: break;
        }
    }
    if (type.is(gguf::GgmlTypeId::IQ1_M)) {  // the f16 scale lives in the top nibbles of the four u16 scales
        const std::uint16_t d = halfBits(scale());
        for (int k = 0; k < 4; ++k) {
            std::uint16_t word;
            std::memcpy(&word, block + b::IQ1_M::scales + 2 * k, 2);
            word = static_cast<std::uint16_t>((word & 0x0FFF) | (((d >> (4 * k)) & 0xF) << 12));
            std::memcpy(block + b::IQ1_M::scales + 2 * k, &word, 2);
        }
    }
}

// Plain float types get Gaussian weights; integer types keep their random bits.
void fillPlain(const gguf::TypeTraits& type, std::uint8_t* data, std::uint64_t count, Values& values)
{
    using gguf::GgmlTypeId;
    for (std::uint64_t i = 0; i < count; ++i) {
        const double w = 0.02 * values.gaussian();
        switch (type.typeId()) {
        case GgmlTypeId::F32: {
            const float f = static_cast<float>(w);
            std::memcpy(data + 4 * i, &f, 4);
            break;
        }
        case GgmlTypeId::F16: putHalf(data + 2 * i, static_cast<float>(w)); break;
        case GgmlTypeId::BF16: {
            const std::uint16_t top = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(w)) >> 16);
            std::memcpy(data + 2 * i, &top, 2);
            break;
        }
        case GgmlTypeId::F64: std::memcpy(data + 8 * i, &w, 8); break;
        default: break;
        }
    }
}

}  // namespace

SyntheticTensor::SyntheticTensor(const gguf::TypeTraits& type, std::uint64_t rowLength, std::uint64_t rows, std::uint64_t seed)
    : m_name(std::string("bench.") + type.name)
{
    const std::uint64_t blocks = rowLength * rows / type.blockSize;
    const std::uint64_t bytes = blocks * type.blockBytes;
    m_data.reset(new std::uint8_t[bytes]);
    fillRandom(m_data.get(), bytes, seed);
    Values values(seed);
    if (type.kind == gguf::TypeKind::Quantized) {
        for (std::uint64_t i = 0; i < blocks; ++i)
            fixQuantScales(type, m_data.get() + i * type.blockBytes, values);
    } else if (type.kind == gguf::TypeKind::Float) {
        fillPlain(type, m_data.get(), blocks, values);
    }
    m_info.name = m_name;
    m_info.nDims = 2;
    m_info.ne = {static_cast<std::int64_t>(rowLength), static_cast<std::int64_t>(rows), 1, 1};
    m_info.typeId = type.id;
    m_info.traits = &type;
    m_info.nbytes = bytes;
    m_info.data = m_data.get();
}

}  // namespace bench
