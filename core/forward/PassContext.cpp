#include "core/forward/PassContext.h"

#include "core/forward/ForwardOps.h"
#include "core/forward/MatmulInputObserver.h"

#include <algorithm>

namespace gguf {

std::string layerTensorName(std::int64_t layer, const char* name, const char* suffix)
{
    return "blk." + std::to_string(layer) + "." + name + "." + suffix;
}

Error forwardError(const PassContext& context, std::string message)
{
    return Error{std::move(message), Error::kNoOffset, context.loader.model().primary().path()};
}

PassContext::PassContext(const Model& model, const ModelHyperparameters& hyperparameters, const ForwardOptions& passOptions)
    : h(hyperparameters), options(passOptions), loader(model, passOptions.transform, passOptions.activations, passOptions.executor),
      accumulation(passOptions.accumulateInDouble   ? Accumulation::Double
                   : passOptions.accumulateWithBlas ? Accumulation::Float
                                                    : Accumulation::Lanes)
{
    loader.setDeferMatrices(accumulation == Accumulation::Lanes);
}

void PassContext::recycle(std::initializer_list<Result<WeightMatrix>*> matrices)
{
    for (Result<WeightMatrix>* m : matrices)
        if (*m)
            loader.recycle(std::move(m->value()));
}

Result<WeightMatrix> PassContext::layerWeight(std::int64_t layer, const char* name, std::array<std::int64_t, 3> ne, bool required)
{
    return loader.load(layerTensorName(layer, name), ne, required);
}

Result<WeightMatrix> PassContext::layerBias(std::int64_t layer, const char* name, std::int64_t length)
{
    return loader.load(layerTensorName(layer, name, "bias"), {length, 1, 1}, false);
}

namespace {

// y = x W^T (+ bias) for `rows` rows of x, into y (row stride weight.rows).
void projectInto(const float* x, std::int64_t rows, const WeightMatrix& weight, const WeightMatrix& bias, Accumulation accumulation,
                 float* y)
{
    multiplyWeights(x, rows, weight, accumulation, y);
    if (!bias.present())
        return;
    const float* b = bias.data();
    for (std::int64_t t = 0; t < rows; ++t)
        for (std::int64_t i = 0; i < weight.rows; ++i)
            y[t * weight.rows + i] += b[i];
}

}  // namespace

void PassContext::project(const std::vector<float>& x, std::int64_t rows, const WeightMatrix& weight, const WeightMatrix& bias,
                          std::vector<float>& y) const
{
    y.assign(static_cast<std::size_t>(rows * weight.rows), 0.0f);
    observeProduct(options.matmulInputs, weight.tensorName, x.data(), rows, weight.columns);
    projectInto(x.data(), rows, weight, bias, accumulation, y.data());
}

void PassContext::projectRowsFrom(const std::vector<float>& x, std::int64_t from, const WeightMatrix& weight, const WeightMatrix& bias,
                                  std::vector<float>& y) const
{
    y.assign(static_cast<std::size_t>(tokens * weight.rows), 0.0f);
    from = std::max<std::int64_t>(from, 0);
    observeProduct(options.matmulInputs, weight.tensorName, x.data() + from * weight.columns, tokens - from, weight.columns);
    projectInto(x.data() + from * weight.columns, tokens - from, weight, bias, accumulation, y.data() + from * weight.rows);
}

std::int64_t PassContext::rowsReachingLogitsFrom(std::int64_t layer) const
{
    if (layer != h.layerCount - 1 || h.perLayerInputLength > 0 || options.matmulInputs)
        return 0;
    return options.firstLogitPosition;
}

std::vector<float> PassContext::rmsNormed(const std::vector<float>& x, std::int64_t width, const WeightMatrix& weight) const
{
    std::vector<float> y(x.size());
    rmsNormRows(x.data(), static_cast<std::int64_t>(x.size()) / width, width, weight.view(), h.rmsEpsilon, y.data());
    return y;
}

Result<std::vector<float>> PassContext::layerNormed(std::int64_t layer, const char* name, const std::vector<float>& x)
{
    auto norm = layerWeight(layer, name, {h.embeddingLength, 1, 1});
    if (!norm)
        return norm.error();
    std::vector<float> y = rmsNormed(x, h.embeddingLength, *norm);
    recycle({&norm});
    return y;
}

}  // namespace gguf
