#pragma once
// Compares quant levels of one model: tensors of two or more models paired by name, one model the
// reference, every other model (and every "simulated" type: the reference quantized in memory
// as `convert --type T` would write it) a column. Each computable cell (tensor x column) is
// streamed in element ranges, so no tensor is ever in memory whole, and ranges run on any thread.
//
// create() once (cheap: no tensor data is read), then schedule the cells through a
// ComparisonEngine (ComparisonEngine.h): runComparison() below runs it on the caller's executor for the
// CLI, the GUI runs the same units on its job pool. reconstruct() hands out both sides of a range
// for heatmaps, histograms and scatter plots.

#include "core/base/TaskExecutor.h"
#include "core/compare/ErrorMetrics.h"
#include "core/gguf/Model.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gguf {

class ImportanceMatrix;
struct TensorImportance;

// Quantizes whole rows of `rowLength` values with `importance` (rowLength weights, as
// ggml_quantize_chunk's quant_weights) into `out`: the signature of core/quantize's quantizeRows,
// which is what simulations use unless a test substitutes its own.
using ImportanceQuantizer = std::function<Status(std::uint32_t typeId, std::span<const float> values, std::int64_t rowLength,
                                                 std::span<const float> importance, std::span<std::uint8_t> out)>;

inline constexpr std::uint64_t kComparisonChunkElements = std::uint64_t{1} << 18;

struct ComparisonColumn {
    enum class Kind { File, Simulated };
    Kind kind = Kind::File;
    std::string label;                   // the file's name, or "q4_K (simulated)"
    std::shared_ptr<const Model> model;  // Kind::File
    std::size_t modelIndex = 0;          // Kind::File: position in the models given to create()
    std::uint32_t simulatedType = 0;     // Kind::Simulated: the target type, unless recipeTypes is set
    // Kind::Simulated for a llama-quantize preset: tensor name -> type for the tensors it
    // re-encodes (the others are kept), as core/recipe's computeRecipe chose them.
    std::shared_ptr<const std::unordered_map<std::string, std::uint32_t>> recipeTypes;
};

// A preset to simulate: its label ("Q4_K_M") and the per-tensor types of its recipe.
struct SimulatedRecipe {
    std::string label;
    std::shared_ptr<const std::unordered_map<std::string, std::uint32_t>> types;
};

// NoImportance: a simulated type ggml makes only with importance weights (requiresImportance)
// for a tensor the importance matrix has no entry for that fits (token_embd, output): the values
// decode, but llama-quantize would refuse to make them.
enum class CellStatus { Ok, Missing, ShapeMismatch, Undecodable, NoImportance };
// "ok", "missing", "shape_mismatch", "undecodable", "no_imatrix_entry"
const char* cellStatusName(CellStatus status);

struct ComparisonCell {
    CellStatus status = CellStatus::Ok;
    std::string problem;                 // why the cell cannot be computed; empty when Ok
    const TensorInfo* tensor = nullptr;  // Kind::File: the other model's tensor
    std::uint32_t typeId = 0;            // the type of the values compared with the reference
    bool quantizedInMemory = false;      // Kind::Simulated: false when the tensor is kept as is
    std::string note;                    // Kind::Simulated: why kept or why a fallback type

    bool ok() const { return status == CellStatus::Ok; }
};

// "blk.12.attn_q.weight" -> layer 12, kind "attn_q"; "token_embd.weight" -> no layer,
// kind "token_embd"; a ".bias" suffix stays in the kind ("attn_q.bias").
struct TensorNameParts {
    std::optional<std::uint32_t> layer;
    std::string kind;
};
TensorNameParts splitTensorName(std::string_view name);

struct ComparisonRow {
    const TensorInfo* reference = nullptr;
    std::vector<ComparisonCell> cells;  // one per column
    TensorNameParts nameParts;
};

struct ComparisonOptions {
    std::optional<std::size_t> referenceIndex;  // default: the most precise model (highest bits/weight)
    std::vector<std::uint32_t> simulatedTypes;  // types to quantize the reference to, in memory
    std::vector<SimulatedRecipe> simulatedRecipes;  // presets, after the types
    std::function<bool(std::string_view name)> includeTensor;  // rows to compare; default all
    // With an importance matrix (bound to the reference model: validateImatrix(matrix, model)),
    // every tensor it covers also gets the importance-weighted figures (ImportanceErrorMetrics.h).
    std::shared_ptr<const ImportanceMatrix> importance;
    // With `importance`, simulated columns quantize each covered tensor row by row with its
    // expert's weights (llama-quantize --imatrix) through quantizeRows; tests may put a recording
    // quantizer here instead. Without `importance` it is not used.
    ImportanceQuantizer quantizer;
};

