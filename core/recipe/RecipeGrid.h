#pragma once
// A model's tensors laid out as layers x tensor roles (attn_q, ffn_down_exps, ffn_gate_inp, ...)
// with the type, bytes and bits per weight of each cell, totals per role and per layer and the
// whole model's effective bits per weight. Built from what a file stores or from a recipe (what
// llama-quantize would write), so the two can be shown the same way.

#include "core/gguf/Model.h"
#include "core/recipe/LlamaQuantRecipe.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

struct GridTensor {
    std::string name;
    std::uint32_t typeId = 0;
    std::uint64_t bytes = 0;
    std::uint64_t elements = 0;
};

struct GridTotal {
    std::uint64_t bytes = 0;
    std::uint64_t elements = 0;
    double bitsPerWeight() const { return elements ? 8.0 * double(bytes) / double(elements) : 0.0; }
};

struct RecipeGrid {
    static constexpr int kNoLayer = -1;  // the row of token_embd, output, output_norm, ...

    std::vector<std::string> roles;   // columns: known roles in a fixed order, then others as met
    std::vector<int> layers;          // rows: kNoLayer first when present, then layer numbers ascending
    // cells[row][column]: index into `tensors`, or nullopt for an empty cell.
    std::vector<std::vector<std::optional<std::size_t>>> cells;
    std::vector<GridTensor> tensors;
    std::vector<GridTotal> roleTotals;   // per column
    std::vector<GridTotal> layerTotals;  // per row
    GridTotal total;

    const GridTensor* at(std::size_t row, std::size_t column) const;
    std::string layerLabel(std::size_t row) const;  // "blk.3" or "model"
};

// "attn_q" from "blk.3.attn_q.weight", "token_embd" from "token_embd.weight"; a suffix other
// than ".weight" stays ("attn_q.bias"). `layer` is set to the block number or kNoLayer.
std::string tensorRole(std::string_view name, int& layer);

RecipeGrid buildRecipeGrid(std::vector<GridTensor> tensors);
RecipeGrid storedGrid(const Model& model);
RecipeGrid recipeGrid(const Recipe& recipe);

}  // namespace gguf
