#pragma once
// --imatrix FILE for the commands that quantize or weigh by it (convert, recipe, plan, scan,
// kld --simulate, compare): read either imatrix format, check that it fits the model
// (core/imatrix/ImatrixForModel.h, which decides what is refused and what is warned about), warn
// on stderr (as llama-quantize does) when it leaves some of the model's matrices out or some of
// its entries name no tensor of the model, and hand the quantizers each expert's weights.

#include "core/base/JsonWriter.h"
#include "core/gguf/Model.h"
#include "core/imatrix/ImatrixCoverage.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/RecipeConversion.h"

#include <memory>
#include <string>

// The matrix, bound to `model`, or nullptr after reporting why it cannot be used with it. Prints
// the fit's warnings on stderr and fills `coverage` when given; with `validation`, the warnings
// and notes of the check are stored there.
std::shared_ptr<const gguf::ImportanceMatrix> loadImatrixForModelOrReport(const std::string& path, const gguf::Model& model,
                                                                          gguf::ImatrixCoverage* coverage = nullptr,
                                                                          gguf::ImatrixValidation* validation = nullptr);

// "imatrix_coverage": {"matrices": N, "uncovered_count": M, "uncovered": [names]} as a member.
void writeImatrixCoverageJson(gguf::JsonWriter& json, const gguf::ImatrixCoverage& coverage);

// Each tensor's weights for one expert (empty when the matrix has no entry for it).
gguf::ImportanceLookup importanceLookupOf(std::shared_ptr<const gguf::ImportanceMatrix> matrix);
