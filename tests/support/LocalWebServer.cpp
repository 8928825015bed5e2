#include "LocalWebServer.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace testsupport {

namespace {
constexpr const char* kLighttpd = "/usr/sbin/lighttpd";

int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

bool accepts(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return ok;
}
}  // namespace

bool LocalWebServer::start(const std::string& documentRoot, const std::string& workDir, std::string& error)
{
    if (::access(kLighttpd, X_OK) != 0) {
        error = "lighttpd is not installed (tools/install-deps.sh installs it)";
        return false;
    }
    // A port taken between our probe and lighttpd's bind makes it exit: try a few.
    for (int attempt = 0; attempt < 5; ++attempt) {
        m_port = freePort();
        const std::string config = workDir + "/lighttpd.conf";
        std::ofstream out(config);
        out << "server.document-root = \"" << documentRoot << "\"\n"
            << "server.bind = \"127.0.0.1\"\nserver.port = " << m_port << "\n"
            << "server.errorlog = \"" << workDir << "/lighttpd-error.log\"\n"
            << "server.max-keep-alive-requests = 0\nserver.stat-cache-engine = \"disable\"\n"
            << "mimetype.assign = ( \"\" => \"application/octet-stream\" )\n";
        out.close();
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execl(kLighttpd, kLighttpd, "-D", "-f", config.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        if (pid < 0) {
            error = std::string("cannot start lighttpd: ") + std::strerror(errno);
            return false;
        }
        m_pid = pid;
        // Until it listens or exits; a generous bound, only to never hang.
        for (int i = 0; i < 1000; ++i) {
            if (accepts(m_port))
                return true;
            int status = 0;
            if (::waitpid(pid, &status, WNOHANG) == pid) {
                m_pid = -1;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (m_pid > 0) {
            ::kill(m_pid, SIGTERM);
            ::waitpid(m_pid, nullptr, 0);
            m_pid = -1;
        }
    }
    error = "lighttpd did not start (see " + workDir + "/lighttpd-error.log)";
    return false;
}

LocalWebServer::~LocalWebServer()
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGTERM);
        ::waitpid(m_pid, nullptr, 0);
    }
}

}  // namespace testsupport
