#pragma once
// Which type each tensor gets when a model is quantized to one target type, decided the way
// llama.cpp's llama-quantize decides for a "pure" quantization: only weight matrices are
// quantized; 1-D tensors, norms, MoE routers and a few small special tensors keep their type;
// a row length that does not fit the target's block falls back to a type that fits.
// Conversion and the comparison's "simulate" mode both use this, so a simulated quantization
// is exactly what `convert` would write.

#include "core/types/GgmlType.h"
#include "core/gguf/TensorInfo.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gguf {

// llama.cpp's tensor_allows_quantization (llama-quant.cpp) for default parameters: the name ends
// in "weight", the tensor has 2 or more dimensions, and it is not a norm, an MoE router
// (ffn_gate_inp), a position / token-type embedding or one of the small conv / RWKV / altup
// tensors llama.cpp leaves alone.
bool llamaQuantizesTensor(std::string_view name, std::uint32_t nDims);

struct TensorTarget {
    bool quantize = false;      // false: the tensor is kept as it is (bytes copied)
    std::uint32_t typeId = 0;   // the type it ends up in
    std::string note;           // why it is kept or why it falls back; empty for a plain quantization
};

// The type `tensor` gets when its model is quantized to `targetType`. `selected` is false for
// tensors a user's filter (e.g. convert --tensors) leaves out: those are kept.
TensorTarget chooseTensorTarget(const TensorInfo& tensor, std::uint32_t targetType, bool selected = true);

// llama.cpp's llama_ftype for a file whose weights are all `typeId` (general.file_type, the
// type row's llamaFileType), using the "_M" variant for Q3_K, Q4_K and Q5_K as the fixtures do.
// nullopt for types without one.
std::optional<std::uint32_t> llamaFileType(std::uint32_t typeId);

}  // namespace gguf
