#pragma once
// Writes a GGUF file with the layout of a 70B Llama-3 model at Q4_K_M: 80 layers, 723 tensors,
// a 128,256-entry vocabulary with scores and token types, 280,147 merges (an 11.2 MiB header),
// and every tensor's bytes in place, about 42 GB. The tensor data is a hole (ftruncate), so the file costs a few megabytes
// of disk: only the header is ever written, and opening must not read past it.

#include <cstdint>
#include <string>

namespace bench {

struct SparseModelFile {
    std::string path;
    std::uint64_t fileBytes = 0;
    std::uint64_t headerBytes = 0;  // up to the data section
    std::uint64_t tensorCount = 0;
    std::uint64_t parameterCount = 0;
};

// Creates (or replaces) `path`; on failure returns false with `error` set.
bool writeSparse70bModel(const std::string& path, SparseModelFile& file, std::string& error);

}  // namespace bench
