#pragma once
// Which experts the grid shows, as people type it: "0-7,12" (ranges and single indices, in any
// order, duplicates allowed). Parsing is strict so a typo never silently shows other experts.

#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

// Sorted, distinct expert indices below `expertCount`; nullopt with `error` set for text that is
// not a list of indices and ranges, or names an expert that does not exist.
std::optional<std::vector<std::uint64_t>> parseExpertSelection(const QString& text, std::uint64_t expertCount, QString* error);

// The shortest text that parses back to `experts` (sorted, distinct): {0,1,2,3,7} -> "0-3,7".
QString formatExpertSelection(const std::vector<std::uint64_t>& experts);

// What the grid shows when the user has not chosen: every expert up to `kDefaultShownExperts`,
// else the first that many.
inline constexpr std::uint64_t kDefaultShownExperts = 16;
std::vector<std::uint64_t> defaultExpertSelection(std::uint64_t expertCount);
