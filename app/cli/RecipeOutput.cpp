// The tables and JSON members `recipe` prints: the layers x roles grid and the mix summary.

#include "RecipeOutput.h"

#include "ModelOpening.h"
#include "core/base/HumanFormat.h"

#include <algorithm>
#include <cstdio>

std::string bpwText(double bpw)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", bpw);
    return text;
}

std::string padded(const std::string& text, std::size_t width)
{
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// Columns are padded; the ends of lines are not.
std::string withoutTrailingSpaces(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == '\n')
            while (!out.empty() && out.back() == ' ')
                out.pop_back();
        out += c;
    }
    return out;
}

std::string gridText(const gguf::RecipeGrid& grid)
{
    std::vector<std::size_t> widths;
    for (std::size_t c = 0; c < grid.roles.size(); ++c) {
        std::size_t width = std::max<std::size_t>(grid.roles[c].size(), 9);
        for (std::size_t r = 0; r < grid.layers.size(); ++r)
            if (const auto* cell = grid.at(r, c))
                width = std::max(width, gguf::typeName(cell->typeId).size());
        widths.push_back(width);
    }
    std::string text = padded("layer", 9);
    for (std::size_t c = 0; c < grid.roles.size(); ++c)
        text += "  " + padded(shown(grid.roles[c]), widths[c]);
    text += "  " + padded("bytes", 10) + "  bpw\n";
    for (std::size_t r = 0; r < grid.layers.size(); ++r) {
        text += padded(grid.layerLabel(r), 9);
        for (std::size_t c = 0; c < grid.roles.size(); ++c) {
            const auto* cell = grid.at(r, c);
            text += "  " + padded(cell ? gguf::typeName(cell->typeId) : "-", widths[c]);
        }
        text += "  " + padded(gguf::formatBytes(grid.layerTotals[r].bytes), 10) + "  " + bpwText(grid.layerTotals[r].bitsPerWeight()) + "\n";
    }
    text += padded("bytes", 9);
    for (std::size_t c = 0; c < grid.roles.size(); ++c)
        text += "  " + padded(gguf::formatBytes(grid.roleTotals[c].bytes), widths[c]);
    text += "\n" + padded("bpw", 9);
    for (std::size_t c = 0; c < grid.roles.size(); ++c)
        text += "  " + padded(bpwText(grid.roleTotals[c].bitsPerWeight()), widths[c]);
    text += "\ntotal: " + gguf::formatBytes(grid.total.bytes) + " (" + gguf::formatGrouped(grid.total.bytes) + " bytes) of tensor data, "
          + gguf::formatCount(grid.total.elements) + " weights, " + bpwText(grid.total.bitsPerWeight()) + " bits per weight\n";
    return text;
}

void writeGridJson(gguf::JsonWriter& json, const gguf::RecipeGrid& grid)
{
    json.beginObject();
    json.key("roles");
    json.beginArray();
    for (const std::string& role : grid.roles)
        json.value(role);
    json.endArray();
    json.key("layers");
    json.beginArray();
    for (std::size_t r = 0; r < grid.layers.size(); ++r) {
        json.beginObject();
        json.key("layer");
        json.value(grid.layerLabel(r));
        json.key("bytes");
        json.value(grid.layerTotals[r].bytes);
        json.key("bits_per_weight");
        json.value(grid.layerTotals[r].bitsPerWeight());
        json.key("cells");
        json.beginObject();
        for (std::size_t c = 0; c < grid.roles.size(); ++c) {
            const auto* cell = grid.at(r, c);
            if (!cell)
                continue;
            json.key(grid.roles[c]);
            json.beginObject();
            json.key("tensor");
            json.value(cell->name);
            json.key("type");
            json.value(gguf::typeName(cell->typeId));
            json.key("bytes");
            json.value(cell->bytes);
            json.key("bits_per_weight");
            json.value(cell->elements ? 8.0 * double(cell->bytes) / double(cell->elements) : 0.0);
            json.endObject();
        }
        json.endObject();
        json.endObject();
    }
    json.endArray();
    json.key("role_totals");
    json.beginObject();
    for (std::size_t c = 0; c < grid.roles.size(); ++c) {
        json.key(grid.roles[c]);
        json.beginObject();
        json.key("bytes");
        json.value(grid.roleTotals[c].bytes);
        json.key("bits_per_weight");
        json.value(grid.roleTotals[c].bitsPerWeight());
        json.endObject();
    }
    json.endObject();
    json.key("bytes");
    json.value(grid.total.bytes);
    json.key("elements");
    json.value(grid.total.elements);
    json.key("bits_per_weight");
    json.value(grid.total.bitsPerWeight());
    json.endObject();
}

void writeMixJson(gguf::JsonWriter& json, const gguf::MixSummary& mix)
{
    json.key("mix");
    json.beginObject();
    json.key("label");
    json.value(mix.label);
    json.key("nominal_type");
    json.value(gguf::typeName(mix.nominalType));
    json.key("nominal_bits_per_weight");
    json.value(mix.nominalBitsPerWeight);
    json.key("effective_bits_per_weight");
    json.value(mix.effectiveBitsPerWeight);
    json.key("quantized_bits_per_weight");
    json.value(mix.quantizedBitsPerWeight);
    json.key("fallbacks");
    if (!mix.fallbacksKnown) {
        json.null();
    } else {
        json.beginArray();
        for (const gguf::MixFallback& f : mix.fallbacks) {
            json.beginObject();
            json.key("tensor");
            json.value(f.tensor);
            json.key("row_length");
            json.value(f.rowLength);
            json.key("chosen");
            json.value(gguf::typeName(f.chosenType));
            json.key("fallback");
            json.value(gguf::typeName(f.fallbackType));
            json.key("stored");
            json.value(gguf::typeName(f.storedType));
            json.endObject();
        }
        json.endArray();
    }
    json.endObject();
}

std::string mixText(const gguf::MixSummary& mix)
{
    std::string text = "mix: " + shown(mix.label) + "\n";
    text += "  bits per weight: nominal " + bpwText(mix.nominalBitsPerWeight) + " (" + gguf::typeName(mix.nominalType) + "), effective "
          + bpwText(mix.effectiveBitsPerWeight) + " (all tensor data), " + bpwText(mix.quantizedBitsPerWeight) + " over the quantized matrices\n";
    if (!mix.fallbacksKnown) {
        text += "  fallbacks: unknown (no llama-quantize preset to tell which type each tensor was meant to have)\n";
    } else if (mix.fallbacks.empty()) {
        text += "  fallbacks: none (every row fits the blocks of the type llama-quantize chose)\n";
    } else {
        text += "  fell back, their rows fitting no block of the type llama-quantize chose (" + std::to_string(mix.fallbacks.size())
              + " tensors):\n";
        for (const gguf::MixFallback& f : mix.fallbacks)
            text += "    " + padded(shown(f.tensor), 32) + "  row " + padded(std::to_string(f.rowLength), 6) + "  "
                  + padded(gguf::typeName(f.chosenType), 7) + " -> " + padded(gguf::typeName(f.fallbackType), 7)
                  + (f.storedType == f.fallbackType ? std::string() : "  (stored " + gguf::typeName(f.storedType) + ")") + "\n";
    }
    return text;
}

