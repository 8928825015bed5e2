#pragma once
// SHA-256 (FIPS 180-4), streaming. Small and dependency-free so the Qt-free core can fingerprint
// tensor data (`gguf-explorer-cli check`); verified against the NIST vectors in tst_sha256.
// On x86-64 CPUs with the SHA extensions the block function uses them (several times faster:
// a 400 GB model is hashed at disk speed); elsewhere a portable version runs.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace gguf {

class Sha256 {
public:
    using Digest = std::array<std::uint8_t, 32>;

    Sha256();
    void update(std::span<const std::uint8_t> bytes);
    void update(const void* data, std::size_t size) { update({static_cast<const std::uint8_t*>(data), size}); }
    // The digest of everything fed so far; the object must not be updated afterwards.
    Digest finish();

    static Digest of(std::span<const std::uint8_t> bytes);
    static std::string toHex(const Digest& digest);  // lowercase

    // Compresses `blockCount` 64-byte blocks into `state`, with the fastest implementation this
    // CPU runs; exposed so the test can compare both against each other.
    using BlockFunction = void (*)(std::uint32_t state[8], const std::uint8_t* blocks, std::size_t blockCount);
    static BlockFunction portableBlocks();
    static BlockFunction acceleratedBlocks();  // nullptr when the CPU (or build) lacks SHA extensions

private:
    std::uint32_t m_state[8];
    std::uint8_t m_buffer[64];
    std::size_t m_buffered = 0;
    std::uint64_t m_length = 0;  // bytes
    BlockFunction m_blocks;
};

}  // namespace gguf