struct ElementRange {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    std::uint64_t size() const { return end - begin; }
};

class ModelComparison {
public:
    // Pairs the tensors; fails only when there is nothing to compare or an option is invalid.
    // Mismatches (missing tensors, other shapes, other architectures) are reported, not fatal.
    static Result<ModelComparison> create(std::vector<std::shared_ptr<const Model>> models,
                                          const ComparisonOptions& options = {});

    const std::vector<std::shared_ptr<const Model>>& models() const { return m_models; }
    std::size_t referenceIndex() const { return m_referenceIndex; }
    const Model& reference() const { return *m_models[m_referenceIndex]; }
    const std::vector<ComparisonColumn>& columns() const { return m_columns; }
    const std::vector<ComparisonRow>& rows() const { return m_rows; }
    // Model-level findings, one line each: other architectures, tensors missing on either side.
    const std::vector<std::string>& problems() const { return m_problems; }
    // The importance matrix the figures are weighted by, or nullptr.
    const ImportanceMatrix* importance() const { return m_importance.get(); }

    // Elements of a computable cell (0 for others) and their split into ranges of at most about
    // `maxElements` (whole rows, or whole blocks of every type involved when a row is longer).
    std::uint64_t cellElements(std::size_t row, std::size_t column) const;
    std::vector<ElementRange> cellRanges(std::size_t row, std::size_t column,
                                         std::uint64_t maxElements = kComparisonChunkElements) const;

    // Both sides of `range`: the reference's values and the column's (the other model's values,
    // or the reference quantized to the simulated type and dequantized again). Each span holds
    // range.size() floats. Thread-safe.
    Status reconstruct(std::size_t row, std::size_t column, ElementRange range, std::span<float> reference,
                       std::span<float> other) const;
    // Adds the errors of `range` to `into`, with buffers of the range's size. Thread-safe.
    Status accumulate(std::size_t row, std::size_t column, ElementRange range, ErrorAccumulator& into) const;

private:
    ModelComparison() = default;
    void pairRow(ComparisonRow& row) const;
    void reportUnpaired();
    std::uint64_t rangeAlignment(std::size_t row, std::size_t column) const;

    std::vector<std::shared_ptr<const Model>> m_models;
    std::size_t m_referenceIndex = 0;
    std::vector<ComparisonColumn> m_columns;
    std::vector<ComparisonRow> m_rows;
    std::vector<std::string> m_problems;
    std::shared_ptr<const ImportanceMatrix> m_importance;
    ImportanceQuantizer m_importanceQuantizer;
    std::vector<std::shared_ptr<const TensorImportance>> m_simulationWeights;  // per row, with m_importanceQuantizer
    Status quantizeRowsWithImportance(std::size_t row, const TypeTraits& type, ElementRange range, std::span<const float> reference,
                                      std::span<float> other) const;
};

struct ComparisonResults {
    std::vector<std::vector<std::optional<ErrorMetrics>>> cells;  // [row][column]; nullopt when not computable
    std::vector<ErrorMetrics> columnTotals;                       // every computed tensor of a column together
    std::vector<std::size_t> columnTensorCounts;                  // computed tensors per column
    // With an importance matrix: per expert of each computed 3-D tensor the figures of that
    // expert's values ([row][column][expert]; empty elsewhere). No percentiles (NaN): parts keep sums only.
    std::vector<std::vector<std::vector<ErrorMetrics>>> expertCells;
};

struct ComparisonRunOptions {
    TaskExecutor* executor = nullptr;  // runs the workers; null: the calling thread alone
    std::uint64_t chunkElements = kComparisonChunkElements;
    const std::atomic<bool>* cancel = nullptr;  // set to stop early; the result is then an error
    // Called after each range with elements done / total over all cells; from worker threads,
    // one call at a time.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

// Computes every computable cell with a ComparisonEngine on the caller's executor, whose
// workers (one per thread it has) take the engine's units (ranges) in order: a cell's ranges are reconstructed on any thread, so one
// big tensor uses them all, but added to the cell in range order, as one thread would. The
// figures do not depend on the thread count; totals merge the cells in row order.
Result<ComparisonResults> runComparison(const ModelComparison& comparison, const ComparisonRunOptions& options = {});

}  // namespace gguf
