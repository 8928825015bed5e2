#pragma once
// The cancel flag of the work running on this thread, for fetches deep below it. A view's job
// reads tensor bytes through dequantization, block scales or checks, none of which take a cancel
// flag; when those bytes come from a server (RemoteRegion), the wait is the network's, so the
// job's flag must reach the transfer itself. The job sets it for the duration of its work with a
// FetchCancelScope; core/remote polls it while a transfer is in flight.

#include <atomic>

namespace gguf {

// The flag of the innermost FetchCancelScope on this thread, or null.
const std::atomic<bool>* currentFetchCancel();

class FetchCancelScope {
public:
    explicit FetchCancelScope(const std::atomic<bool>* cancel);
    ~FetchCancelScope();
    FetchCancelScope(const FetchCancelScope&) = delete;
    FetchCancelScope& operator=(const FetchCancelScope&) = delete;

private:
    const std::atomic<bool>* m_previous;
};

// Whether the flag of this thread's scope is set.
inline bool fetchCancelled()
{
    const std::atomic<bool>* cancel = currentFetchCancel();
    return cancel && cancel->load(std::memory_order_relaxed);
}

}  // namespace gguf
