#include "core/sensitivity/ScanLayers.h"

#include "core/base/EscapedText.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

namespace gguf {

namespace {

std::optional<std::int64_t> blockNumber(std::string_view text)
{
    std::int64_t n = 0;
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    std::from_chars(text.data(), text.data() + text.size(), n);
    return n;
}

Error layersError(std::string message)
{
    return Error{std::move(message), Error::kNoOffset, {}};
}

}  // namespace

Result<std::vector<std::int64_t>> parseLayerList(std::string_view text, std::int64_t layerCount)
{
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // [first, last]
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string_view item = text.substr(at, comma - at);
        at = comma + 1;
        const std::size_t dash = item.find('-');
        const auto first = blockNumber(item.substr(0, dash));
        const auto last = dash == std::string_view::npos ? first : blockNumber(item.substr(dash + 1));
        if (!first || !last || *last < *first)
            return layersError("--layers needs block numbers or ranges, 0,4,8-11, not '" + escapeForDisplay(item) + "'");
        if (*last >= layerCount)
            return layersError("layer " + std::to_string(*last) + " is not one of the model's " + std::to_string(layerCount) + " blocks");
        ranges.emplace_back(*first, *last);
    }
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::int64_t> layers;
    std::int64_t next = 0;  // the first block not taken yet: each block is taken once
    for (const auto& [first, last] : ranges) {
        for (std::int64_t layer = std::max(first, next); layer <= last; ++layer)
            layers.push_back(layer);
        next = std::max(next, last + 1);
    }
    return layers;
}

}  // namespace gguf
