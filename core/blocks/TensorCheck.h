#pragma once
// Integrity scan of one tensor's stored bytes, for `gguf-explorer-cli check`: a SHA-256 of the
// raw data (as stored, so two files can be compared tensor by tensor) and the blocks whose
// content no trained model produces.
//
// A block is damaged when
//   * float types (f32, f16, bf16, f64; a block is one element): the value is NaN or infinite;
//   * block-quantized types: any scale it stores or derives is NaN or infinite, or its magnitude
//     exceeds CheckOptions::maxScale ("absurd"). Checked are the stored super-block scales
//     (d, dmin, m, s, e) and the effective sub-block scales and mins the dequantizer multiplies
//     the quant levels by (see BlockScales.h). With finite, sane scales every dequantized value
//     of these types is finite, so the scales are the whole story.
// Integer types have no invalid bit patterns, and tensors of unknown types cannot be decoded:
// both are hashed but not scanned.
//
// The default maxScale of 1e6 is far above any real weight (weights of trained models stay well
// below 1e3, block scales below that divided by the largest level), so a clean model never trips
// it; an f16 scale can reach 65504, so only its derived sub-scales (65504 * 63 for Q4_K) can.

#include "core/base/Result.h"
#include "core/base/Sha256.h"
#include "core/gguf/TensorInfo.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

struct CheckOptions {
    double maxScale = 1e6;
    std::size_t maxListedBlocks = 1000;  // per tensor; all are counted
};

enum class CheckedContent { Values, Scales, Nothing };
enum class DamageKind { NonFiniteValue, NonFiniteScale, AbsurdScale };
const char* damageKindName(DamageKind kind);  // "non-finite value", "non-finite scale", "absurd scale"

struct DamagedBlock {
    std::uint64_t block = 0;       // in storage order over the whole tensor
    std::uint64_t fileOffset = 0;  // absolute byte offset of the block in the file holding the tensor
    DamageKind kind = DamageKind::NonFiniteValue;
    std::string field;  // the first offending field: "value", "d", "dmin", "scale[3]", "min[5]", ...
    double value = 0.0;
};

struct TensorCheckResult {
    const TensorInfo* tensor = nullptr;
    Sha256::Digest sha256{};  // of the tensor's stored bytes (nbytes of them); valid unless `error`
    CheckedContent checked = CheckedContent::Nothing;
    std::uint64_t blockCount = 0;
    std::uint64_t damagedBlockCount = 0;
    std::vector<DamagedBlock> damagedBlocks;  // the first CheckOptions::maxListedBlocks, in block order
    std::optional<Error> error;               // the bytes could not be read (the file changed on disk)

    bool damaged() const { return damagedBlockCount > 0; }
};

// Reads the tensor once, in chunks of whole blocks, hashing and scanning as it goes; memory stays
// at one chunk of scales. `cancelled`, when set, stops early with an error.
TensorCheckResult checkTensor(const TensorInfo& tensor, const CheckOptions& options = {}, const std::atomic<bool>* cancelled = nullptr);

}  // namespace gguf
