#include "core/write/SliceExporter.h"

#include "core/gguf/Dequantize.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace gguf {

namespace {
constexpr std::uint64_t kChunkElements = 1 << 20;

// Shortest text that reads back as the same float.
void appendCsvValue(std::string& out, float value)
{
    if (std::isnan(value)) {
        out += "nan";
        return;
    }
    if (std::isinf(value)) {
        out += value > 0 ? "inf" : "-inf";
        return;
    }
    char text[32];
    for (int precision = 6; precision <= 9; ++precision) {
        std::snprintf(text, sizeof text, "%.*g", precision, static_cast<double>(value));
        if (std::strtof(text, nullptr) == value)
            break;
    }
    out += text;
}
}  // namespace

std::optional<ExportFormat> parseExportFormat(std::string_view name)
{
    if (name == "f32" || name == "raw")
        return ExportFormat::RawF32;
    if (name == "npy")
        return ExportFormat::Npy;
    if (name == "csv")
        return ExportFormat::Csv;
    return std::nullopt;
}

std::string npyHeader(const std::vector<std::uint64_t>& shape)
{
    std::string tuple = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        tuple += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
    tuple += ")";
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + tuple + ", }";
    constexpr std::size_t kPreamble = 10;  // magic (6) + version (2) + header length (2)
    const std::size_t total = (kPreamble + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - kPreamble - dict.size() - 1, ' ');
    dict += '\n';
    std::string header("\x93NUMPY\x01\x00", 8);
    header += static_cast<char>(dict.size() & 0xFF);
    header += static_cast<char>(dict.size() >> 8);
    return header + dict;
}

Status exportSlice(const TensorSlice& slice, ExportFormat format, ByteSink& sink, const ExportProgress& progress, TaskExecutor* executor)
{
    return exportSlices(std::span<const TensorSlice>(&slice, 1), format, sink, progress, executor);
}

Status exportSlices(std::span<const TensorSlice> slices, ExportFormat format, ByteSink& sink, const ExportProgress& progress,
                    TaskExecutor* executor)
{
    if (slices.empty())
        return Error{"nothing to export", Error::kNoOffset, {}};
    std::uint64_t total = 0;
    for (const TensorSlice& slice : slices) {
        if (slice.shape != slices.front().shape)
            return Error{"slices exported together must have the same shape", Error::kNoOffset, {}};
        total += slice.elementCount();
    }
    if (format == ExportFormat::Npy) {
        std::vector<std::uint64_t> shape = slices.front().shape;
        if (slices.size() > 1)
            shape.insert(shape.begin(), slices.size());
        const std::string header = npyHeader(shape);
        if (Status s = sink.write(header.data(), header.size()); !s)
            return s;
    }
    Status writeStatus = Ok{};
    bool cancelled = false;
    std::string text;
    std::uint64_t before = 0;  // elements of the slices already written
    for (const TensorSlice& slice : slices) {
        const std::uint64_t rowLength = slice.rowLength();
        Status status = forEachChunk(slice, kChunkElements, [&](std::span<const float> values, std::uint64_t first) {
            if (format == ExportFormat::Csv) {
                text.clear();
                for (std::size_t i = 0; i < values.size(); ++i) {
                    appendCsvValue(text, values[i]);
                    text += (first + i + 1) % rowLength == 0 ? '\n' : ',';
                }
                writeStatus = sink.write(text.data(), text.size());
            } else {
                writeStatus = sink.write(values.data(), values.size_bytes());
            }
            if (!writeStatus)
                return false;
            if (progress && !progress(before + first + values.size(), total)) {
                cancelled = true;
                return false;
            }
            return true;
        }, executor);
        if (!status)
            return status;
        if (!writeStatus)
            return writeStatus;
        if (cancelled)
            return Error{"export cancelled", Error::kNoOffset, {}};
        before += slice.elementCount();
    }
    return Ok{};
}

}  // namespace gguf
