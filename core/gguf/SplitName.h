#pragma once
// llama.cpp's gguf-split names shards `prefix-0000K-of-0000N.gguf` (K from 1).

#include <optional>
#include <string>
#include <string_view>

namespace gguf {

struct SplitName {
    std::string prefix;  // everything before "-0000K-of-0000N.gguf", folder included
    int index = 0;       // 1-based
    int count = 0;

    static std::optional<SplitName> parse(const std::string& path);
    std::string shardPath(int shardIndex) const;
};

// A string every shard of one Save As carries, the same in all of them, so that a set mixing
// shards of two saves under the same names (a save killed between its renames) is refused when
// opened. Sets written by llama-gguf-split have none, and need none.
inline constexpr std::string_view kSplitSaveIdKey = "split.save_id";

}  // namespace gguf
