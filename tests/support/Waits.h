#pragma once
// Waiting in tests: for the event the test cares about, never for a stretch of wall time that a
// loaded or sanitized machine may overrun. The only bound is a hang guard, far beyond any run a
// working build could take (ctest's own per-test timeout is longer still), so a test fails on a
// missing signal, not on a slow one.

namespace testsupport {

// Two minutes: an AddressSanitizer build on a two-core machine running a parallel build takes
// seconds for the slowest job here.
constexpr int kHangGuardMs = 2 * 60 * 1000;

}  // namespace testsupport
