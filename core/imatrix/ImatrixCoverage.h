#pragma once
// What an importance matrix and the model it is used with leave each other out, put as
// llama-quantize puts it ("did not find weights for ..."). The model's matrices without an entry
// are quantized without importance weights; token_embd and output are counted but alone never
// make a warning, since llama-imatrix leaves them out unless asked (--process-output); any other
// matrix without an entry means the matrix was made for another model, or from a run that never
// reached that tensor. The matrix's entries that name no tensor of the model go unused, which
// llama-quantize does not mention; a matrix made by llama-imatrix for this model has none.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gguf {

struct ImatrixCoverage {
    std::size_t matrices = 0;            // the model's matrices
    std::vector<std::string> uncovered;  // those without an entry, in the model's order
    std::size_t uncoveredInLayers = 0;   // of them, neither token_embd nor output
    std::size_t entries = 0;             // the matrix's entries
    std::vector<std::string> unmatched;  // those that name no tensor of the model, in the file's order

    bool worthWarning() const { return uncoveredInLayers > 0; }
    // "the importance matrix has no entry for 8 of the model's 16 matrices (blk.0.ffn_down.weight,
    // ...): they are quantized without importance weights", the first `named` names listed.
    std::string warning(std::size_t named = 4) const;
    // What a user of the matrix is told: the warning above when worth it, and "the importance
    // matrix may be of another model: 8 of its 16 entries name no tensor of this model (...):
    // they are unused" when some entry names no tensor.
    std::vector<std::string> warnings(std::size_t named = 4) const;
};

ImatrixCoverage imatrixCoverage(const ImportanceMatrix& matrix, const Model& model);

}  // namespace gguf
