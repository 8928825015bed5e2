#include "recipe/ImatrixFileCheck.h"

#include "gguf/GgufFile.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace gguf {

namespace {

Error imatrixError(const std::string& path, const std::string& message, std::uint64_t offset = Error::kNoOffset)
{
    return Error{message, offset, path};
}

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};

// Walks a legacy .dat file's entries without keeping them: every size is checked against the
// bytes that remain, so a hostile count cannot make it allocate or loop for long.
Result<ImatrixFileInfo> checkLegacy(const std::string& path)
{
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file)
        return imatrixError(path, "cannot open the importance matrix: " + std::string(std::strerror(errno)));
    if (std::fseek(file.get(), 0, SEEK_END) != 0)
        return imatrixError(path, "the importance matrix is not a seekable file");
    const long size = std::ftell(file.get());
    std::fseek(file.get(), 0, SEEK_SET);
    std::uint64_t at = 0;
    auto readI32 = [&](std::int32_t& value) {
        if (std::fread(&value, 4, 1, file.get()) != 1)
            return false;
        at += 4;
        return true;
    };
    std::int32_t entries = 0;
    if (!readI32(entries) || entries <= 0)
        return imatrixError(path, "not an importance matrix: neither GGUF nor a legacy .dat with a positive entry count", 0);
    for (std::int32_t i = 0; i < entries; ++i) {
        const std::uint64_t entryAt = at;
        std::int32_t nameLength = 0, calls = 0, values = 0;
        if (!readI32(nameLength) || nameLength <= 0 || std::uint64_t(nameLength) > std::uint64_t(size) - at)
            return imatrixError(path, "legacy importance matrix entry " + std::to_string(i) + " has a bad name length", entryAt);
        if (std::fseek(file.get(), nameLength, SEEK_CUR) != 0)
            return imatrixError(path, "legacy importance matrix truncated", entryAt);
        at += std::uint64_t(nameLength);
        if (!readI32(calls) || !readI32(values) || values <= 0 || std::uint64_t(values) * 4 > std::uint64_t(size) - at)
            return imatrixError(path, "legacy importance matrix entry " + std::to_string(i) + " has a bad value count", entryAt);
        if (std::fseek(file.get(), values * 4L, SEEK_CUR) != 0)
            return imatrixError(path, "legacy importance matrix truncated", entryAt);
        at += std::uint64_t(values) * 4;
    }
    ImatrixFileInfo info;
    info.format = ImatrixFormat::LegacyDat;
    info.entryCount = std::uint64_t(entries);
    std::int32_t lastChunk = 0, datasetLength = 0;
    if (readI32(lastChunk) && lastChunk > 0) {
        info.chunkCount = std::uint64_t(lastChunk);
        if (readI32(datasetLength) && datasetLength > 0 && std::uint64_t(datasetLength) <= std::uint64_t(size) - at) {
            info.dataset.resize(std::size_t(datasetLength));
            if (std::fread(info.dataset.data(), 1, info.dataset.size(), file.get()) != info.dataset.size())
                info.dataset.clear();
        }
    }
    return info;
}

}  // namespace

Result<ImatrixFileInfo> checkImatrixFile(const std::string& path)
{
    char magic[4] = {};
    {
        std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
        if (!file)
            return imatrixError(path, "cannot open the importance matrix: " + std::string(std::strerror(errno)));
        if (std::fread(magic, 1, 4, file.get()) != 4)
            return imatrixError(path, "not an importance matrix: shorter than 4 bytes", 0);
    }
    if (std::memcmp(magic, "GGUF", 4) != 0 && std::memcmp(magic, "FUGG", 4) != 0)
        return checkLegacy(path);
    auto gguf = GgufFile::open(path);
    if (!gguf)
        return gguf.error();
    ImatrixFileInfo info;
    const auto* type = (*gguf)->findMetadata("general.type");
    std::uint64_t sums = 0;
    for (const TensorInfo& tensor : (*gguf)->tensors()) {
        const std::string_view name = tensor.name;
        sums += name.size() > 8 && name.substr(name.size() - 8) == ".in_sum2";
    }
    if ((!type || type->value.toStringView() != "imatrix") && sums == 0)
        return imatrixError(path, "a GGUF file but not an importance matrix (no general.type \"imatrix\", no *.in_sum2 tensors)");
    info.entryCount = sums;
    if (const auto* datasets = (*gguf)->findMetadata("imatrix.datasets"); datasets && datasets->value.isArray()
        && datasets->value.arrayLength() > 0)
        info.dataset = std::string(datasets->value.element(0).toStringView());
    if (const auto* chunks = (*gguf)->findMetadata("imatrix.chunk_count"))
        info.chunkCount = chunks->value.toUInt().value_or(0);
    return info;
}

}  // namespace gguf
