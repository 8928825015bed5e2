#pragma once
// Writes a model quantized by a recipe the way llama-quantize writes it: tensors in the recipe's
// (llama-quantize's) order, each re-encoded to its chosen type or copied when the type stays;
// the input's metadata with split.* dropped, general.quantization_version and general.file_type
// moved to the end (llama-quantize sets them after copying), then the quantize.imatrix.* keys
// when an importance matrix was used. Work is streamed in row chunks on all cores (chunks never
// cross an expert, which has its own importance weights); the output appears only complete,
// through a temporary file, and never over an input.

#include "core/base/TaskExecutor.h"
#include "core/gguf/Model.h"
#include "core/quantize/ImportanceWeights.h"
#include "core/recipe/LlamaQuantRecipe.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gguf {

struct ImatrixProvenance {
    std::string file;            // quantize.imatrix.file, as given on the command line
    std::string dataset;         // quantize.imatrix.dataset; empty: not written
    std::uint32_t entries = 0;   // quantize.imatrix.entries_count
    std::uint32_t chunks = 0;    // quantize.imatrix.chunks_count; 0: not written
};

class ImportanceMatrix;
// The keys llama-quantize --imatrix PATH writes for `matrix`: PATH exactly as it was given (it
// records its argv verbatim: a relative path stays relative, nothing is made absolute), the
// first dataset, the entry count and the chunk count.
ImatrixProvenance imatrixProvenanceOf(const ImportanceMatrix& matrix, std::string pathAsGiven);

struct RecipeConversionOptions {
    TaskExecutor* executor = nullptr;             // quantizes row chunks; null: the calling thread alone
    std::uint64_t chunkElements = std::uint64_t{1} << 20;  // per chunk, rounded to whole rows
    ImportanceLookup importance;                  // empty: no imatrix
    std::optional<ImatrixProvenance> imatrix;     // the keys to write
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;  // elements
};

struct RecipeConversionReport {
    std::size_t convertedCount = 0;
    std::size_t copiedCount = 0;
    std::uint64_t tensorBytes = 0;
    std::vector<std::string> warnings;
};

// Header size (metadata and tensor infos, padded) and alignment of the file convertWithRecipe
// writes for `input`: they do not depend on the types chosen, so a planner can tell the exact
// file size of any mix as header + the tensors' bytes each padded to the alignment.
struct RecipeFileLayout {
    std::uint64_t headerBytes = 0;
    std::uint64_t alignment = 32;
    std::uint64_t padded(std::uint64_t bytes) const { return (bytes + alignment - 1) / alignment * alignment; }
};
Result<RecipeFileLayout> recipeFileLayout(const Model& input, const std::optional<ImatrixProvenance>& imatrix);

// Checks that every converted tensor can be made (a quantizer for its type, a dequantizer for
// its source, an importance lookup for the types that require one) before anything is written.
Result<RecipeConversionReport> convertWithRecipe(const Model& input, const Recipe& recipe, const std::string& outputPath,
                                                 const RecipeConversionOptions& options);

}  // namespace gguf
