#include "ui/session/TensorContradiction.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace {
// One fact the tensors fix: `tensor`'s dimension `dimension`. The first existing tensor of the
// list decides (a dense and a mixture-of-experts layout name their tensors differently).
struct TensorFact {
    std::string_view suffix;  // the key after "<arch>."; empty: `fullKey`
    std::string_view fullKey;
    std::initializer_list<std::string_view> tensors;
    int dimension;
    std::string_view what;  // how the dimension reads in a sentence
};

const TensorFact kFacts[] = {
    {"embedding_length", {}, {"token_embd.weight", "output.weight"}, 0, "wide"},
    {"vocab_size", {}, {"token_embd.weight", "output.weight"}, 1, "rows (tokens) long"},
    {{}, "tokenizer.ggml.tokens", {"token_embd.weight", "output.weight"}, 1, "rows (tokens) long"},
    {"feed_forward_length", {}, {"blk.0.ffn_up.weight", "blk.0.ffn_gate.weight"}, 1, "rows high"},
    {"expert_feed_forward_length", {}, {"blk.0.ffn_up_exps.weight", "blk.0.ffn_gate_exps.weight"}, 1, "rows high"},
    {"expert_count", {}, {"blk.0.ffn_gate_inp.weight", "blk.0.ffn_up_exps.weight"}, -1, "experts"},
};

// Layers: one more than the largest N of a tensor named blk.N.…
std::optional<std::uint64_t> layerCount(const gguf::Model& model)
{
    std::optional<std::uint64_t> count;
    for (const gguf::TensorInfo& tensor : model.tensors()) {
        const std::string_view name = tensor.name;
        if (!name.starts_with("blk."))
            continue;
        std::uint64_t layer = 0;
        const auto [end, error] = std::from_chars(name.data() + 4, name.data() + name.size(), layer);
        if (error == std::errc() && end < name.data() + name.size() && *end == '.')
            count = std::max(count.value_or(0), layer + 1);
    }
    return count;
}
}  // namespace

std::string tensorContradiction(const gguf::Model& model, std::string_view architecture, std::string_view key, std::uint64_t value)
{
    const bool archKey = !architecture.empty() && key.size() > architecture.size() + 1 && key.starts_with(architecture)
                         && key[architecture.size()] == '.';
    const std::string_view suffix = archKey ? key.substr(architecture.size() + 1) : std::string_view{};
    if (suffix == "block_count") {
        const auto layers = layerCount(model);
        if (layers && *layers != value)
            return "the tensors have " + std::to_string(*layers) + " layers (blk.0 … blk." + std::to_string(*layers - 1) + ")";
        return {};
    }
    for (const TensorFact& fact : kFacts) {
        if (fact.suffix.empty() ? key != fact.fullKey : suffix != fact.suffix)
            continue;
        for (const std::string_view name : fact.tensors) {
            const gguf::TensorInfo* tensor = model.findTensor(name);
            if (!tensor)
                continue;
            // Experts: ffn_gate_inp is [n_embd, n_expert]; the stacked experts are [.., .., n_expert].
            const int dimension = fact.dimension >= 0 ? fact.dimension : (name.ends_with("ffn_gate_inp.weight") ? 1 : 2);
            const auto actual = static_cast<std::uint64_t>(tensor->ne[static_cast<std::size_t>(dimension)]);
            if (actual == value)
                return {};
            return std::string(name) + " is " + std::to_string(actual) + " " + std::string(fact.what);
        }
    }
    return {};
}
