#pragma once
// The forward pass, the comparisons and the quantizers allocate buffers of megabytes (a layer's
// activations: 512 tokens x 11008 features are 22 MB) and free them a step later. glibc serves
// such sizes with mmap and returns them with munmap, or trims them off the top of its heap, so
// every layer of every pass faulted its buffers in again, page by page, each page zeroed by the
// kernel: 12 % of a 1-thread `kld` on a 7B-shaped pair was those faults and the memsets behind
// them. Kept in the heap, a freed buffer is the next one's memory.

namespace gguf {

// Keeps buffers of up to 32 MB (glibc's largest mmap threshold) in the heap and lets the heap
// keep up to 1 GiB of freed memory at its top instead of trimming it. Peak memory is unchanged
// (it is what is live at once); memory freed after a peak is kept for reuse, not returned, up
// to that bound. For programs, once, before their threads start. No effect outside glibc.
void keepLargeBuffersForReuse();

}  // namespace gguf
