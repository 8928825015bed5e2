#include "core/gguf/SplitName.h"

#include <cstdio>
#include <string_view>

namespace gguf {

// The name must end in "-NNNNN-of-NNNNN.gguf" (five ASCII digits each). Matched by hand rather
// than with std::regex: every open of a local file asks, and constructing the pattern was a
// good part of a small `info`'s time and code pages. Same verdict as the pattern it replaces,
// ^(.*)-([0-9]{5})-of-([0-9]{5})\.gguf$ (ECMAScript: the prefix may not hold '\n' or '\r').
std::optional<SplitName> SplitName::parse(const std::string& path)
{
    constexpr std::string_view kShape = "-NNNNN-of-NNNNN.gguf";
    if (path.size() < kShape.size())
        return std::nullopt;
    const std::size_t prefixLength = path.size() - kShape.size();
    const std::string_view tail = std::string_view(path).substr(prefixLength);
    int numbers[2] = {0, 0};
    for (std::size_t i = 0; i < kShape.size(); ++i) {
        const char c = tail[i];
        if (kShape[i] != 'N') {
            if (c != kShape[i])
                return std::nullopt;
        } else if (c < '0' || c > '9') {
            return std::nullopt;
        } else {
            int& number = numbers[i < 6 ? 0 : 1];
            number = number * 10 + (c - '0');
        }
    }
    const std::string_view prefix = std::string_view(path).substr(0, prefixLength);
    if (prefix.find_first_of("\n\r") != std::string_view::npos)
        return std::nullopt;
    SplitName name{std::string(prefix), numbers[0], numbers[1]};
    if (name.index < 1 || name.count < 1 || name.index > name.count)
        return std::nullopt;
    return name;
}

std::string SplitName::shardPath(int shardIndex) const
{
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "-%05d-of-%05d.gguf", shardIndex, count);
    return prefix + suffix;
}

}  // namespace gguf
