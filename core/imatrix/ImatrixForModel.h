#pragma once
// Reading an importance matrix to quantize one model with (llama-quantize --imatrix, the
// recipe's conversion, the planner, simulated comparisons, the scan): either file format,
// validated against the model, which binds legacy entries per expert. Every user of a matrix
// with a model goes through fitImatrixToModel, which decides once what is refused and what is
// only warned about:
//   refused: an entry whose row width (or expert count) differs from its tensor's, as
//            llama-quantize refuses it ("imatrix size ... is different from tensor size"); a
//            matrix none of whose entries names a tensor of the model ("this importance matrix
//            is of another model: ..."); unusable numbers (NaN, negative sums, ...);
//   warned:  matrices of the model without an entry (llama-quantize says "did not find weights"
//            and quantizes them blind) and entries that name no tensor of the model, each with
//            the count and the first names.
// The CLI (app/cli/ImatrixOption.h) prints the warnings on stderr; the GUI shows them where the
// matrix was chosen.

#include "core/base/Result.h"
#include "core/imatrix/ImatrixCoverage.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"

#include <memory>
#include <string>
#include <vector>

namespace gguf {

class Model;

// How a matrix that may be used fits the model.
struct ImatrixFit {
    ImatrixValidation validation;  // warnings and notes; never an error
    ImatrixCoverage coverage;      // what the matrix and the model leave each other out
    // What the user is told, one line each (coverage.warnings()).
    std::vector<std::string> warnings() const { return coverage.warnings(); }
};

struct ImatrixForModel {
    std::shared_ptr<const ImportanceMatrix> matrix;  // bound to the model
    ImatrixFit fit;
};

// Why `validation` (of a matrix against a model) refuses the matrix, the text fitImatrixToModel
// fails with; empty when the matrix may be used.
std::string imatrixRefusal(const ImatrixValidation& validation);

// The rule every reader above applies to a matrix already read: validated against `model`
// (which binds legacy entries per expert) and refused at the first error: "this importance
// matrix is of another model: ...", or "the importance matrix does not fit the model: " and the
// error naming the entry (for a width: the tensor, both widths, the byte offset).
Result<ImatrixFit> fitImatrixToModel(ImportanceMatrix& matrix, const Model& model);

// The matrix at `path` for `model`; fails when it cannot be read ("cannot read the importance
// matrix: ...") or is refused by fitImatrixToModel. For a worker thread: reads the whole file.
Result<ImatrixForModel> loadImatrixForModel(const std::string& path, const Model& model);

}  // namespace gguf
