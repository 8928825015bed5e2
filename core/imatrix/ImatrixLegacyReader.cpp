// The legacy imatrix (.dat), little-endian: i32 n_entries; per entry i32 name length, the name,
// i32 ncall, i32 nval, f32[nval]; then optionally i32 last chunk, i32 length and the dataset
// path. llama-quantize trusts every field; here each is checked against the bytes left before
// it is used, so a hostile file costs at most its own size in memory.

#include "core/gguf/ByteCursor.h"
#include "core/imatrix/ImatrixReaders.h"

#include <algorithm>
#include <map>

namespace gguf {

namespace {

Error truncatedAt(const std::string& what, std::uint64_t offset)
{
    return imatrixError("truncated legacy imatrix: " + what + " runs past the end of the file", offset);
}

}  // namespace

Status ImatrixLegacyReader::read(const std::uint8_t* data, std::uint64_t size, ImportanceMatrix& out)
{
    ByteCursor cursor(data, size);
    std::int32_t entryCount = 0;
    if (!cursor.read(entryCount))
        return truncatedAt("the entry count", 0);
    if (entryCount < 1)
        return imatrixError("legacy imatrix: entry count " + std::to_string(entryCount) + " (no data; llama-quantize refuses it)", 0);
    // Each entry takes at least 16 bytes (three i32 and one value), so the count is bounded by
    // the file before anything is reserved for it.
    if (static_cast<std::uint64_t>(entryCount) > cursor.remaining() / 16)
        return imatrixError("legacy imatrix: entry count " + std::to_string(entryCount) + " cannot fit in the "
                         + std::to_string(size) + "-byte file",
                     0);
    std::map<std::string, ImportanceEntry> byName;  // a repeated name replaces the earlier entry, as in llama-quantize
    for (std::int32_t index = 0; index < entryCount; ++index) {
        const std::string which = "entry " + std::to_string(index);
        const std::uint64_t entryStart = cursor.position();
        std::int32_t nameLength = 0;
        if (!cursor.read(nameLength))
            return truncatedAt(which + "'s name length", entryStart);
        if (nameLength < 0)
            return imatrixError("legacy imatrix: " + which + " has a negative name length (" + std::to_string(nameLength) + ")", entryStart);
        std::string_view rawName;
        if (!cursor.readString(static_cast<std::uint64_t>(nameLength), rawName))
            return truncatedAt(which + "'s name (" + std::to_string(nameLength) + " bytes)", entryStart + 4);
        // llama-quantize builds the name from a C string: it ends at the first NUL byte.
        const std::string name(rawName.substr(0, std::min(rawName.find('\0'), rawName.size())));
        const std::uint64_t callsOffset = cursor.position();
        std::int32_t calls = 0;
        std::int32_t valueCount = 0;
        if (!cursor.read(calls))
            return truncatedAt("the ncall of '" + name + "'", callsOffset);
        if (!cursor.read(valueCount))
            return truncatedAt("the nval of '" + name + "'", callsOffset + 4);
        if (valueCount < 1)
            return imatrixError("legacy imatrix: '" + name + "' has nval " + std::to_string(valueCount) + " (at least 1 value is needed)",
                         callsOffset + 4);
        const std::uint64_t valuesOffset = cursor.position();
        if (static_cast<std::uint64_t>(valueCount) > cursor.remaining() / 4)
            return truncatedAt("the " + std::to_string(valueCount) + " values of '" + name + "'", valuesOffset);
        ImportanceEntry entry;
        entry.name = name;
        entry.legacy = true;
        entry.legacyCalls = calls;
        entry.storedColumns = valueCount;
        entry.storedRows = 1;
        entry.rowLength = valueCount;
        entry.sumsOffset = valuesOffset;
        entry.countsOffset = callsOffset;
        entry.counts = {static_cast<float>(calls)};
        entry.sums.resize(static_cast<std::size_t>(valueCount));
        for (float& value : entry.sums)
            cursor.read(value);
        if (byName.count(name))
            out.m_notes.push_back("legacy entry '" + name + "' at byte " + std::to_string(entryStart)
                                  + " repeats an earlier name and replaces it (as llama-quantize does)");
        byName[name] = std::move(entry);
    }
    // Newer legacy files end with the last chunk number and the dataset path.
    if (cursor.remaining() > 0) {
        const std::uint64_t trailer = cursor.position();
        std::int32_t lastChunk = 0;
        std::int32_t datasetLength = 0;
        if (!cursor.read(lastChunk))
            return truncatedAt("the chunk count after the last entry", trailer);
        if (!cursor.read(datasetLength))
            return truncatedAt("the dataset name length", trailer + 4);
        if (datasetLength < 0)
            return imatrixError("legacy imatrix: negative dataset name length (" + std::to_string(datasetLength) + ")", trailer + 4);
        std::string_view dataset;
        if (!cursor.readString(static_cast<std::uint64_t>(datasetLength), dataset))
            return truncatedAt("the dataset name (" + std::to_string(datasetLength) + " bytes)", trailer + 8);
        if (cursor.remaining() > 0)
            return imatrixError("legacy imatrix: " + std::to_string(cursor.remaining()) + " unexpected bytes after the dataset name",
                         cursor.position());
        out.m_chunkCount = lastChunk;
        out.m_datasets.emplace_back(dataset);
    }
    for (auto& [name, entry] : byName)
        out.m_entries.push_back(std::move(entry));
    return Ok{};
}

}  // namespace gguf
