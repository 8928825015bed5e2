#pragma once
// Writes a dequantized slice as raw little-endian f32, a NumPy .npy file or CSV, streaming it in
// chunks. The CLI and the GUI export through this one function.

#include "core/write/ByteSink.h"
#include "core/gguf/TensorSlice.h"

#include <functional>
#include <optional>
#include <span>
#include <string_view>

namespace gguf {

class TaskExecutor;

enum class ExportFormat { RawF32, Npy, Csv };

std::optional<ExportFormat> parseExportFormat(std::string_view name);  // "f32", "npy", "csv"

// The .npy header for a little-endian f32 array of `shape` (format version 1.0, padded so the
// data starts on a 64-byte boundary).
std::string npyHeader(const std::vector<std::uint64_t>& shape);

// `progress(done, total)` is called after each chunk with element counts; returning false
// cancels, which the result reports as an error (so the caller leaves the sink uncommitted).
using ExportProgress = std::function<bool(std::uint64_t done, std::uint64_t total)>;
// With an `executor`, each chunk is dequantized on all of its threads (the CLI); the bytes written
// are the same.
Status exportSlice(const TensorSlice& slice, ExportFormat format, ByteSink& sink, const ExportProgress& progress = {},
                   TaskExecutor* executor = nullptr);

// Several slices of one shape (e.g. a chosen set of experts) one after another: a .npy gets
// the shape [n, ...slice shape]; raw f32 and CSV are simply concatenated.
Status exportSlices(std::span<const TensorSlice> slices, ExportFormat format, ByteSink& sink, const ExportProgress& progress = {},
                    TaskExecutor* executor = nullptr);

}  // namespace gguf
