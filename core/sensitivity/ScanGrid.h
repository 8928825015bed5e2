#pragma once
// A scan's figures laid out for reading: for one candidate type, the groups as layers x roles
// (the rows and columns the recipe grid uses: a "model" row for token_embd and output, then the
// blocks), and the measured groups ranked from the most sensitive (highest mean KLD) to the
// least. A block the scan skipped (a layer stride) is a row of empty cells, not a missing row,
// so the rows keep the model's layer spacing.

#include "core/sensitivity/SensitivityScan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

struct ScanGrid {
    static constexpr std::int64_t kNoLayer = -1;  // token_embd, output
    // The most cells a grid holds: far above any model's layers x roles (an 80-block model with
    // a dozen roles has about a thousand), so that a scan file naming block 1,000,000, or
    // thousands of roles, cannot make the heatmap allocate gigabytes. Past it the rows are the
    // scanned blocks only (`condensed`), and past that the last rows are left out (`truncated`).
    static constexpr std::size_t kMaxCells = std::size_t{1} << 20;

    std::uint32_t type = 0;
    std::vector<std::string> roles;     // columns, in the order the groups first name them
    std::vector<std::int64_t> layers;   // rows: kNoLayer first when present, then every block up to the last scanned
    // cells[row][column]: the probe (index into ScanRecord::probes) of that group at `type`,
    // when the scan has that probe and it is measured.
    std::vector<std::vector<std::optional<std::size_t>>> cells;
    std::size_t measured = 0;
    bool condensed = false;
    bool truncated = false;

    std::string layerLabel(std::size_t row) const;
};

ScanGrid buildScanGrid(const ScanRecord& record, std::uint32_t type);

// The measured probes of `type`, highest mean KLD first (ties: the scan's group order).
std::vector<std::size_t> rankedProbes(const ScanRecord& record, std::uint32_t type);

// The scan's figures as CSV, one line per measured probe in the scan's order: tensor, layer
// (empty outside the blocks), role, type, mean KLD and its standard error, the 10 % trimmed
// mean beside them (empty for a file made before it), top-1 agreement, mean change of the top
// token's probability, positions scored.
std::string scanFiguresCsv(const ScanRecord& record);

}  // namespace gguf
