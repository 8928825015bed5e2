#include "core/imatrix/ImatrixWriter.h"

#include "core/types/GgmlType.h"
#include "core/write/ByteSink.h"
#include "core/write/GgufWriter.h"

#include <algorithm>
#include <cstring>

namespace gguf {

namespace {

constexpr std::int64_t kLargestChunk = std::int64_t{1} << 20;

Error writerError(std::string message) { return Error{std::move(message), Error::kNoOffset, {}}; }

// An entry both formats can write: values that split into one row per expert. llama-imatrix
// never makes another shape; a file read here could hold one only if its reader let it through.
Status checkShape(const std::string& name, const ImatrixSumsEntry& entry)
{
    if (entry.values.empty() || entry.counts.empty() || entry.values.size() % entry.counts.size() != 0)
        return writerError("importance matrix entry '" + name + "' has " + std::to_string(entry.values.size()) + " values for "
                           + std::to_string(entry.counts.size()) + " count(s); they must split into one row per count");
    if (entry.values.size() > static_cast<std::size_t>(INT32_MAX))
        return writerError("importance matrix entry '" + name + "' has more values than a file's i32 field holds");
    return Ok{};
}

void appendI32(std::string& out, std::int32_t value)
{
    char bytes[4];
    std::memcpy(bytes, &value, 4);  // little-endian hosts only, as the whole project
    out.append(bytes, 4);
}

void appendF32(std::string& out, float value)
{
    char bytes[4];
    std::memcpy(bytes, &value, 4);
    out.append(bytes, 4);
}

std::string floatBytes(const std::vector<float>& values)
{
    std::string bytes(values.size() * sizeof(float), '\0');
    if (!values.empty())
        std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

Status writeGguf(const ImatrixSums& sums, std::int64_t chunkSize, const std::string& path, ImatrixWriteNotes& notes)
{
    GgufWriter writer;
    writer.setValue("general.type", EncodedValue::string("imatrix"));
    writer.setValue("imatrix.datasets", EncodedValue::stringArray(sums.datasets));
    writer.setValue("imatrix.chunk_count", EncodedValue::u32(static_cast<std::uint32_t>(sums.lastChunk(chunkSize))));
    writer.setValue("imatrix.chunk_size", EncodedValue::u32(static_cast<std::uint32_t>(chunkSize)));
    for (const auto& [name, entry] : sums.entries) {
        if (Status s = checkShape(name, entry); !s)
            return s;
        if (std::count(entry.counts.begin(), entry.counts.end(), 0) > 0)
            notes.partialData.push_back(name);
        const auto experts = static_cast<std::int64_t>(entry.counts.size());
        const auto columns = static_cast<std::int64_t>(entry.values.size()) / experts;
        // ggml writes the dimensions up to the last one above 1: [columns] and [1] for one expert.
        std::vector<std::int64_t> sumsShape{columns};
        std::vector<std::int64_t> countsShape{1};
        if (experts > 1) {
            sumsShape.push_back(experts);
            countsShape.push_back(experts);
        }
        const std::string sumBytes = floatBytes(entry.values);
        std::vector<float> countValues(entry.counts.begin(), entry.counts.end());
        const std::string countBytes = floatBytes(countValues);
        const auto f32 = typeIdValue(GgmlTypeId::F32);
        if (Status s = writer.addTensor({name + ".in_sum2", f32, sumsShape}, [sumBytes](ByteSink& out) { return out.write(sumBytes.data(), sumBytes.size()); });
            !s)
            return s;
        if (Status s = writer.addTensor({name + ".counts", f32, countsShape},
                                        [countBytes](ByteSink& out) { return out.write(countBytes.data(), countBytes.size()); });
            !s)
            return s;
    }
    return writer.writeFile(path);
}

}  // namespace

Result<std::string> encodeImatrixDat(const ImatrixSums& sums, std::int64_t chunkSize, ImatrixWriteNotes* notes)
{
    if (chunkSize < 1 || chunkSize > kLargestChunk)
        return writerError("the chunk size must be from 1 to " + std::to_string(kLargestChunk) + " tokens");
    ImatrixWriteNotes ignored;
    ImatrixWriteNotes& said = notes ? *notes : ignored;
    std::string out;
    std::string body;
    std::int32_t stored = 0;
    for (const auto& [name, entry] : sums.entries) {
        if (Status s = checkShape(name, entry); !s)
            return s.error();
        const auto zeros = std::count(entry.counts.begin(), entry.counts.end(), 0);
        if (zeros == static_cast<std::ptrdiff_t>(entry.counts.size())) {
            said.skippedNoData.push_back(name);
            continue;
        }
        if (zeros > 0)
            said.partialData.push_back(name);
        if (entry.counts.size() > 1)
            said.perExpertCountsDropped.push_back(name);
        ++stored;
        appendI32(body, static_cast<std::int32_t>(name.size()));
        body += name;
        // The ceiling, so that a matrix seen in part of a chunk is not stored with ncall 0.
        const std::int64_t largest = *std::max_element(entry.counts.begin(), entry.counts.end());
        const auto calls = static_cast<std::int32_t>((largest + chunkSize - 1) / chunkSize);
        appendI32(body, calls);
        appendI32(body, static_cast<std::int32_t>(entry.values.size()));
        const std::size_t perExpert = entry.values.size() / entry.counts.size();
        for (std::size_t i = 0; i < entry.values.size(); ++i) {
            float count = static_cast<float>(entry.counts[i / perExpert]);
            float value = entry.values[i];
            if (count == 0.0f) {  // an expert of no tokens is stored as 1, as llama-imatrix does
                value = 1.0f;
                count = 1.0f;
            }
            appendF32(body, (value / count) * static_cast<float>(calls));
        }
    }
    appendI32(out, stored);
    out += body;
    appendI32(out, static_cast<std::int32_t>(sums.lastChunk(chunkSize)));
    // One dataset name fits: llama-imatrix writes the last (its own text file when it ran one).
    const std::string dataset = sums.datasets.empty() ? std::string() : sums.datasets.back();
    appendI32(out, static_cast<std::int32_t>(dataset.size()));
    out += dataset;
    return out;
}

Result<ImatrixWriteNotes> writeImatrix(const ImatrixSums& sums, std::int64_t chunkSize, ImatrixOutputFormat format, const std::string& path)
{
    if (chunkSize < 1 || chunkSize > kLargestChunk)
        return writerError("the chunk size must be from 1 to " + std::to_string(kLargestChunk) + " tokens");
    ImatrixWriteNotes notes;
    if (format == ImatrixOutputFormat::Gguf) {
        if (Status s = writeGguf(sums, chunkSize, path, notes); !s)
            return s.error();
        return notes;
    }
    auto bytes = encodeImatrixDat(sums, chunkSize, &notes);
    if (!bytes)
        return bytes.error();
    auto sink = openOutputFile(path);
    if (!sink)
        return sink.error();
    if (Status s = (*sink)->write(bytes->data(), bytes->size()); !s)
        return s.error();
    if (Status s = (*sink)->commit(); !s)
        return s.error();
    return notes;
}

ImatrixOutputFormat imatrixFormatForPath(const std::string& path)
{
    return path.size() >= 4 && path.compare(path.size() - 4, 4, ".dat") == 0 ? ImatrixOutputFormat::LegacyDat : ImatrixOutputFormat::Gguf;
}

}  // namespace gguf
