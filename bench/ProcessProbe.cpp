#include "ProcessProbe.h"

#include "Measure.h"

#include <cstdio>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace bench {

namespace {

// posix_spawn `argv` with stdout going to `stdoutFd` (or /dev/null when -1), stderr discarded.
pid_t spawn(std::vector<std::string> argv, int stdoutFd)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (stdoutFd >= 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutFd, STDOUT_FILENO);
    else
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> pointers;
    for (std::string& word : argv)
        pointers.push_back(word.data());
    pointers.push_back(nullptr);
    pid_t child = -1;
    if (posix_spawn(&child, pointers[0], &actions, nullptr, pointers.data(), environ) != 0)
        child = -1;
    posix_spawn_file_actions_destroy(&actions);
    return child;
}

}  // namespace

int probeProcessMain(int argc, char** argv)
{
    if (argc < 3)
        return 2;
    const double start = nowSeconds();
    const pid_t child = spawn(std::vector<std::string>(argv + 2, argv + argc), -1);
    int status = 0;
    rusage usage{};
    if (child < 0 || wait4(child, &status, 0, &usage) != child)
        return 1;
    const double seconds = nowSeconds() - start;
    const double cpu = double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) / 1e6 + double(usage.ru_stime.tv_sec)
                     + double(usage.ru_stime.tv_usec) / 1e6;
    std::printf("%.9f %ld %d %.6f\n", seconds, usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : -1, cpu);
    return 0;
}

ProcessFigures probeProcess(const std::vector<std::string>& command)
{
    ProcessFigures figures;
    int pipeFds[2];
    if (pipe(pipeFds) != 0)
        return figures;
    // The small static probe when it was built next to the benchmark, else the benchmark itself.
    std::string probePath = "/proc/self/exe";
#ifdef GGUFX_PROBE_PATH
    if (::access(GGUFX_PROBE_PATH, X_OK) == 0)
        probePath = GGUFX_PROBE_PATH;
#endif
    std::vector<std::string> argv{probePath, kProbeOption};
    argv.insert(argv.end(), command.begin(), command.end());
    const pid_t probe = spawn(argv, pipeFds[1]);
    close(pipeFds[1]);
    char text[128] = {};
    std::size_t used = 0;
    for (ssize_t n; used + 1 < sizeof text && (n = read(pipeFds[0], text + used, sizeof text - 1 - used)) > 0;)
        used += static_cast<std::size_t>(n);
    close(pipeFds[0]);
    int status = 0;
    if (probe < 0 || waitpid(probe, &status, 0) != probe)
        return figures;
    long maxResidentKiB = 0;
    int exitStatus = -1;
    if (std::sscanf(text, "%lf %ld %d %lf", &figures.seconds, &maxResidentKiB, &exitStatus, &figures.cpuSeconds) == 4) {
        figures.ok = exitStatus == 0;
        figures.maxResidentMiB = static_cast<double>(maxResidentKiB) / 1024.0;
    }
    return figures;
}

}  // namespace bench
