#pragma once
// --imatrix FILE for the commands that quantize or weigh by it (convert, recipe, plan, scan,
// kld --simulate, compare): read either imatrix format, check that it fits the model
// (core/imatrix/ImatrixForModel.h), and hand the quantizers each expert's weights.

#include "core/gguf/Model.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/RecipeConversion.h"

#include <memory>
#include <string>

// The matrix, bound to `model`, or nullptr after reporting why it cannot be used with it. With
// `validation`, the warnings and notes of the check are stored there.
std::shared_ptr<const gguf::ImportanceMatrix> loadImatrixForModelOrReport(const std::string& path, const gguf::Model& model,
                                                                          gguf::ImatrixValidation* validation = nullptr);

// Each tensor's weights for one expert (empty when the matrix has no entry for it).
gguf::ImportanceLookup importanceLookupOf(std::shared_ptr<const gguf::ImportanceMatrix> matrix);
