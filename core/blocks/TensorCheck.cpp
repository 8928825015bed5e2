#include "core/blocks/TensorCheck.h"

#include "core/blocks/BlockScales.h"
#include "core/gguf/ByteCursor.h"
#include "core/gguf/TensorBytesRead.h"
#include "core/kernels/HalfFloat.h"

#include <algorithm>
#include <cmath>

namespace gguf {

namespace {

constexpr std::uint64_t kChunkBytes = 4u << 20;

bool isFloatType(std::uint32_t typeId)
{
    const TypeTraits* traits = findType(typeId);
    return traits && traits->kind == TypeKind::Float;
}

// One stored float element, decoded; only called for the float types (f32, f64, f16, bf16).
double decodeElement(const std::uint8_t* p, std::uint32_t typeId, bool bigEndian)
{
    switch (static_cast<GgmlTypeId>(typeId)) {
    case GgmlTypeId::F32: return ByteCursor::decode<float>(p, bigEndian);
    case GgmlTypeId::F64: return ByteCursor::decode<double>(p, bigEndian);
    case GgmlTypeId::F16: return f16ToF32(ByteCursor::decode<std::uint16_t>(p, bigEndian));
    default: return std::bit_cast<float>(std::uint32_t(ByteCursor::decode<std::uint16_t>(p, bigEndian)) << 16);
    }
}

class DamageList {
public:
    DamageList(TensorCheckResult& result, const CheckOptions& options) : m_result(result), m_options(options) {}

    void add(std::uint64_t block, DamageKind kind, std::string field, double value)
    {
        ++m_result.damagedBlockCount;
        if (m_result.damagedBlocks.size() < m_options.maxListedBlocks) {
            const std::uint64_t offset = m_result.tensor->fileOffset + block * m_result.tensor->traits->blockBytes;
            m_result.damagedBlocks.push_back({block, offset, kind, std::move(field), value});
        }
    }

    // Records the block if `value`, the scale named by `field`, is damaged; true if so.
    bool checkScale(std::uint64_t block, float value, const std::string& field)
    {
        if (!std::isfinite(value)) {
            add(block, DamageKind::NonFiniteScale, field, value);
            return true;
        }
        if (std::fabs(double(value)) > m_options.maxScale) {
            add(block, DamageKind::AbsurdScale, field, value);
            return true;
        }
        return false;
    }

private:
    TensorCheckResult& m_result;
    const CheckOptions& m_options;
};

void scanValues(const TensorInfo& tensor, const std::uint8_t* bytes, std::uint64_t firstBlock, std::uint64_t count, DamageList& damage)
{
    const std::uint32_t size = tensor.traits->blockBytes;
    for (std::uint64_t i = 0; i < count; ++i) {
        const double value = decodeElement(bytes + i * size, tensor.typeId, tensor.bigEndian);
        if (!std::isfinite(value))
            damage.add(firstBlock + i, DamageKind::NonFiniteValue, "value", value);
    }
}

Status scanScales(const TensorInfo& tensor, std::uint64_t firstBlock, std::uint64_t count, BlockScales& scales, DamageList& damage)
{
    if (Status s = extractBlockScales(tensor, firstBlock, count, scales); !s)
        return s;
    const BlockScaleLayout& layout = scales.layout;
    for (std::uint64_t b = 0; b < count; ++b) {
        const std::uint64_t block = firstBlock + b;
        bool found = false;
        for (std::uint32_t s = 0; s < layout.superScales && !found; ++s)
            found = damage.checkScale(block, scales.superScales[b * layout.superScales + s], layout.superScaleNames[s]);
        for (std::uint32_t j = 0; j < layout.subScales && !found; ++j)
            found = damage.checkScale(block, scales.subScales[b * layout.subScales + j], "scale[" + std::to_string(j) + "]");
        for (std::uint32_t j = 0; j < layout.subMins && !found; ++j)
            found = damage.checkScale(block, scales.subMins[b * layout.subMins + j], "min[" + std::to_string(j) + "]");
    }
    return Ok{};
}

Error cancelledError(const TensorInfo& tensor)
{
    return Error{"tensor '" + std::string(tensor.name) + "': check cancelled", Error::kNoOffset, {}};
}

}  // namespace

const char* damageKindName(DamageKind kind)
{
    switch (kind) {
    case DamageKind::NonFiniteValue: return "non-finite value";
    case DamageKind::NonFiniteScale: return "non-finite scale";
    case DamageKind::AbsurdScale: return "absurd scale";
    }
    return "?";
}

TensorCheckResult checkTensor(const TensorInfo& tensor, const CheckOptions& options, const std::atomic<bool>* cancelled)
{
    TensorCheckResult result;
    result.tensor = &tensor;
    Sha256 hash;
    if (!tensor.data || tensor.nbytes == 0) {
        result.sha256 = hash.finish();
        return result;
    }
    const bool checksValues = tensor.traits && isFloatType(tensor.typeId);
    const bool checksScales = tensor.traits && !checksValues && blockScaleLayout(tensor.typeId).has_value();
    result.checked = checksValues ? CheckedContent::Values : checksScales ? CheckedContent::Scales : CheckedContent::Nothing;
    // Chunks of whole blocks when blocks are known; unknown types are plain bytes.
    const std::uint64_t unit = tensor.traits ? tensor.traits->blockBytes : 1;
    const std::uint64_t units = tensor.nbytes / unit;
    result.blockCount = tensor.traits ? units : 0;
    const std::uint64_t perChunk = std::max<std::uint64_t>(1, kChunkBytes / unit);

    DamageList damage(result, options);
    BlockScales scales;
    for (std::uint64_t first = 0; first < units; first += perChunk) {
        if (cancelled && cancelled->load(std::memory_order_relaxed)) {
            result.error = cancelledError(tensor);
            return result;
        }
        const std::uint64_t count = std::min(perChunk, units - first);
        const std::uint8_t* bytes = tensor.data + first * unit;
        Status scanned = Ok{};
        if (Status read = readTensorBytes(tensor, bytes, count * unit,
                                          [&] {
                                              hash.update(bytes, static_cast<std::size_t>(count * unit));
                                              if (checksValues)
                                                  scanValues(tensor, bytes, first, count, damage);
                                              if (checksScales)
                                                  scanned = scanScales(tensor, first, count, scales, damage);
                                          });
            !read) {
            result.error = read.error();
            return result;
        }
        if (!scanned) {
            result.error = scanned.error();
            return result;
        }
    }
    result.sha256 = hash.finish();
    return result;
}

}  // namespace gguf
