#include "core/estimate/ComputeBuffer.h"

#include "core/estimate/ArchitectureGraphs.h"
#include "core/estimate/GraphAllocator.h"

#include <algorithm>

namespace gguf {

GraphBuilder graphBuilderFor(std::string_view architecture)
{
    static constexpr std::pair<std::string_view, GraphBuilder> kBuilders[] = {
        {"llama", buildDecoderGraph},   {"qwen2", buildDecoderGraph},      {"qwen3", buildDecoderGraph},
        {"qwen3moe", buildDecoderGraph}, {"phi3", buildDecoderGraph},      {"glm4moe", buildDecoderGraph},
        {"gpt-oss", buildDecoderGraph}, {"gemma2", buildGemmaGraph},       {"gemma3", buildGemmaGraph},
        {"gemma4", buildGemmaGraph},    {"deepseek2", buildDeepSeekGraph}, {"qwen35", buildQwen35Graph},
        {"qwen35moe", buildQwen35Graph}, {"seed_oss", buildDecoderGraph},
        {"ernie4_5-moe", buildDecoderGraph}, {"hy_v3", buildDecoderGraph},
        {"minimax-m2", buildDecoderGraph}, {"mistral3", buildDecoderGraph},
        {"llama4", buildDecoderGraph}, {"lfm2", buildLfm2Graph},
        {"mimo2", buildDecoderGraph}, {"step35", buildDecoderGraph},
        {"qwen3next", buildQwen35Graph},
    };
    const auto it = std::find_if(std::begin(kBuilders), std::end(kBuilders), [&](const auto& row) { return row.first == architecture; });
    return it == std::end(kBuilders) ? nullptr : it->second;
}

ComputeBufferEstimate estimateComputeBuffer(const Model& model, const EstimateShape& shape, const ComputeBufferInputs& inputs)
{
    ComputeBufferEstimate result;
    const GraphBuilder builder = graphBuilderFor(shape.architecture);
    result.exact = builder != nullptr;

    // Bounds far past any real model that keep every product of two or three of the graph's
    // dimensions below 2^63 (the header's widths are already below 2^24).
    constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 24, kMaxCells = std::uint64_t{1} << 31, kMaxRow = std::uint64_t{1} << 24;
    const bool rowsInBounds = std::all_of(shape.layers.begin(), shape.layers.end(), [&](const EstimateLayer& l) {
        return l.keyRow() <= kMaxRow && l.valueRow() <= kMaxRow && l.heads * std::max(l.keyLength, l.valueLength) <= kMaxRow;
    });
    if (inputs.tokens > kMaxTokens || inputs.fullCells > kMaxCells || inputs.slidingCells > kMaxCells || !rowsInBounds)
        return {0, result.exact, false};

    GraphSettings settings;
    settings.tokens = static_cast<std::int64_t>(inputs.tokens);
    settings.fullCells = static_cast<std::int64_t>(inputs.fullCells);
    settings.slidingCells = static_cast<std::int64_t>(inputs.slidingCells);
    settings.flashAttention = inputs.flashAttention;
    settings.keyType = findType(inputs.keyType);
    settings.valueType = findType(inputs.valueType);
    if (!settings.keyType || !settings.valueType)
        return {0, result.exact, false};

    const GraphHyperparameters hp = readGraphHyperparameters(model, shape);
    ComputeGraph graph;
    LlmGraph llm(graph, model, shape, hp, settings);
    (builder ? builder : buildDecoderGraph)(llm);
    if (graph.overflowed() || !llm.weightsInBounds())
        return {0, result.exact, false};
    result.bytes = reserveGraphBuffer(graph);
    return result;
}

}  // namespace gguf
