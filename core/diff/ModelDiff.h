#pragma once
// What differs between two models (a fine-tune and its base, two uploads of "the same" quant, a
// re-conversion): metadata keys added, removed and changed (arrays element by element, long
// strings as a line diff), tensors added, removed or changed in shape or type, and for every
// tensor in both with the same shape whether its bytes are identical, its values identical after
// dequantization, or how much they differ (the compare page's ErrorMetrics, computed by the same
// ComparisonEngine, streamed on all cores), with a per-layer summary. Tensors pair by name, so
// any quant types and any split layouts compare. A is the reference of the error figures.

#include "core/base/Result.h"
#include "core/base/TaskExecutor.h"
#include "core/compare/ErrorMetrics.h"
#include "core/diff/TextDiff.h"
#include "core/gguf/Model.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

struct ArrayDifference {
    std::uint64_t lengthA = 0;
    std::uint64_t lengthB = 0;
    // Over the indexes both arrays have: how many elements differ and the first that does
    // (nullopt when none does; then only the lengths differ).
    std::uint64_t differingElements = 0;
    std::optional<std::uint64_t> firstDifference;
};

struct MetadataDifference {
    enum class Kind { Added, Removed, Changed };
    Kind kind = Kind::Changed;
    std::string key;
    std::string typeA, typeB;    // "" on the side without the key
    std::string valueA, valueB;  // one-line renderings (formatValue), "" on the side without the key
    std::optional<ArrayDifference> array;  // Changed arrays of the same element type
    std::vector<TextDiffLine> textDiff;    // Changed strings of more than one line or kLongString bytes
};

enum class TensorContent { IdenticalBytes, IdenticalValues, Different, NotComparable };
const char* tensorContentName(TensorContent content);  // "identical_bytes", ...

struct TensorDifference {
    enum class Kind { Added, Removed, ShapeChanged, InBoth };
    Kind kind = Kind::InBoth;
    std::string name;
    const TensorInfo* a = nullptr;  // nullptr when added
    const TensorInfo* b = nullptr;  // nullptr when removed
    std::optional<std::uint32_t> layer;  // blk.N
    // InBoth (same shape; the type may differ):
    TensorContent content = TensorContent::NotComparable;
    std::string problem;                  // NotComparable: why (an unknown type, ...)
    std::optional<ErrorMetrics> metrics;  // Different and IdenticalValues: B against A
};

struct LayerDifference {
    std::optional<std::uint32_t> layer;  // nullopt: the tensors outside blk.N (embeddings, output)
    std::size_t tensors = 0;             // in both, same shape
    std::size_t identicalBytes = 0;
    std::size_t identicalValues = 0;
    std::size_t different = 0;
    std::size_t notComparable = 0;
    // The compared (not byte-identical) tensors of the layer together (combineErrorMetrics);
    // count 0 when every tensor of the layer has identical bytes.
    ErrorMetrics metrics;
};

struct ModelDiff {
    static constexpr std::size_t kLongString = 120;

    std::vector<MetadataDifference> metadata;  // A's key order (changed, removed), then B's added keys
    std::vector<TensorDifference> tensors;     // A's tensor order, then B's added tensors
    std::vector<LayerDifference> layers;       // layers in order, then the non-layer tensors
    std::vector<std::string> problems;         // e.g. other architectures
    std::size_t metadataCount(MetadataDifference::Kind kind) const;
    std::size_t tensorCount(TensorDifference::Kind kind) const;
    std::size_t contentCount(TensorContent content) const;
    bool identical() const;  // no metadata or tensor difference at all
};

struct DiffOptions {
    TaskExecutor* executor = nullptr;  // compares and dequantizes; null: the calling thread alone
    const std::atomic<bool>* cancel = nullptr;
    // Work done / all (bytes compared plus elements dequantized); from worker threads.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

// The metadata part alone (no tensor data is read).
std::vector<MetadataDifference> diffMetadata(const Model& a, const Model& b);
// An array comparison element by element (any byte orders).
ArrayDifference diffArrays(const MetadataValue& a, bool aBigEndian, const MetadataValue& b, bool bBigEndian);

Result<ModelDiff> diffModels(const std::shared_ptr<const Model>& a, const std::shared_ptr<const Model>& b, const DiffOptions& options = {});

void writeModelDiffJson(JsonWriter& json, const ModelDiff& diff);  // one object

}  // namespace gguf
