#pragma once
// The per-tensor scales some conversions store beside a weight (ModelOpt's NVFP4 "weight scale 2"
// and "input scale"), as llama.cpp 80fb11a reads them (llama-model.cpp's generic pass after each
// architecture's tensors, and the output matrix's): "<weight>.scale", one f32 per tensor ([1]) or
// per expert ([n_expert]), for the attention, FFN, shared-expert, expert, recurrent and next-token
// matrices, and for an NVFP4 output matrix; llama.cpp multiplies each product by it, right after
// the product (build_lora_mm, build_lora_mm_id). "<weight>.input_scale", of the same shape, is
// loaded and not used by any product.

#include "core/base/Result.h"
#include "core/gguf/TensorInfo.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

// The name of weight `weightName`'s companion with `suffix` ("scale" or "input_scale") when
// llama.cpp looks for one (`weightType`: the weight's type id, which decides for the output
// matrix), else empty.
std::string companionName(std::string_view weightName, std::uint32_t weightType, std::string_view suffix);

// Sets TensorInfo::outputScale of every weight of `tensors` that has a ".scale" companion found
// by `find`.
void linkOutputScales(std::vector<TensorInfo>& tensors, const std::function<const TensorInfo*(std::string_view)>& find);

// What llama.cpp's loader checks of a weight's companions (`find` looks tensors up by name): each
// ".scale" and ".input_scale" there must be f32 of 1 value, or for a 3-D expert weight of ne[2].
Status checkCompanions(const TensorInfo& weight, const std::function<const TensorInfo*(std::string_view)>& find);

// The scale of weight `weight` for its matrix `expert` (0 for a 2-D weight): an f32 companion of
// 1 value (or, for a 3-D expert weight, ne[2] values, one per expert). An error names the scale
// tensor when its type or shape is not that. 1 when the weight has none.
Result<float> outputScaleOf(const TensorInfo& weight, std::uint64_t expert);

// A line for a weight's header (CLI tensors and stats, the GUI's tensor page) naming its
// companions and what is done with them, e.g. "values x 1.25 (blk.0.attn_q.scale): llama.cpp
// multiplies the products by it, the values shown are the stored ones times it; input scale 0.5
// (blk.0.attn_q.input_scale): loaded by llama.cpp, not applied". `expert`: the expert shown of a
// 3-D weight (its own scale), or none (every expert). Empty when the weight has no companion.
std::string companionSummary(const TensorInfo& weight, std::optional<std::uint64_t> expert,
                             const std::function<const TensorInfo*(std::string_view)>& find);

}  // namespace gguf
