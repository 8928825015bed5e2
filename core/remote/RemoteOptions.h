#pragma once
// How remote reads behave; the defaults suit the Hub and its CDN.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace gguf::remote {

struct RemoteOptions {
    int maxAttempts = 6;                              // per range, the first try included
    std::chrono::milliseconds firstBackoff{250};      // doubles after each failed try
    std::chrono::seconds connectTimeout{15};
    std::chrono::seconds stallTimeout{30};            // no byte for this long: the try failed
    int maxInFlight = 4;                              // parallel requests for one read
    std::uint64_t firstReadBytes = 1u << 20;          // the first request; headers grow from there
    // Called from the reading thread with bytes received so far and the bytes the read wants.
    std::function<void(std::uint64_t received, std::uint64_t wanted)> progress;
    // Set from any thread: the read in progress stops with "cancelled".
    const std::atomic<bool>* cancel = nullptr;
};

}  // namespace gguf::remote
