#pragma once
// Names of llama.cpp's llama_ftype values, the number stored in general.file_type: what the
// file as a whole was quantized to ("MOSTLY_Q4_K_M"), as llama.h spells the enumerators without
// their LLAMA_FTYPE_ prefix. Values llama.cpp removed keep their historical names.

#include <cstdint>
#include <string_view>

namespace gguf {

// The name for `fileType`, or an empty view for a value llama.cpp never defined.
std::string_view llamaFileTypeName(std::uint64_t fileType);

}  // namespace gguf
