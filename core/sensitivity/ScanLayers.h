#pragma once
// The blocks a scan probes when asked for some (`scan --layers 0,4,8-11`): every number and range
// checked against the model's block count before anything is expanded, so a range such as
// 0-1048576 on a two-block model is refused at once, and gathered in time that grows with the
// text (sorted ranges, merged), never with the product of ranges and blocks.

#include "core/base/Result.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gguf {

// The blocks named, ascending, each once. Errors name the item at fault.
Result<std::vector<std::int64_t>> parseLayerList(std::string_view text, std::int64_t layerCount);

}  // namespace gguf
