#pragma once
// Public face of the quantizers: f32 values -> blocks of a target type, byte-identical to ggml's
// ggml_quantize_chunk without an importance matrix. Works on any block-aligned run of values,
// so callers stream tensors through in chunks and pick their own threads.

#include "core/types/GgmlType.h"
#include "core/base/Result.h"

#include <cstdint>
#include <span>
#include <vector>

namespace gguf {

// The quantizer for a type id (its row's TypeTraits::quantize), or nullptr when this build
// cannot produce that type. Available:
// f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_K, q3_K, q4_K, q5_K, q6_K, q8_K, iq4_nl,
// iq4_xs, tq1_0, tq2_0, mxfp4, nvfp4, q1_0, q2_0. canQuantize is also true for iq2_xxs and
// iq2_xs, which only quantizeRows with importance weights can make (findQuantizer: nullptr).
QuantizeBlocksFn findQuantizer(std::uint32_t typeId);
bool canQuantize(std::uint32_t typeId);
// Every type canQuantize accepts, in type-id order (for menus and help texts).
std::vector<const TypeTraits*> quantizableTypes();
// The block-quantized types among them, as the compare dialog offers them for simulation:
// super-block (K-quant) types first, then the others, each group by bits per weight. Types that
// need importance weights (requiresImportance) are left out: simulation has none.
std::vector<const TypeTraits*> simulationTargetTypes();

// Quantizes `values` (a whole number of the type's blocks) into `out`, which must hold exactly
// the matching number of bytes. Fails for types without a quantizer and for misfit sizes.
Status quantizeValues(std::uint32_t typeId, std::span<const float> values, std::span<std::uint8_t> out);

// Quantizes whole rows of `rowLength` values as ggml_quantize_chunk(type, values, rows,
// rowLength, quant_weights) does. `importance` empty: no importance matrix (the same bytes as
// quantizeValues); else exactly rowLength weights for every row (one expert's imatrix row, as
// llama-quantize passes them). Types whose ggml quantizer ignores weights (q8_0, tq1_0, tq2_0,
// mxfp4, nvfp4, q1_0, q2_0, q8_K, f16, bf16, f32) give the same bytes either way. Fails for
// types without a quantizer, misfit sizes, a weight count other than rowLength, and for the
// types ggml cannot make without importance (requiresImportance) when `importance` is empty.
Status quantizeRows(std::uint32_t typeId, std::span<const float> values, std::int64_t rowLength,
                    std::span<const float> importance, std::span<std::uint8_t> out);

// Whether ggml's quantizer for the type reads importance weights at all (q4_0, q4_1, q5_0, q5_1,
// q2_K ... q6_K, iq4_nl, iq4_xs here); for the others quantizeRows ignores them, as ggml does.
bool usesImportance(std::uint32_t typeId);

// ggml_quantize_requires_imatrix: IQ2_XXS, IQ2_XS and IQ1_S cannot be made without importance
// weights (their searches assume them; ggml aborts).
bool requiresImportance(std::uint32_t typeId);

// Bytes that `elementCount` values take in `type` (elementCount must be a multiple of its block).
inline std::uint64_t quantizedSize(const TypeTraits& type, std::uint64_t elementCount)
{
    return elementCount / type.blockSize * type.blockBytes;
}

}  // namespace gguf
