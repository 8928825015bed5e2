#pragma once
// Reading an importance matrix to quantize one model with (llama-quantize --imatrix, the
// recipe's conversion, the planner, simulated comparisons): either file format, validated
// against the model, which binds legacy entries per expert, and refused when validation finds
// an error, as llama-quantize refuses it. The CLI (app/cli/ImatrixOption.h) and the GUI (the
// Recipe page) read such a matrix through this one function.

#include "core/base/Result.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <memory>
#include <string>

namespace gguf {

class Model;

struct ImatrixForModel {
    std::shared_ptr<const ImportanceMatrix> matrix;  // bound to the model
    ImatrixValidation validation;                    // warnings and notes; never an error
};

// The rule every reader above applies to a matrix already read: validated against `model`
// (which binds legacy entries per expert) and refused at the first error ("the importance
// matrix does not fit the model: " and that error). Returns the warnings and notes.
Result<ImatrixValidation> fitImatrixToModel(ImportanceMatrix& matrix, const Model& model);

// The matrix at `path` for `model`; fails when it cannot be read ("cannot read the importance
// matrix: ...") or does not fit ("the importance matrix does not fit the model: " and the first
// error). For a worker thread: reads the whole file.
Result<ImatrixForModel> loadImatrixForModel(const std::string& path, const Model& model);

}  // namespace gguf
