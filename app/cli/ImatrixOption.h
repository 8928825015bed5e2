#pragma once
// --imatrix FILE for the commands that quantize (plan, kld --simulate): read either imatrix
// format, check that it fits the model, and hand the quantizers each expert's weights, as
// convert --type PRESET --imatrix does.

#include "core/gguf/Model.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/RecipeConversion.h"

#include <memory>
#include <string>

// The matrix, or nullptr after reporting why it cannot be used with `model`.
std::shared_ptr<const gguf::ImportanceMatrix> loadImatrixForModelOrReport(const std::string& path, const gguf::Model& model);

// Each tensor's weights for one expert (empty when the matrix has no entry for it).
gguf::ImportanceLookup importanceLookupOf(std::shared_ptr<const gguf::ImportanceMatrix> matrix);
