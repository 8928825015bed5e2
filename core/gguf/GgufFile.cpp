#include "core/gguf/GgufFile.h"

#include "core/gguf/GgufParser.h"

#include <algorithm>

namespace gguf {

GgufFile::GgufFile(std::shared_ptr<const MappedFile> file) : m_file(std::move(file))
{
    m_encoding.data = m_file->data();
    m_encoding.size = m_file->size();
}

Result<std::shared_ptr<const GgufFile>> GgufFile::open(const std::string& path, HeaderRetention retention)
{
    auto mapped = MappedFile::open(path);
    if (!mapped)
        return mapped.error();
    return parse(std::move(mapped.value()), retention);
}

Result<std::shared_ptr<const GgufFile>> GgufFile::parse(std::shared_ptr<const MappedFile> mapped, HeaderRetention retention)
{
    std::shared_ptr<GgufFile> file(new GgufFile(std::move(mapped)));
    file->m_retention = file->m_file->remote() ? HeaderRetention::Full : retention;
    GgufParser parser(*file);
    if (Status status = parser.run(); !status)
        return status.error();
    return std::shared_ptr<const GgufFile>(std::move(file));
}

const MetadataEntry* GgufFile::findMetadata(std::string_view key) const
{
    const auto it = m_metadataByKey.find(key);
    return it == m_metadataByKey.end() ? nullptr : &m_metadata[it->second];
}

const TensorInfo* GgufFile::findTensor(std::string_view name) const
{
    const auto it = std::lower_bound(m_tensorsByName.begin(), m_tensorsByName.end(), name,
                                     [this](std::size_t index, std::string_view wanted) { return m_tensors[index].name < wanted; });
    return it != m_tensorsByName.end() && m_tensors[*it].name == name ? &m_tensors[*it] : nullptr;
}

}  // namespace gguf
