#pragma once
// One parsed and validated GGUF file: header, metadata and tensor index. Opening parses only
// those; tensor bytes stay in the read-only mapping until someone asks for them.

#include "core/gguf/MappedFile.h"
#include "core/gguf/MetadataValue.h"
#include "core/base/Result.h"
#include "core/gguf/TensorInfo.h"

#include <memory>
#include <string>
#include <map>
#include <vector>

namespace gguf {

// What an open keeps of the header. Both validate every byte of it the same way, with the same
// errors. Full keeps every metadata value readable. Summary, for reports that read only scalars,
// strings and counts (the CLI's `info`), does not keep arrays of 64 KiB or more (a vocabulary,
// its scores and merges are most of a big header): their bytes are read once from the file,
// never copied into memory, and the values say elided(). Remote files always open in full.
enum class HeaderRetention { Full, Summary };

class GgufFile {
public:
    static Result<std::shared_ptr<const GgufFile>> open(const std::string& path, HeaderRetention retention = HeaderRetention::Full);
    static Result<std::shared_ptr<const GgufFile>> parse(std::shared_ptr<const MappedFile> file,
                                                         HeaderRetention retention = HeaderRetention::Full);

    GgufFile(const GgufFile&) = delete;
    GgufFile& operator=(const GgufFile&) = delete;

    const std::string& path() const { return m_file->path(); }
    const MappedFile& mapping() const { return *m_file; }  // e.g. mapping().checkUnchanged()
    std::uint64_t fileSize() const { return m_file->size(); }
    std::uint32_t version() const { return m_version; }
    bool bigEndian() const { return m_encoding.bigEndian; }
    std::string magic() const { return m_magic; }  // "GGUF" or "FUGG"
    std::uint64_t alignment() const { return m_alignment; }
    // Absolute offset of the data section. With no tensors this is the end of the metadata,
    // unpadded, as ggml reports it.
    std::uint64_t dataOffset() const { return m_dataOffset; }

    const std::vector<MetadataEntry>& metadata() const { return m_metadata; }
    const MetadataEntry* findMetadata(std::string_view key) const;
    const std::vector<TensorInfo>& tensors() const { return m_tensors; }
    const TensorInfo* findTensor(std::string_view name) const;

private:
    friend class GgufParser;
    explicit GgufFile(std::shared_ptr<const MappedFile> file);

    std::shared_ptr<const MappedFile> m_file;
    HeaderRetention m_retention = HeaderRetention::Full;
    Encoding m_encoding;  // MetadataValues point at this, so GgufFile never moves
    std::string m_magic;
    std::uint32_t m_version = 0;
    std::uint64_t m_alignment = 32;
    std::uint64_t m_dataOffset = 0;
    std::vector<MetadataEntry> m_metadata;
    // Ordered maps, not hash tables: names come from the file, and a crafted set of colliding names
    // would make an unseeded hash table quadratic. A tree stays O(log n) whatever the names.
    std::map<std::string_view, std::size_t> m_metadataByKey;
    std::vector<TensorInfo> m_tensors;
    // Indices of m_tensors sorted by name (binary search; no tree node per tensor).
    std::vector<std::size_t> m_tensorsByName;
};

}  // namespace gguf
