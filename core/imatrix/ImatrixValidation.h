#pragma once
// Checks an importance matrix on its own (NaN/Inf, negative sums, zero or odd counts) and against
// the model it is meant for (entries that match no tensor, column counts that differ from
// ne[0], expert counts that differ from ne[2], no entry naming a tensor of the model at all).
// Every finding about an entry names it, the field and the byte offset in the imatrix file.
// Against a model it also cuts legacy entries of expert tensors into one row per expert, as
// llama-quantize does, so quantWeights(e) is per expert.

#include "core/imatrix/ImportanceMatrix.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

class Model;

// The largest importance (a quantizer's weight: the mean of x^2 over the tokens) accepted.
// Activations of a model run in F16 cannot pass 65504, so their square stays under 4.3e9; 1e10
// leaves room for BF16 and F32 runs. Beyond it lie damaged files (one flipped exponent bit
// makes 3.4e38), on which ggml's weighted searches overflow into NaN scales.
constexpr float kMaxImportanceWeight = 1e10f;

enum class ImatrixSeverity {
    Error,    // llama-quantize would refuse the model with this imatrix, or the numbers are unusable
    Warning,  // accepted, but the quantization of some rows is blind or the entry is unused
    Note,     // worth knowing
};

const char* imatrixSeverityName(ImatrixSeverity severity);  // "error", "warning", "note"

struct ImatrixIssue {
    ImatrixSeverity severity = ImatrixSeverity::Note;
    std::string tensor;  // the weight name ("" for the file as a whole)
    std::string field;   // "in_sum2", "counts", "ncall", "values", "name", "shape"
    std::uint64_t offset = Error::kNoOffset;  // in the imatrix file
    std::string message;

    std::string toString() const;  // "error: blk.0.attn_q.weight: counts: ... (at byte N)"
};

struct ImatrixValidation {
    std::vector<ImatrixIssue> issues;
    std::size_t matchedEntries = 0;  // entries whose name is a tensor of the model
    // Matrices of the model (2-D or 3-D, names ending in ".weight") with no entry: quantized
    // without importance. token_embd and output are normal members of this list.
    std::vector<std::string> uncoveredTensors;

    bool hasErrors() const;
    std::size_t count(ImatrixSeverity severity) const;
};

struct TensorInfo;
// A 2-D or 3-D tensor named "*.weight": what an imatrix entry is for (uncoveredTensors lists those without one).
bool isMatrixWeight(const TensorInfo& tensor);

// Content checks only.
ImatrixValidation validateImatrix(const ImportanceMatrix& matrix);
// Content checks plus the model; binds every entry that matches a tensor to its ne[0]. Whether
// the matrix may be used with the model: an error here refuses it (core/imatrix/ImatrixForModel.h).
ImatrixValidation validateImatrix(ImportanceMatrix& matrix, const Model& model);

}  // namespace gguf
