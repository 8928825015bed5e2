#pragma once
// Wall time and peak resident memory of a whole child process.
//
// Linux carries the pre-exec address space's high-water mark into the child's ru_maxrss, so a
// command spawned straight from the benchmark (which holds hundreds of MB of buffers) would
// report the benchmark's size. The benchmark therefore re-executes itself as a small probe
// (`--probe-process COMMAND ARGS...`, before it allocates anything), and the probe runs the
// command and reports its figures.

#include <string>
#include <vector>

namespace bench {

struct ProcessFigures {
    bool ok = false;  // ran and exited with status 0
    double seconds = 0;
    double maxResidentMiB = 0;
    double cpuSeconds = 0;  // user + system time of the command: what it costs, whatever it waited for
};

// Runs `command` (stdout and stderr discarded) through the probe.
ProcessFigures probeProcess(const std::vector<std::string>& command);

// The probe's own main: argv = {bench, "--probe-process", command, args...}. Prints
// "seconds max_rss_kib exit_status cpu_seconds" on stdout.
int probeProcessMain(int argc, char** argv);
inline constexpr const char* kProbeOption = "--probe-process";

}  // namespace bench
