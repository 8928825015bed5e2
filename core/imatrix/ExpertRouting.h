#pragma once
// How often each expert of each MoE layer was routed during calibration, read from the GGUF
// imatrix's per-expert counts, and which experts were never or rarely routed: their importance
// rests on few tokens (or none, when llama-quantize falls back to weight 1), so their
// quantization was close to blind.

#include "core/imatrix/ImportanceMatrix.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct RoutingLayer {
    std::uint32_t layer = 0;
    std::string source;           // the entry the counts come from, e.g. "blk.0.ffn_gate_exps.weight"
    std::vector<double> tokens;   // per expert
    double totalTokens = 0.0;     // over experts: tokens x experts used per token
    bool projectionsDisagree = false;  // the layer's expert entries hold different counts
};

struct RarelyRoutedExpert {
    std::uint32_t layer = 0;
    std::uint32_t expert = 0;
    double tokens = 0.0;
    double shareOfEven = 0.0;  // tokens / (total / experts): 1 = an even share
};

struct ExpertRouting {
    std::vector<RoutingLayer> layers;  // increasing layer; only layers with per-expert counts
    std::size_t expertCount = 0;       // the widest layer
    double rareShare = 0.0;            // an expert is rare below this share of an even split
    std::vector<RarelyRoutedExpert> rare;  // never routed (0 tokens) included, by layer then expert
    bool known() const { return !layers.empty(); }
};

// `rareShare` 0.1: an expert that got less than a tenth of an even split counts as rarely routed.
ExpertRouting computeExpertRouting(const ImportanceMatrix& matrix, double rareShare = 0.1);

// Per entry: the tokens it saw (the largest count) and the chunks they make.
struct EntryCoverage {
    std::string name;
    std::size_t experts = 1;
    std::size_t columns = 0;
    double tokens = 0.0;   // GGUF: max count; legacy: ncall x chunk size is unknown, so 0
    double chunks = 0.0;   // tokens / chunk size (GGUF), ncall (legacy)
};

std::vector<EntryCoverage> computeCoverage(const ImportanceMatrix& matrix);

}  // namespace gguf
