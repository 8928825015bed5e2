#include "core/base/Sha256.h"
#include "core/base/Sha256RoundConstants.h"

#include <algorithm>
#include <cstring>

namespace gguf {

// Defined in Sha256Ni.cpp on x86-64 builds.
Sha256::BlockFunction sha256NiBlocksIfSupported();

namespace {

using sha256::kRoundConstants;

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void portableBlocks(std::uint32_t state[8], const std::uint8_t* blocks, std::size_t blockCount)
{
    for (; blockCount > 0; --blockCount, blocks += 64) {
        std::uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = std::uint32_t(blocks[4 * i]) << 24 | std::uint32_t(blocks[4 * i + 1]) << 16
                 | std::uint32_t(blocks[4 * i + 2]) << 8 | std::uint32_t(blocks[4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRoundConstants[i] + w[i];
            const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        state[0] += a, state[1] += b, state[2] += c, state[3] += d;
        state[4] += e, state[5] += f, state[6] += g, state[7] += h;
    }
}

Sha256::BlockFunction fastestBlocks()
{
    static const Sha256::BlockFunction chosen = [] {
        const Sha256::BlockFunction accelerated = Sha256::acceleratedBlocks();
        return accelerated ? accelerated : portableBlocks;
    }();
    return chosen;
}

}  // namespace

Sha256::BlockFunction Sha256::portableBlocks() { return gguf::portableBlocks; }
Sha256::BlockFunction Sha256::acceleratedBlocks() { return sha256NiBlocksIfSupported(); }

Sha256::Sha256()
    : m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      m_buffer{}, m_blocks(fastestBlocks())
{
}

void Sha256::update(std::span<const std::uint8_t> bytes)
{
    m_length += bytes.size();
    const std::uint8_t* p = bytes.data();
    std::size_t left = bytes.size();
    if (m_buffered > 0) {
        const std::size_t take = std::min(left, sizeof m_buffer - m_buffered);
        std::memcpy(m_buffer + m_buffered, p, take);
        m_buffered += take, p += take, left -= take;
        if (m_buffered < sizeof m_buffer)
            return;
        m_blocks(m_state, m_buffer, 1);
        m_buffered = 0;
    }
    if (left >= 64) {
        m_blocks(m_state, p, left / 64);
        p += left / 64 * 64;
        left %= 64;
    }
    if (left > 0)
        std::memcpy(m_buffer, p, left);
    m_buffered = left;
}

Sha256::Digest Sha256::finish()
{
    const std::uint64_t bits = m_length * 8;
    std::uint8_t tail[128] = {0x80};
    const std::size_t padding = (m_buffered < 56 ? 56 : 120) - m_buffered;
    for (int i = 0; i < 8; ++i)
        tail[padding + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
    update({tail, padding + 8});
    Digest digest;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 4; ++j)
            digest[static_cast<std::size_t>(4 * i + j)] = static_cast<std::uint8_t>(m_state[i] >> (24 - 8 * j));
    return digest;
}

Sha256::Digest Sha256::of(std::span<const std::uint8_t> bytes)
{
    Sha256 hash;
    hash.update(bytes);
    return hash.finish();
}

std::string Sha256::toHex(const Digest& digest)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(64);
    for (const std::uint8_t byte : digest) {
        hex += kDigits[byte >> 4];
        hex += kDigits[byte & 15];
    }
    return hex;
}

}  // namespace gguf
