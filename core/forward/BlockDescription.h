#pragma once
// What one architecture's transformer block is, as data: the shared pass (ForwardPass.cpp) reads
// this and never branches on an architecture name. Adding an architecture whose block is a
// variation of the llama block (qwen2: biases and NEOX RoPE; qwen3: q/k norms) is one new
// Arch<Name>.cpp file that fills this in, plus its line in ArchitectureList.cpp.

#include <string_view>
#include <vector>

namespace gguf {

// How RoPE pairs the dimensions of a head (ggml's rope modes).
enum class RopePairing {
    Adjacent,  // LLAMA_ROPE_TYPE_NORM: (x[2i], x[2i+1])
    Halves,    // LLAMA_ROPE_TYPE_NEOX: (x[i], x[i + n_rot/2])
};

enum class ExpertGating {
    Softmax,  // softmax over all experts, then top-k of the probabilities
};

struct BlockDescription {
    std::string_view architecture;  // general.architecture value this block serves
    RopePairing rope = RopePairing::Adjacent;
    ExpertGating gating = ExpertGating::Softmax;
    // llama.cpp's build_moe_ffn `norm_w`: divide the selected experts' weights by their sum
    // (clamped below at 6.103515625e-5, the smallest normal f16).
    bool normalizeExpertWeights = true;
    // Optional tensors the pass uses when the file has them (a missing one is simply skipped):
    // biases on q/k/v/output and per-head RMSNorm of q and k before RoPE.
    bool allowsProjectionBiases = false;
    bool allowsQkNorm = false;
};

// One function per Arch*.cpp file; ArchitectureList.cpp lists them (an explicit list, since a
// self-registering object in a static library is dropped by the linker when nothing names it).
const BlockDescription& llamaBlockDescription();

// The block for an architecture name, or nullptr when no file describes it.
const BlockDescription* findBlockDescription(std::string_view architecture);
// Every registered architecture, for error messages ("supported: llama").
std::vector<std::string_view> supportedArchitectures();

}  // namespace gguf
