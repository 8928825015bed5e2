#pragma once
// lighttpd (Debian's package) serving a folder on 127.0.0.1 at a free port, started with a
// generated configuration and stopped (by its pid) when the object goes. lighttpd answers range
// requests and sends ETag and Last-Modified like the CDNs in front of the Hugging Face Hub.

#include <string>
#include <sys/types.h>

namespace testsupport {

class LocalWebServer {
public:
    LocalWebServer() = default;
    ~LocalWebServer();
    LocalWebServer(const LocalWebServer&) = delete;
    LocalWebServer& operator=(const LocalWebServer&) = delete;

    // Serves `documentRoot`; `workDir` holds the configuration and logs. False with `error` set
    // when lighttpd is missing or does not come up.
    bool start(const std::string& documentRoot, const std::string& workDir, std::string& error);
    int port() const { return m_port; }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(m_port) + path; }

private:
    pid_t m_pid = -1;
    int m_port = 0;
};

}  // namespace testsupport
