#include "core/forward/PerLayerInputStep.h"

#include "core/forward/FeedForwardStep.h"
#include "core/forward/ForwardOps.h"

#include <cmath>

namespace gguf {

namespace {

// ggml_gelu (the f16 table, exact outside (-10, 10)) in place: the gated form with an up of 1.
void gelu(std::vector<float>& x)
{
    const std::vector<float> ones(x.size(), 1.0f);
    geglu(x.data(), ones.data(), x.size());
}

}  // namespace

Status preparePerLayerInputs(PassContext& c, std::span<const std::int32_t> tokens, const std::vector<float>& embedded)
{
    const auto& h = c.h;
    const std::int64_t n = h.perLayerInputLength;
    if (n <= 0)
        return Ok{};
    const std::int64_t layers = h.layerCount;
    const std::int64_t width = h.embeddingLength;
    const std::int64_t all = n * layers;
    const std::string tableName = "per_layer_token_embd.weight";
    const TensorInfo* table = c.loader.model().findTensor(tableName);
    if (!table || table->nDims != 2 || table->ne[0] != all || table->ne[1] != h.vocabularySize)
        return forwardError(c, "the forward pass needs tensor " + tableName + " of shape [" + std::to_string(all) + ", "
                                   + std::to_string(h.vocabularySize) + "] (embedding_length_per_layer_input x layers, vocabulary)");
    // The projection of the embeddings, per layer chunk normed.
    auto projection = c.loader.load("per_layer_model_proj.weight", {width, all, 1});
    if (!projection)
        return projection.error();
    c.noteHeld(projection->heldBytes());
    std::vector<float> projected;
    c.project(embedded, c.tokens, *projection, WeightMatrix{}, projected);
    c.recycle({&projection});
    const float projectionScale = 1.0f / std::sqrt(static_cast<float>(width));
    for (float& x : projected)
        x *= projectionScale;
    auto norm = c.loader.load("per_layer_proj_norm.weight", {n, 1, 1});
    if (!norm)
        return norm.error();
    rmsNormRows(projected.data(), c.tokens * layers, n, norm->view(), h.rmsEpsilon, projected.data());
    c.recycle({&norm});

    const float tableScale = std::sqrt(static_cast<float>(n));
    const float inputScale = 1.0f / std::sqrt(2.0f);
    c.perLayerInputs.assign(static_cast<std::size_t>(layers * c.tokens * n), 0.0f);
    for (std::int64_t t = 0; t < c.tokens; ++t) {
        const auto id = static_cast<std::uint64_t>(tokens[static_cast<std::size_t>(t)]);
        auto row = c.loader.loadRows(tableName, all, id, id + 1);
        if (!row)
            return row.error();
        const float* selected = row->data();
        for (std::int64_t il = 0; il < layers; ++il)
            for (std::int64_t i = 0; i < n; ++i) {
                const float fromTable = selected[il * n + i] * tableScale;
                const float sum = projected[static_cast<std::size_t>(t * all + il * n + i)] + fromTable;
                c.perLayerInputs[static_cast<std::size_t>((il * c.tokens + t) * n + i)] = sum * inputScale;
            }
        c.loader.recycle(std::move(*row));
    }
    return Ok{};
}

Status finishLayer(PassContext& c, std::int64_t layer, std::vector<float>& residual)
{
    const auto& h = c.h;
    const std::int64_t width = h.embeddingLength;
    const std::int64_t n = h.perLayerInputLength;
    if (n > 0) {
        if (c.perLayerInputs.size() != static_cast<std::size_t>(h.layerCount * c.tokens * n))
            return forwardError(c, "the per-layer inputs were not prepared for this pass");
        auto gate = c.layerWeight(layer, "inp_gate", {width, n, 1});
        if (!gate)
            return gate.error();
        c.noteHeld(gate->heldBytes());
        std::vector<float> g;
        c.project(residual, c.tokens, *gate, WeightMatrix{}, g);
        c.recycle({&gate});
        gelu(g);
        const float* input = c.perLayerInputs.data() + layer * c.tokens * n;
        for (std::size_t i = 0; i < g.size(); ++i)
            g[i] *= input[i];
        auto projection = c.layerWeight(layer, "proj", {n, width, 1});
        if (!projection)
            return projection.error();
        c.noteHeld(projection->heldBytes());
        std::vector<float> p;
        c.project(g, c.tokens, *projection, WeightMatrix{}, p);
        c.recycle({&projection});
        auto normed = c.layerNormed(layer, "post_norm", p);
        if (!normed)
            return normed.error();
        for (std::size_t i = 0; i < residual.size(); ++i)
            residual[i] = residual[i] + (*normed)[i];
    }
    if (h.block->allowsLayerOutputScale) {
        auto scale = c.layerWeight(layer, "layer_output_scale", {1, 1, 1}, false);
        if (!scale)
            return scale.error();
        if (scale->present()) {
            const float s = scale->data()[0];
            for (float& x : residual)
                x *= s;
        }
        c.recycle({&scale});
    }
    return Ok{};
}

}  // namespace gguf
