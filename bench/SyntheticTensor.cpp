#include "SyntheticTensor.h"

#include "GgmlType.h"
#include "kernels/BlockLayouts.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>

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

// Scales of quantized blocks: d around 1e-3 (as in real weights), positive; mins likewise.
void fixQuantScales(const gguf::TypeTraits& type, std::uint8_t* block, Values& values)
{
    auto scale = [&] { return static_cast<float>(0.0005 + 0.002 * values.uniform()); };
    auto halves = [&](std::initializer_list<std::size_t> offsets) {
        for (const std::size_t offset : offsets)
            putHalf(block + offset, scale());
    };
    switch (type.id) {
    case 2: case 6: case 8: case 16: case 17: case 18: case 19: case 20: case 21: case 22: case 23: case 41: case 42:
        halves({0});  // q4_0 q5_0 q8_0 and the IQ types, q1_0, q2_0: f16 d first
        break;
    case 3: case 7: case 9: case 12: case 13:
        halves({0, 2});  // q4_1 q5_1 q8_1 q4_K q5_K: d and m / s / dmin
        break;
    case 10: halves({b::Q2_K::d, b::Q2_K::dmin}); break;
    case 11: halves({b::Q3_K::d}); break;
    case 14: halves({b::Q6_K::d}); break;
    case 34: halves({b::TQ1_0::d}); break;
    case 35: halves({b::TQ2_0::d}); break;
    case 15: {  // q8_K: f32 d
        const float d = scale();
        std::memcpy(block + b::Q8_K::d, &d, 4);
        break;
    }
    case 29: {  // iq1_m: the f16 scale lives in the top nibbles of the four u16 scales
        const std::uint16_t d = halfBits(scale());
        for (int k = 0; k < 4; ++k) {
            std::uint16_t word;
            std::memcpy(&word, block + b::IQ1_M::scales + 2 * k, 2);
            word = static_cast<std::uint16_t>((word & 0x0FFF) | (((d >> (4 * k)) & 0xF) << 12));
            std::memcpy(block + b::IQ1_M::scales + 2 * k, &word, 2);
        }
        break;
    }
    case 39: block[b::MXFP4::e] = static_cast<std::uint8_t>(117 + values.uniform() * 6); break;  // 2^-10 .. 2^-5
    case 40:
        for (std::size_t s = 0; s < 4; ++s)  // UE4M3 with exponents 1..6: 2^-6 .. 2^-1
            block[b::NVFP4::d + s] = static_cast<std::uint8_t>(0x08 + values.uniform() * 0x30);
        break;
    default: break;
    }
}

// Plain float types get Gaussian weights; integer types keep their random bits.
void fillPlain(const gguf::TypeTraits& type, std::uint8_t* data, std::uint64_t count, Values& values)
{
    for (std::uint64_t i = 0; i < count; ++i) {
        const double w = 0.02 * values.gaussian();
        if (type.id == 0) {
            const float f = static_cast<float>(w);
            std::memcpy(data + 4 * i, &f, 4);
        } else if (type.id == 1) {
            putHalf(data + 2 * i, static_cast<float>(w));
        } else if (type.id == 30) {
            const std::uint16_t top = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(w)) >> 16);
            std::memcpy(data + 2 * i, &top, 2);
        } else if (type.id == 28) {
            std::memcpy(data + 8 * i, &w, 8);
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
