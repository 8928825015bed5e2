#include "ImatrixWeights.h"

#include "core/gguf/GgufFile.h"
#include "core/types/GgmlType.h"

#include <cstring>

namespace testsupport {

namespace {
std::vector<float> floatsOf(const gguf::TensorInfo& tensor)
{
    std::vector<float> values(static_cast<std::size_t>(tensor.elementCount()));
    std::memcpy(values.data(), tensor.data, values.size() * sizeof(float));  // the fixtures are little-endian
    return values;
}
}  // namespace

std::optional<ImatrixWeights> ImatrixWeights::load(const QString& path, QString* error)
{
    auto file = gguf::GgufFile::open(path.toStdString());
    if (!file) {
        *error = QString::fromStdString(file.error().toString());
        return std::nullopt;
    }
    ImatrixWeights weights;
    const std::string sumsSuffix = ".in_sum2";
    for (const gguf::TensorInfo& tensor : (*file)->tensors()) {
        const std::string name(tensor.name);
        if (name.size() <= sumsSuffix.size() || name.compare(name.size() - sumsSuffix.size(), sumsSuffix.size(), sumsSuffix) != 0)
            continue;
        const std::string weightName = name.substr(0, name.size() - sumsSuffix.size());
        const gguf::TensorInfo* counts = (*file)->findTensor(weightName + ".counts");
        if (!counts || tensor.typeId != gguf::typeIdValue(gguf::GgmlTypeId::F32)
            || counts->typeId != gguf::typeIdValue(gguf::GgmlTypeId::F32)) {
            *error = QStringLiteral("%1: no f32 counts for %2").arg(path, QString::fromStdString(weightName));
            return std::nullopt;
        }
        weights.m_sums[weightName] = floatsOf(tensor);
        weights.m_counts[weightName] = floatsOf(*counts);
    }
    return weights;
}

int ImatrixWeights::expertCount(const std::string& weightName) const
{
    const auto it = m_counts.find(weightName);
    return it == m_counts.end() ? 0 : int(it->second.size());
}

std::vector<float> ImatrixWeights::quantWeights(const std::string& weightName, int expert) const
{
    const auto sums = m_sums.find(weightName);
    if (sums == m_sums.end())
        return {};
    const std::vector<float>& counts = m_counts.at(weightName);
    const std::size_t columns = sums->second.size() / counts.size();
    std::vector<float> row(columns);
    const float count = counts[std::size_t(expert)];
    for (std::size_t i = 0; i < columns; ++i)
        row[i] = count > 0.0f ? sums->second[std::size_t(expert) * columns + i] / count : 1.0f;
    return row;
}

}  // namespace testsupport
