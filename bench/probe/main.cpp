// gguf-explorer-probe COMMAND ARGS...: runs one command (stdout and stderr to /dev/null) and
// prints "seconds max_rss_kib exit_status cpu_seconds" (bench/ProcessProbe.h).
//
// Linux carries the spawning address space's high-water mark into the child's ru_maxrss. Even
// re-executed before it allocates anything, the benchmark has loaded OpenBLAS, libcurl and
// their dependencies (about 9 MB resident), which floored every process figure; this program
// links only a static libc, so the floor is a few hundred KiB.

#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {
double now()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
}  // namespace

int main(int argc, char** argv)
{
    // argv[1] may be the benchmark's own probe option, for the same command line either way.
    int first = 1;
    if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-')
        first = 2;
    if (argc <= first)
        return 2;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const double start = now();
    pid_t child = -1;
    const int spawned = posix_spawn(&child, argv[first], &actions, nullptr, argv + first, environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    rusage usage{};
    if (spawned != 0 || wait4(child, &status, 0, &usage) != child)
        return 1;
    const double seconds = now() - start;
    const double cpu = static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) / 1e6
                     + static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) / 1e6;
    std::printf("%.9f %ld %d %.6f\n", seconds, usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : -1, cpu);
    return 0;
}
