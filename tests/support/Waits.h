#pragma once
// Waiting in tests: for the event the test cares about, never for a stretch of wall time that a
// loaded or sanitized machine may overrun. The only bound is a hang guard, far beyond any run a
// working build could take (ctest's own per-test timeout is longer still), so a test fails on a
// missing signal, not on a slow one.

namespace testsupport {

// Two minutes: an AddressSanitizer build on a two-core machine running a parallel build takes
// seconds for the slowest job here.
constexpr int kHangGuardMs = 2 * 60 * 1000;

// The one window in which a test watches for something that must not happen: a second result, a
// job that starts by itself. Longer than every debounce and poll interval of the views (at most
// 300 ms), so a stray timer would fire inside it. A slow machine can only make the check miss a
// stray event, never invent one, so no test fails for being slow.
constexpr int kNothingHappensWindowMs = 1000;

}  // namespace testsupport
