#pragma once
// How remote reads behave; the defaults suit the Hub and its CDN. Every wait is bounded: a
// server that does not answer is reported within unreachableAfter, a try slower than the
// low-speed limit fails, a few bytes per try do not buy new tries, and a whole read has a
// deadline. Tests set these short.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace gguf::remote {

struct RemoteOptions {
    // A range gives up after this many tries in a row, the first included. A try that ends early
    // but brought at least progressBytes resumes with a fresh count; fewer bytes do not reset it,
    // so a server that sends a byte per connection is not retried for ever.
    int maxAttempts = 6;
    std::uint64_t progressBytes = 64u << 10;
    std::chrono::milliseconds firstBackoff{250};      // doubles after each failed try
    std::chrono::milliseconds connectTimeout{10000};
    // No answer at all (no connection, or no response line) for this long, over every try of
    // the file: the server is reported unreachable, and reads of the file in the next period
    // fail at once instead of each waiting as long again.
    std::chrono::milliseconds unreachableAfter{10000};
    // A try slower than this for lowSpeedWindow fails (a stall is 0 bytes/s).
    long lowSpeedBytesPerSecond = 1024;
    std::chrono::seconds lowSpeedWindow{30};
    // A read (every range and retry of it) fails when it is not done after readDeadline plus
    // the time its bytes take at deadlineBytesPerSecond.
    std::chrono::milliseconds readDeadline{120000};
    std::uint64_t deadlineBytesPerSecond = 1024;  // as the low-speed limit: a slow link still downloads
    int maxInFlight = 4;                              // parallel requests for one read
    std::uint64_t firstReadBytes = 1u << 20;          // the first request; headers grow from there
    // Called from the reading thread with bytes received so far and the bytes the read wants.
    std::function<void(std::uint64_t received, std::uint64_t wanted)> progress;
    // Set from any thread: the read in progress stops with "cancelled".
    const std::atomic<bool>* cancel = nullptr;
};

}  // namespace gguf::remote
