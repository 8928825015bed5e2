#pragma once
// Runs a model on a token sequence: the logits at every position, the residual stream after
// every layer (llama.cpp's `l_out-<il>`) and, for MoE models, which experts each token went to.
// Streamed: the weights of one step of one layer (attention, or one expert's FFN) are
// dequantized to f32, used and dropped, so the memory held is about that plus the activations,
// whatever the model size. One pass serves every architecture with a BlockDescription.

#include "core/base/Result.h"
#include "core/forward/MatmulInputObserver.h"
#include "core/forward/ModelHyperparameters.h"
#include "core/forward/WeightLoader.h"
#include "core/gguf/Model.h"
#include "core/types/KvCacheSettings.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace gguf {

// Sequences longer than this are refused: attention keeps one [tokens, tokens] score matrix.
inline constexpr std::int64_t kMaxForwardTokens = 16384;

struct ForwardOptions {
    // What the activations go through before each product (ActivationRounding.h): by default
    // all of llama.cpp's CPU rounding (q8 activations into quantized weights, f16 into f16
    // weights, its attention and activation functions), so that a pass gives llama.cpp's logits.
    ActivationArithmetic activations = ActivationArithmetic::LlamaCpp;
    // All of llama.cpp's rounding, its attention and activation functions included.
    bool emulatesLlamaCpp() const { return activations == ActivationArithmetic::LlamaCpp; }
    // llama.cpp's KV cache in its arithmetic (GgmlAttention.h): K and V rounded to these types
    // as they are stored, attention summed with or without flash attention. The defaults are
    // llama.cpp's (f16, flash attention auto = on for the CPU). The other arithmetics keep f32
    // keys and values and plain f32 attention (effectiveKvCache).
    KvCacheSettings kvCache;
    KvCacheSettings effectiveKvCache() const
    {
        return emulatesLlamaCpp() ? kvCache : KvCacheSettings{0, 0, FlashAttention::Off};
    }
    // How many of this sequence's queries llama.cpp evaluates in one ubatch: which of its
    // attention kernels sums a query depends on that count (GgmlAttention.h, ubatchQueries).
    // 512 for a sequence decoded alone (llama.cpp's default -ub); llama-perplexity's chunks
    // share their ubatches (llamaPerplexityUbatch, OutputComparisonRun.h).
    std::int64_t ubatchQueries = 512;
    // Matrix products summed in double (cblas_dgemm), the slow exact mode; by default they are
    // summed in float lanes in ggml's order, or with cblas_sgemm when accumulateWithBlas is set
    // (MatrixProduct.h).
    bool accumulateInDouble = false;
    bool accumulateWithBlas = false;
    bool keepHiddenStates = true;
    WeightTransform transform;                  // e.g. simulate a quantization; may be empty
    // Where the products and dequantization run (the CLI's ParallelRows, the GUI's job pool);
    // null: the calling thread alone. The result does not depend on it.
    TaskExecutor* executor = nullptr;
    const std::atomic<bool>* cancel = nullptr;  // set to stop between steps: the pass fails "cancelled"
    // Called after each layer (and once after the output) with done / total steps.
    std::function<void(std::int64_t done, std::int64_t total)> progress;
    // Resume a pass at layer `firstLayer` from `startResidual`, the residual stream entering it
    // ([tokens, embedding]: hiddenAt(firstLayer - 1) of an earlier run over the same tokens).
    // The embedding and the layers before it are not run; firstLayer == the layer count runs
    // only the output. With the same weights below firstLayer the logits equal a whole pass's
    // bit for bit, so a change to the weights of layer L and up costs only layers L.. .
    std::int64_t firstLayer = 0;
    std::span<const float> startResidual;
    // Logits only from this position on; the rows before it stay zero. The output matrix (the
    // vocabulary's rows, often the largest product of the pass) is then multiplied only for the
    // positions a caller reads: a KLD over 512-token chunks scores the second half, as
    // llama-perplexity does (it asks for those logits alone). Each position's logits are
    // computed as in a whole pass, so they equal it bit for bit. The last layer runs only for
    // these positions too (the others reach no logit; llama.cpp prunes that layer's FFN rows the
    // same way), apart from its keys and values: that layer's hidden state and experts before it
    // are the residual entering the layer and -1.
    std::int64_t firstLogitPosition = 0;
    // Shown the input of every product with a weight matrix (MatmulInputObserver.h); may be null.
    // With one, the last layer runs for every position whatever firstLogitPosition says (the
    // products llama-imatrix sees); the output head still starts at firstLogitPosition.
    MatmulInputObserver* matmulInputs = nullptr;
};

// What a pass's attention is, for a result to name: in llama.cpp's arithmetic its cache and
// flash attention ("K f16, V f16, flash attention on"), else "K f32, V f32, plain f32 attention".
std::string attentionArithmeticName(const ForwardOptions& options);

struct ForwardResult {
    ModelHyperparameters hyperparameters;
    std::int64_t tokenCount = 0;
    std::vector<float> logits;  // [tokens, vocabulary]; zero before ForwardOptions::firstLogitPosition
    // [layers, tokens, embedding] (empty unless keepHiddenStates); from firstLayer on; the last
    // layer's rows complete from ForwardOptions::firstLogitPosition on.
    std::vector<float> hidden;
    // MoE only: [layers, tokens, expertUsedCount] expert ids, highest router probability first;
    // -1 for the leading dense layers of an MoE model (and in the last layer before
    // ForwardOptions::firstLogitPosition).
    std::vector<std::int32_t> selectedExperts;
    std::uint64_t peakWeightBytes = 0;  // most f32 weight bytes held at one time

    std::span<const float> logitsAt(std::int64_t position) const;
    std::span<const float> hiddenAt(std::int64_t layer) const;  // [tokens, embedding]
};

Result<ForwardResult> runForward(const Model& model, std::span<const std::int32_t> tokens, const ForwardOptions& options = {});

// The text of the cancellation error, so callers can tell it from a failure.
inline constexpr const char* kForwardCancelled = "cancelled";

}  // namespace gguf
