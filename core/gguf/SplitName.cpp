#include "gguf/SplitName.h"

#include <cstdio>
#include <regex>

namespace gguf {

std::optional<SplitName> SplitName::parse(const std::string& path)
{
    static const std::regex pattern(R"(^(.*)-([0-9]{5})-of-([0-9]{5})\.gguf$)");
    std::smatch match;
    if (!std::regex_match(path, match, pattern))
        return std::nullopt;
    SplitName name{match[1].str(), std::stoi(match[2].str()), std::stoi(match[3].str())};
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
