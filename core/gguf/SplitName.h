#pragma once
// llama.cpp's gguf-split names shards `prefix-0000K-of-0000N.gguf` (K from 1).

#include <optional>
#include <string>

namespace gguf {

struct SplitName {
    std::string prefix;  // everything before "-0000K-of-0000N.gguf", folder included
    int index = 0;       // 1-based
    int count = 0;

    static std::optional<SplitName> parse(const std::string& path);
    std::string shardPath(int shardIndex) const;
};

}  // namespace gguf
