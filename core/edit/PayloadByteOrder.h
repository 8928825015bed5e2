#pragma once
// EncodedValue payloads are little-endian; a big-endian file stores every number of a value
// (scalars, string lengths, array element types and lengths, elements) byte-swapped.

#include "core/base/Result.h"
#include "core/gguf/MetadataValue.h"

#include <string>

namespace gguf {

// `payload` (a little-endian value of `type`) as a big-endian file stores it.
Result<std::string> bigEndianPayload(ValueType type, const std::string& payload);

}  // namespace gguf
