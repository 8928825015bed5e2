#include "core/sensitivity/PlanHeldOutCheck.h"

#include "core/forward/ActivationRounding.h"
#include "core/sensitivity/ScanFingerprint.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace gguf {

namespace {

// The types of a mix by tensor name, for an in-memory quantization of it.
std::unordered_map<std::string, std::uint32_t> typesByName(const ErrorTable& table, const Mix& mix)
{
    std::unordered_map<std::string, std::uint32_t> types;
    for (std::size_t t = 0; t < table.tensors.size() && t < mix.types.size(); ++t)
        types.emplace(std::string(table.tensors[t].tensor->name), mix.types[t]);
    return types;
}

ActivationArithmetic arithmeticNamed(const std::string& name)
{
    for (const auto arithmetic : {ActivationArithmetic::Float32, ActivationArithmetic::QuantizedAsLlamaCpp, ActivationArithmetic::LlamaCpp})
        if (name == activationArithmeticName(arithmetic))
            return arithmetic;
    return ActivationArithmetic::QuantizedAsLlamaCpp;
}

bool beginsWithTheScansText(std::span<const std::int32_t> text, const ScanRecord& scan, std::int32_t bos)
{
    if (scan.identity.parts.text.empty() || std::int64_t(text.size()) < scan.identity.tokens)
        return false;
    return tokensFingerprint(text.first(static_cast<std::size_t>(scan.identity.tokens)), bos) == scan.identity.parts.text;
}

}  // namespace

Result<HeldOutResult> measurePlanOnHeldOutText(const Model& model, const ScanRecord& scan, std::span<const std::int32_t> text, const ErrorTable& table,
                                               const Mix& plan, const std::vector<PresetOnFrontier>& presets, const Budget& budget,
                                               const PlanHeldOutRequest& request)
{
    std::int32_t bos = -1;
    if (const auto id = model.metadataUInt("tokenizer.ggml.bos_token_id"); id && *id <= 0x7FFFFFFF)
        bos = static_cast<std::int32_t>(*id);
    const bool pastTheScan = request.source == HeldOutSource::PastTheScan
                          || (request.source == HeldOutSource::Either && beginsWithTheScansText(text, scan, bos));
    auto heldOut = heldOutTokens(text, pastTheScan ? scan.identity.tokens : 0, scan.identity.chunkSize, request.most);
    if (!heldOut)
        return heldOut.error();
    // Held out only if the scan saw exactly the text before it, and never the scan's own tokens.
    if (pastTheScan && !scan.identity.parts.text.empty() && !beginsWithTheScansText(text, scan, bos))
        return Error{"the text is not the one the scan was measured on (its first " + std::to_string(scan.identity.tokens)
                         + " tokens differ): give the scan's text",
                     Error::kNoOffset, {}};
    if (request.source == HeldOutSource::OwnText && beginsWithTheScansText(text, scan, bos))
        return Error{"the text begins with the " + std::to_string(scan.identity.tokens)
                         + " tokens the scan was measured on: they are not held out (measure past the scan's tokens instead)",
                     Error::kNoOffset, {}};
    std::vector<const PresetOnFrontier*> fitting;
    for (const PresetOnFrontier& point : presets)
        if (point.evaluated && fitsBudget(point.mix, budget, table.totalElements))
            fitting.push_back(&point);
    std::sort(fitting.begin(), fitting.end(), [](const auto* a, const auto* b) { return a->mix.fileBytes > b->mix.fileBytes; });
    std::vector<MixToMeasure> mixes{{"plan", typesByName(table, plan)}};
    for (std::size_t i = 0; i < fitting.size() && i < 2; ++i)
        mixes.push_back({std::string(fitting[i]->preset->name), typesByName(table, fitting[i]->mix)});
    HeldOutOptions options;
    options.chunkSize = scan.identity.chunkSize;
    options.bosToken = bos;
    options.activations = arithmeticNamed(scan.identity.activations);
    options.importance = request.importance;
    options.executor = request.executor;
    options.cancel = request.cancel;
    options.progress = request.progress;
    auto measured = measureHeldOut(model, mixes, *heldOut, options);
    if (measured)
        measured->firstToken = pastTheScan ? scan.identity.tokens : 0;
    return measured;
}

}  // namespace gguf
