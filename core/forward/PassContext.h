#pragma once
// What every step of one forward pass shares (ForwardPass.cpp runs the steps, AttentionStep.cpp
// and FeedForwardStep.cpp are steps): the hyperparameters, the options, the weight loader and the
// bookkeeping of the weight bytes held.

#include "core/forward/ForwardPass.h"
#include "core/forward/MatrixProduct.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace gguf {

class PassContext {
public:
    PassContext(const Model& model, const ModelHyperparameters& h, const ForwardOptions& options);

    const ModelHyperparameters& h;
    const ForwardOptions& options;
    WeightLoader loader;
    Accumulation accumulation;
    std::int64_t tokens = 0;
    std::uint64_t peakBytes = 0;
    // K and V (normed, rotated) of the layers later layers attend to (shared KV), by layer.
    std::vector<std::vector<float>> keptKeys, keptValues;
    // Per-layer inputs [layers, tokens, perLayerInputLength] (PerLayerInputStep.h), or empty.
    std::vector<float> perLayerInputs;

    bool cancelled() const { return options.cancel && options.cancel->load(); }
    void noteHeld(std::uint64_t bytes) { peakBytes = std::max(peakBytes, bytes + loader.spareBytes()); }
    void recycle(std::initializer_list<Result<WeightMatrix>*> matrices);

    // blk.<layer>.<name>.weight with shape ne (ne[2] = 1 for a matrix); missing is an error when
    // `required`, else an empty matrix.
    Result<WeightMatrix> layerWeight(std::int64_t layer, const char* name, std::array<std::int64_t, 3> ne, bool required = true);
    // blk.<layer>.<name>.bias of `length` values (optional: empty when absent).
    Result<WeightMatrix> layerBias(std::int64_t layer, const char* name, std::int64_t length);

    // y = x W^T (+ bias when present), y sized here: [tokens, weight.rows].
    void project(const std::vector<float>& x, std::int64_t rows, const WeightMatrix& weight, const WeightMatrix& bias, std::vector<float>& y) const;
    // project() of x's rows from `from` on (x [tokens, weight.columns]); y's rows before it are
    // zero. Each row's sums do not depend on the other rows (MatrixProduct.h), so the rows
    // computed are a whole product's bits: the last layer's projections skip the positions that
    // reach no logit (PassContext::rowsReachingLogitsFrom).
    void projectRowsFrom(const std::vector<float>& x, std::int64_t from, const WeightMatrix& weight, const WeightMatrix& bias,
                         std::vector<float>& y) const;
    // The first position of `layer` whose output reaches a logit: ForwardOptions::firstLogitPosition
    // for the last layer, else 0. llama.cpp prunes the last layer's FFN rows the same way
    // (inp_out_ids); the pass also skips that layer's query and output projections for them
    // (on a 2-layer 7B-shaped stack, an eighth of a pass that reads the last position alone).
    // 0 where the per-layer inputs are laid out by the whole pass's token count
    // (PerLayerInputStep.h), and when an observer listens (llama-imatrix's pass asks for every
    // logit, so its last layer multiplies every row; only the output head skips them then).
    std::int64_t rowsReachingLogitsFrom(std::int64_t layer) const;
    // RMSNorm of [rows, width] with the weight (ggml_rms_norm then ggml_mul).
    std::vector<float> rmsNormed(const std::vector<float>& x, std::int64_t width, const WeightMatrix& weight) const;
    // The same with blk.<layer>.<name>.weight loaded, applied and recycled.
    Result<std::vector<float>> layerNormed(std::int64_t layer, const char* name, const std::vector<float>& x);
};

std::string layerTensorName(std::int64_t layer, const char* name, const char* suffix = "weight");

Error forwardError(const PassContext& context, std::string message);

}  // namespace gguf
