#pragma once
// Reads and validates the header, metadata and tensor infos of one mapped file. Internal to the
// core: callers use GgufFile::open.

#include "core/gguf/ByteCursor.h"
#include "core/gguf/GgufFile.h"

namespace gguf {

// Arrays of arrays are legal, but nobody nests them deeply: the reader refuses a value of more
// than this many levels (the cap keeps its recursive walk from exhausting the stack on a
// hostile file), so an edit must not write one.
inline constexpr int kMaxArrayNesting = 16;

struct ValuePath;

class GgufParser {
public:
    explicit GgufParser(GgufFile& file);
    Status run();

private:
    Status parse();
    Status readHeader(std::uint64_t& tensorCount, std::uint64_t& metadataCount);
    Status readMetadata(std::uint64_t count);
    Status skipValue(ValueType type, std::uint64_t valueOffset, const ValuePath& path, int depth);
    Status readArrayHeader(std::uint64_t valueOffset, const ValuePath& path, ValueType& elementType, std::uint64_t& length);
    Status skipArrayUnkept(std::uint64_t valueOffset, const ValuePath& path, bool& elided);
    Status applyAlignment();
    Status readTensorInfos(std::uint64_t count);
    Status checkDuplicateTensorNames(std::size_t count);
    Status readTensorInfo(std::uint64_t index, TensorInfo& tensor);
    Status computeSize(TensorInfo& tensor);
    Status placeTensors();

    bool readLength(std::uint64_t& out);
    Error fail(std::string message, std::uint64_t offset) const;
    Error truncated(const std::string& what, std::uint64_t offset) const;

    // Feeds the cursor from MappedFile::copyPrefix, so every header byte is read from private memory.
    class HeaderCopy final : public PrefixSource {
    public:
        explicit HeaderCopy(const MappedFile& file) : m_mapped(file) {}
        std::uint64_t providePrefix(std::uint64_t end) override { return m_mapped.copyPrefix(end); }
        std::uint64_t skipPrefix(std::uint64_t end) override { return m_mapped.skipPrefixCopy(end); }

    private:
        const MappedFile& m_mapped;
    };

    GgufFile& m_file;
    HeaderCopy m_headerCopy;
    ByteCursor m_cursor;
};

}  // namespace gguf
