#include "core/imatrix/ExpertRouting.h"

#include "core/experts/ExpertIndex.h"

#include <algorithm>
#include <map>

namespace gguf {

ExpertRouting computeExpertRouting(const ImportanceMatrix& matrix, double rareShare)
{
    ExpertRouting out;
    out.rareShare = rareShare;
    std::map<std::uint32_t, RoutingLayer> byLayer;
    for (const ImportanceEntry& entry : matrix.entries()) {
        if (!entry.routingKnown() || entry.counts.size() < 2 || entry.name.find("_exps") == std::string::npos)
            continue;
        const auto layer = layerOfTensorName(entry.name);
        if (!layer)
            continue;
        const std::vector<double> tokens = entry.tokensPerExpert();
        auto [it, inserted] = byLayer.try_emplace(*layer);
        RoutingLayer& routing = it->second;
        if (inserted) {
            routing.layer = *layer;
            routing.source = entry.name;
            routing.tokens = tokens;
        } else if (routing.tokens != tokens) {
            routing.projectionsDisagree = true;
        }
    }
    for (auto& [layer, routing] : byLayer) {
        for (double t : routing.tokens)
            routing.totalTokens += t;
        out.expertCount = std::max(out.expertCount, routing.tokens.size());
        const double even = routing.totalTokens / static_cast<double>(routing.tokens.size());
        for (std::size_t e = 0; e < routing.tokens.size(); ++e) {
            const double share = even > 0.0 ? routing.tokens[e] / even : 0.0;
            if (routing.tokens[e] <= 0.0 || share < rareShare)
                out.rare.push_back(RarelyRoutedExpert{layer, static_cast<std::uint32_t>(e), routing.tokens[e], share});
        }
        out.layers.push_back(std::move(routing));
    }
    return out;
}

std::vector<EntryCoverage> computeCoverage(const ImportanceMatrix& matrix)
{
    std::vector<EntryCoverage> out;
    out.reserve(matrix.entries().size());
    for (const ImportanceEntry& entry : matrix.entries()) {
        EntryCoverage c;
        c.name = entry.name;
        c.experts = entry.expertCount();
        c.columns = entry.columnCount();
        if (entry.legacy) {
            c.chunks = entry.legacyCalls;
        } else {
            for (float count : entry.counts)
                c.tokens = std::max(c.tokens, static_cast<double>(count));
            c.chunks = matrix.chunkSize() > 0 ? c.tokens / static_cast<double>(matrix.chunkSize()) : 0.0;
        }
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace gguf
