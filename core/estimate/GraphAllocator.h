#pragma once
// ggml's graph allocator (ggml-alloc.c, ggml_gallocr_reserve at llama.cpp 80fb11a), replayed over
// a recorded graph to find the size of the buffer it reserves. One buffer, as on the CPU backend
// (one chunk, alignment 32, sizes = ggml_nbytes):
//   - the graph inputs are placed first, in leaf order, and the other inputs the nodes name;
//   - then each node in order: its result is placed, unless it is a view or lives elsewhere; an op
//     that may run in place takes over a source that has no other use left (nor views), with the
//     same type, shape and strides; else the result goes
//     to the smallest free block that fits (the last one of equal size), or at the end;
//   - after each node, the sources it was the last use of are freed (a view's source when its last
//     view goes), and adjacent free blocks merge; graph outputs are never freed.
// The buffer is the highest end any tensor reached.

#include "core/estimate/ComputeGraph.h"

#include <cstdint>

namespace gguf {

inline constexpr std::uint64_t kCpuBufferAlignment = 32;

// The bytes ggml_gallocr reserves for `graph`; 2^64 - 1 when a size does not fit in 64 bits.
std::uint64_t reserveGraphBuffer(const ComputeGraph& graph, std::uint64_t alignment = kCpuBufferAlignment);

}  // namespace gguf
