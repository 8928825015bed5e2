#include "core/imatrix/ImportanceMatrix.h"

#include "core/gguf/GgufFile.h"
#include "core/gguf/MappedFile.h"
#include "core/imatrix/ImatrixReaders.h"
#include "core/remote/RemoteUrl.h"

#include <algorithm>
#include <cstring>

namespace gguf {

bool ImportanceEntry::bindColumns(std::int64_t columns)
{
    if (columns <= 0 || sums.size() % static_cast<std::size_t>(columns) != 0)
        return false;
    rowLength = columns;
    return true;
}

// The weight llama-quantize derives for value `index` of the entry.
// Legacy (load_legacy_imatrix): `v /= ncall` with an int ncall, i.e. a float division, skipped
// when ncall <= 0. GGUF (load_imatrix): sums / counts[row] per stored row; a row that saw no
// token (count not > 0) gets weight 1.
float ImportanceEntry::quantWeightAt(std::size_t index) const
{
    if (legacy)
        return legacyCalls > 0 ? sums[index] / static_cast<float>(legacyCalls) : sums[index];
    const float count = counts[index / static_cast<std::size_t>(storedColumns)];
    return count > 0.0f ? sums[index] / count : 1.0f;
}

std::vector<float> ImportanceEntry::allQuantWeights() const
{
    std::vector<float> values(sums.size());
    for (std::size_t i = 0; i < sums.size(); ++i)
        values[i] = quantWeightAt(i);
    return values;
}

std::vector<float> ImportanceEntry::quantWeights(std::size_t expert) const
{
    if (expert >= expertCount())
        return {};
    const auto columns = static_cast<std::size_t>(rowLength);
    std::vector<float> values(columns);
    for (std::size_t i = 0; i < columns; ++i)
        values[i] = quantWeightAt(expert * columns + i);
    return values;
}

std::vector<double> ImportanceEntry::tokensPerExpert() const
{
    if (legacy)
        return {};
    return std::vector<double>(counts.begin(), counts.end());
}

Result<ImportanceMatrix> ImportanceMatrix::load(const std::string& path)
{
    // Models open from URLs; a matrix is small and read whole, so it is downloaded first.
    if (remote::isRemoteName(path))
        return Error{"importance matrices are read from local files; download it first (gguf-explorer-cli download URL, or curl -O)",
                     Error::kNoOffset, path};
    auto mapped = MappedFile::open(path);
    if (!mapped)
        return mapped.error();
    std::shared_ptr<const MappedFile> file = std::move(mapped.value());
    ImportanceMatrix matrix;
    matrix.m_path = path;
    matrix.m_fileSize = file->size();
    const bool ggufMagic = file->size() >= 4
                        && (std::memcmp(file->data(), "GGUF", 4) == 0 || std::memcmp(file->data(), "FUGG", 4) == 0);
    if (ggufMagic) {
        auto parsed = GgufFile::parse(file);
        if (!parsed)
            return parsed.error();
        matrix.m_format = ImatrixFormat::Gguf;
        if (Status status = ImatrixGgufReader::read(**parsed, matrix); !status) {
            Error error = status.error();
            error.path = path;
            return error;
        }
    } else {
        matrix.m_format = ImatrixFormat::LegacyDat;
        if (Status status = ImatrixLegacyReader::read(file->data(), file->size(), matrix); !status) {
            Error error = status.error();
            error.path = path;
            return error;
        }
    }
    // Tensors that are all neither in_sum2 nor counts (or a legacy count of 0) leave nothing to
    // weigh with: no imatrix, whatever else the file holds.
    if (matrix.m_entries.empty())
        return Error{"the importance matrix holds no entries (no <weight>.in_sum2 with its <weight>.counts)", Error::kNoOffset, path};
    // Everything was copied out of the mapping; it must still be the file that was opened.
    if (Status unchanged = file->checkUnchanged(); !unchanged)
        return unchanged.error();
    return matrix;
}

const ImportanceEntry* ImportanceMatrix::find(std::string_view weightName) const
{
    const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), weightName,
                                     [](const ImportanceEntry& entry, std::string_view name) { return entry.name < name; });
    return it != m_entries.end() && it->name == weightName ? &*it : nullptr;
}

ImportanceEntry* ImportanceMatrix::find(std::string_view weightName)
{
    return const_cast<ImportanceEntry*>(static_cast<const ImportanceMatrix*>(this)->find(weightName));
}

}  // namespace gguf
