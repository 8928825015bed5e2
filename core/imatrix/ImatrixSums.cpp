#include "core/imatrix/ImatrixSums.h"

#include <algorithm>
#include <cmath>

namespace gguf {

std::int64_t ImatrixSums::lastChunk(std::int64_t chunkSize) const
{
    std::int64_t largest = 0;
    for (const auto& [name, entry] : entries)
        for (std::int64_t count : entry.counts)
            largest = std::max(largest, count);
    return chunkSize > 0 ? largest / chunkSize : 0;
}

namespace {

// Beyond any calibration run, and small enough that no sum of counts or ceiling of a count over
// a chunk overflows.
constexpr double kMostTokens = 1099511627776.0;  // 2^40

Error countError(const ImportanceEntry& entry, double count)
{
    return Error{"importance matrix entry '" + entry.name + "' has token count " + std::to_string(count)
                     + " (a count must be a whole number from 0 to 2^40)",
                 entry.countsOffset, {}};
}

}  // namespace

Result<ImatrixSums> sumsOf(const ImportanceMatrix& matrix, std::int64_t chunkSize)
{
    ImatrixSums sums;
    sums.datasets = matrix.datasets();
    for (const ImportanceEntry& stored : matrix.entries()) {
        ImatrixSumsEntry& entry = sums.entries[stored.name];
        if (stored.legacy) {
            if (stored.legacyCalls < 0)
                return countError(stored, stored.legacyCalls);
            // float times int32 in float, as llama-imatrix's `e.values[j] += sums[j] * chunk_size`.
            const float scale = static_cast<float>(chunkSize);
            entry.values.resize(stored.sums.size());
            for (std::size_t j = 0; j < stored.sums.size(); ++j)
                entry.values[j] = 0.0f + stored.sums[j] * scale;
            entry.counts.assign(1, static_cast<std::int64_t>(stored.legacyCalls) * chunkSize);
        } else {
            entry.values = stored.sums;
            entry.counts.resize(stored.counts.size());
            for (std::size_t j = 0; j < stored.counts.size(); ++j) {
                const double count = stored.counts[j];
                if (!(count >= 0.0 && count <= kMostTokens))
                    return countError(stored, count);
                entry.counts[j] = std::llround(count);
            }
        }
    }
    return sums;
}

}  // namespace gguf
