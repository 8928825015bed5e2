#pragma once
// One tensor of a recipe's output as the bytes llama-quantize writes for it: re-encoded to its
// chosen type (row chunks quantized in parallel on the executor, written in row order, so the
// bytes do not depend on the thread count) or its stored bytes copied. convertWithRecipe writes
// them into a file; checkProvenance compares them with the bytes of a file that claims to be
// that output. Both check every tensor first with checkRecipeTensor.

#include "core/base/Result.h"
#include "core/gguf/Model.h"
#include "core/quantize/ConversionSteps.h"
#include "core/recipe/RecipeConversion.h"
#include "core/write/ByteSink.h"

namespace gguf {

// Whether `entry` (a tensor of `input`) can be produced with `options`: a known size, a
// dequantizer for its stored type and a quantizer for its target when it is re-encoded, and
// importance weights for a target that requires them. The error names the tensor.
Status checkRecipeTensor(const Model& input, const RecipeTensor& entry, const RecipeConversionOptions& options);

// Writes `entry`'s output bytes to `out`, advancing `progress` by its elements. Re-encoded rows
// go through quantizeRows, with options.importance's weights when it is set.
Status writeRecipeTensor(const RecipeTensor& entry, ByteSink& out, const RecipeConversionOptions& options, ConversionProgress& progress);

}  // namespace gguf
