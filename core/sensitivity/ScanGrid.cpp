#include "core/sensitivity/ScanGrid.h"

#include "core/types/GgmlType.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace gguf {

namespace {

std::string number(double value)
{
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

// A field that may hold a comma, a quote or a line break (a tensor name from the file).
std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (const char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

}  // namespace

std::string ScanGrid::layerLabel(std::size_t row) const
{
    return layers[row] == kNoLayer ? std::string("model") : "blk." + std::to_string(layers[row]);
}

ScanGrid buildScanGrid(const ScanRecord& record, std::uint32_t type)
{
    ScanGrid grid;
    grid.type = type;
    bool modelRow = false;
    std::int64_t lastLayer = -1;
    std::map<std::string, std::size_t> column;
    std::vector<std::int64_t> scanned;  // the blocks that have groups
    for (const ScanGroup& group : record.groups) {
        if (column.emplace(group.role, grid.roles.size()).second)
            grid.roles.push_back(group.role);
        modelRow |= group.layer < 0;
        lastLayer = std::max(lastLayer, group.layer);
        if (group.layer >= 0)
            scanned.push_back(group.layer);
    }
    const std::size_t maxRows = ScanGrid::kMaxCells / std::max<std::size_t>(grid.roles.size(), 1);
    if (modelRow)
        grid.layers.push_back(ScanGrid::kNoLayer);
    if (std::uint64_t(lastLayer + 1) + grid.layers.size() <= maxRows) {
        for (std::int64_t layer = 0; layer <= lastLayer; ++layer)
            grid.layers.push_back(layer);
    } else {
        std::sort(scanned.begin(), scanned.end());
        scanned.erase(std::unique(scanned.begin(), scanned.end()), scanned.end());
        grid.condensed = true;
        grid.truncated = scanned.size() + grid.layers.size() > maxRows;
        scanned.resize(std::min(scanned.size(), maxRows - std::min(maxRows, grid.layers.size())));
        grid.layers.insert(grid.layers.end(), scanned.begin(), scanned.end());
    }
    grid.cells.assign(grid.layers.size(), std::vector<std::optional<std::size_t>>(grid.roles.size()));
    const auto firstBlockRow = grid.layers.begin() + (modelRow ? 1 : 0);
    for (std::size_t i = 0; i < record.probes.size() && i < record.figures.size(); ++i) {
        if (record.probes[i].type != type || !record.figures[i] || record.probes[i].group >= record.groups.size())
            continue;
        const ScanGroup& group = record.groups[record.probes[i].group];
        const auto found = group.layer < 0 ? grid.layers.begin() : std::lower_bound(firstBlockRow, grid.layers.end(), group.layer);
        if (found == grid.layers.end() || *found != std::max<std::int64_t>(group.layer, ScanGrid::kNoLayer))
            continue;  // a row left out of a truncated grid
        grid.cells[std::size_t(found - grid.layers.begin())][column.at(group.role)] = i;
        ++grid.measured;
    }
    return grid;
}

std::vector<std::size_t> rankedProbes(const ScanRecord& record, std::uint32_t type)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < record.probes.size() && i < record.figures.size(); ++i)
        if (record.probes[i].type == type && record.figures[i])
            out.push_back(i);
    std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return record.figures[a]->meanKld > record.figures[b]->meanKld; });
    return out;
}

std::string scanFiguresCsv(const ScanRecord& record)
{
    std::string text = "tensor,layer,role,type,mean_kld,kld_error,kld_trimmed,same_top,delta_p,positions\n";
    for (std::size_t i = 0; i < record.probes.size() && i < record.figures.size(); ++i) {
        if (!record.figures[i] || record.probes[i].group >= record.groups.size())
            continue;
        const ScanGroup& group = record.groups[record.probes[i].group];
        const ProbeFigures& f = *record.figures[i];
        text += csvField(group.tensor) + "," + (group.layer >= 0 ? std::to_string(group.layer) : std::string()) + "," + csvField(group.role) + ","
              + typeName(record.probes[i].type) + "," + number(f.meanKld) + "," + number(f.kldStandardError) + ","
              + (f.trimmedKld ? number(*f.trimmedKld) : std::string()) + "," + number(f.sameTopFraction)
              + "," + number(f.meanDeltaTopProbability) + "," + std::to_string(f.positions) + "\n";
    }
    return text;
}

}  // namespace gguf
