#include "core/base/LargeBufferReuse.h"

// <malloc.h> is glibc's (and defines the M_* options there); __GLIBC__ is not known before a C
// library header is included, so the header itself is the test.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace gguf {

void keepLargeBuffersForReuse()
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    // Setting either bound also stops glibc's own adjustment of both (which raises the mmap
    // threshold only after a buffer of that size was freed, and trims at twice it).
    constexpr int kMmapThreshold = 32 * 1024 * 1024;
    constexpr int kTrimThreshold = 1024 * 1024 * 1024;
    ::mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
    ::mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
#endif
}

}  // namespace gguf
