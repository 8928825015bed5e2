#include "core/recipe/RecipeGrid.h"

#include <algorithm>
#include <map>

namespace gguf {

namespace {

// Columns in the order a reader of a transformer block expects them.
constexpr std::string_view kRoleOrder[] = {
    "token_embd", "per_layer_token_embd", "output_norm", "output",
    "attn_norm", "attn_q", "attn_k", "attn_v", "attn_qkv", "attn_kv_b", "attn_output",
    "ffn_norm", "ffn_gate_inp", "ffn_gate", "ffn_up", "ffn_down",
    "ffn_gate_exps", "ffn_up_exps", "ffn_down_exps", "ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp",
};

std::size_t roleRank(const std::string& role)
{
    const auto* found = std::find(std::begin(kRoleOrder), std::end(kRoleOrder), role);
    return static_cast<std::size_t>(found - std::begin(kRoleOrder));
}

}  // namespace

std::string tensorRole(std::string_view name, int& layer)
{
    layer = RecipeGrid::kNoLayer;
    std::string_view rest = name;
    if (rest.substr(0, 4) == "blk.") {
        std::size_t at = 4;
        long long number = 0;
        while (at < rest.size() && rest[at] >= '0' && rest[at] <= '9' && number < 100000000)
            number = number * 10 + (rest[at++] - '0');
        if (at > 4 && at < rest.size() && rest[at] == '.') {
            layer = static_cast<int>(number);
            rest = rest.substr(at + 1);
        }
    }
    constexpr std::string_view kWeight = ".weight";
    if (rest.size() > kWeight.size() && rest.substr(rest.size() - kWeight.size()) == kWeight)
        rest = rest.substr(0, rest.size() - kWeight.size());
    return std::string(rest);
}

const GridTensor* RecipeGrid::at(std::size_t row, std::size_t column) const
{
    if (row >= cells.size() || column >= cells[row].size() || !cells[row][column])
        return nullptr;
    return &tensors[*cells[row][column]];
}

std::string RecipeGrid::layerLabel(std::size_t row) const
{
    return layers[row] == kNoLayer ? std::string("model") : "blk." + std::to_string(layers[row]);
}

RecipeGrid buildRecipeGrid(std::vector<GridTensor> tensors)
{
    RecipeGrid grid;
    std::vector<std::pair<int, std::string>> placement;
    std::map<std::string, std::size_t> firstSeen;
    std::vector<int> layers;
    for (const GridTensor& tensor : tensors) {
        int layer = 0;
        std::string role = tensorRole(tensor.name, layer);
        firstSeen.emplace(role, firstSeen.size());
        layers.push_back(layer);
        placement.emplace_back(layer, std::move(role));
    }
    for (const auto& [role, seen] : firstSeen)
        grid.roles.push_back(role);
    std::sort(grid.roles.begin(), grid.roles.end(), [&](const std::string& a, const std::string& b) {
        const std::size_t ra = roleRank(a), rb = roleRank(b);
        return ra != rb ? ra < rb : firstSeen[a] < firstSeen[b];
    });
    std::sort(layers.begin(), layers.end());
    layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
    grid.layers = layers;

    grid.cells.assign(grid.layers.size(), std::vector<std::optional<std::size_t>>(grid.roles.size()));
    grid.roleTotals.assign(grid.roles.size(), {});
    grid.layerTotals.assign(grid.layers.size(), {});
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const auto row = static_cast<std::size_t>(std::lower_bound(grid.layers.begin(), grid.layers.end(), placement[i].first) - grid.layers.begin());
        const auto column = static_cast<std::size_t>(std::find(grid.roles.begin(), grid.roles.end(), placement[i].second) - grid.roles.begin());
        // Two tensors with one role in one layer cannot happen with unique names; keep the first.
        if (!grid.cells[row][column])
            grid.cells[row][column] = i;
        for (GridTotal* total : {&grid.roleTotals[column], &grid.layerTotals[row], &grid.total}) {
            total->bytes += tensors[i].bytes;
            total->elements += tensors[i].elements;
        }
    }
    grid.tensors = std::move(tensors);
    return grid;
}

RecipeGrid storedGrid(const Model& model)
{
    std::vector<GridTensor> tensors;
    for (const TensorInfo& tensor : model.tensors())
        tensors.push_back({std::string(tensor.name), tensor.typeId, tensor.nbytes, tensor.elementCount()});
    return buildRecipeGrid(std::move(tensors));
}

RecipeGrid recipeGrid(const Recipe& recipe)
{
    std::vector<GridTensor> tensors;
    for (const RecipeTensor& tensor : recipe.tensors)
        tensors.push_back({std::string(tensor.source->name), tensor.typeId, tensor.bytes, tensor.source->elementCount()});
    return buildRecipeGrid(std::move(tensors));
}

}  // namespace gguf
