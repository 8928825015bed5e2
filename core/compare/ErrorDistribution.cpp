#include "core/compare/ErrorDistribution.h"

#include "core/blocks/BlockScales.h"
#include "core/quantize/Quantize.h"

#include <algorithm>
#include <cmath>

namespace gguf {

Status addSignedErrors(const ModelComparison& comparison, std::size_t row, std::size_t column, ElementRange range, double limit,
                       std::span<std::uint64_t> counts)
{
    if (counts.empty() || !(limit > 0.0))
        return Error{"addSignedErrors: needs bins and a positive limit", Error::kNoOffset, {}};
    std::vector<float> reference(static_cast<std::size_t>(range.size()));
    std::vector<float> other(reference.size());
    if (Status s = comparison.reconstruct(row, column, range, reference, other); !s)
        return s;
    const double binsPerUnit = static_cast<double>(counts.size()) / (2.0 * limit);
    const auto lastBin = static_cast<std::ptrdiff_t>(counts.size()) - 1;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double error = static_cast<double>(other[i]) - static_cast<double>(reference[i]);
        if (!std::isfinite(error))
            continue;
        const auto bin = static_cast<std::ptrdiff_t>(std::floor((error + limit) * binsPerUnit));
        ++counts[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(bin, 0, lastBin))];
    }
    return Ok{};
}

namespace {

float blockScale(const BlockScales& scales, std::uint64_t block)
{
    const BlockScaleLayout& layout = scales.layout;
    if (layout.superScales > 0)
        return scales.superScales[block * layout.superScales];
    float largest = 0.0f;
    for (std::uint32_t s = 0; s < layout.subScales; ++s)
        largest = std::max(largest, std::fabs(scales.subScales[block * layout.subScales + s]));
    return largest;
}

}  // namespace

Status blockErrors(const ModelComparison& comparison, std::size_t row, std::size_t column, ElementRange range, BlockErrorPoints& out)
{
    const ComparisonCell& cell = comparison.rows()[row].cells[column];
    const TypeTraits* type = findType(cell.typeId);
    if (!cell.ok() || !type || !blockScaleLayout(cell.typeId))
        return Error{"this column's type " + typeName(cell.typeId) + " has no per-block scales", Error::kNoOffset, {}};
    if (range.begin % type->blockSize != 0 || range.end % type->blockSize != 0)
        return Error{"blockErrors: range is not aligned to " + std::string(type->name) + " blocks", Error::kNoOffset, {}};
    std::vector<float> reference(static_cast<std::size_t>(range.size()));
    std::vector<float> other(reference.size());
    if (Status s = comparison.reconstruct(row, column, range, reference, other); !s)
        return s;

    const std::uint64_t blockCount = range.size() / type->blockSize;
    BlockScales scales;
    const bool simulated = comparison.columns()[column].kind == ComparisonColumn::Kind::Simulated;
    if (!simulated) {
        if (Status s = extractBlockScales(*cell.tensor, range.begin / type->blockSize, blockCount, scales); !s)
            return s;
    } else {
        // The same bytes reconstruct() dequantized: quantize the reference range and read the
        // scales through a stand-in tensor over that buffer.
        std::vector<std::uint8_t> packed(static_cast<std::size_t>(quantizedSize(*type, range.size())));
        if (Status s = quantizeValues(type->id, reference, packed); !s)
            return s;
        TensorInfo stored;
        stored.name = "simulated";
        stored.nDims = 1;
        stored.ne = {static_cast<std::int64_t>(range.size()), 1, 1, 1};
        stored.typeId = type->id;
        stored.traits = type;
        stored.nbytes = packed.size();
        stored.data = packed.data();
        if (Status s = extractBlockScales(stored, 0, blockCount, scales); !s)
            return s;
    }

    out.blockSize = type->blockSize;
    out.typeId = type->id;
    out.scales.resize(blockCount);
    out.rmsError.resize(blockCount);
    for (std::uint64_t b = 0; b < blockCount; ++b) {
        double sum = 0.0;
        for (std::uint64_t i = b * type->blockSize; i < (b + 1) * type->blockSize; ++i) {
            const double error = static_cast<double>(other[i]) - static_cast<double>(reference[i]);
            sum += error * error;
        }
        out.scales[b] = blockScale(scales, b);
        out.rmsError[b] = static_cast<float>(std::sqrt(sum / type->blockSize));
    }
    return Ok{};
}

}  // namespace gguf
