#include "FaultProxy.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace testsupport {

namespace {
struct Head {
    std::string firstLine;
    std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
    std::string leftover;                                     // body bytes read with the head
};

bool readHead(int fd, Head& head)
{
    std::string data;
    char buffer[8192];
    std::size_t end = std::string::npos;
    while ((end = data.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0 || data.size() > (1u << 20))
            return false;
        data.append(buffer, static_cast<std::size_t>(n));
    }
    head.leftover = data.substr(end + 4);
    std::size_t at = data.find("\r\n");
    head.firstLine = data.substr(0, at);
    while (at < end) {
        const std::size_t next = data.find("\r\n", at + 2);
        const std::string line = data.substr(at + 2, next - at - 2);
        at = next;
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ')
            value.erase(value.begin());
        head.headers.emplace_back(name, value);
    }
    return true;
}

std::string headerValue(const Head& head, const std::string& name)
{
    for (const auto& [key, value] : head.headers)
        if (key == name)
            return value;
    return {};
}

bool sendAll(int fd, const char* data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

bool sendAll(int fd, const std::string& text)
{
    return sendAll(fd, text.data(), text.size());
}

void reply(int fd, int status, const std::string& reason, const std::string& extraHeaders = {})
{
    const std::string body = reason + "\n";
    sendAll(fd, "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Length: " + std::to_string(body.size())
                    + "\r\nConnection: close\r\n" + extraHeaders + "\r\n" + body);
}

int connectTo(int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

void resetAndClose(int fd)
{
    linger hard{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    ::close(fd);
}
}  // namespace

FaultProxy::FaultProxy(int serverPort) : m_serverPort(serverPort) {}

FaultProxy::~FaultProxy()
{
    m_stopping = true;
    if (m_listen >= 0)
        ::shutdown(m_listen, SHUT_RDWR);
    if (m_acceptor.joinable())
        m_acceptor.join();
    {
        std::lock_guard lock(m_mutex);
        for (int fd : m_openSockets)
            ::shutdown(fd, SHUT_RDWR);
    }
    for (std::thread& worker : m_workers)
        worker.join();
    if (m_listen >= 0)
        ::close(m_listen);
}

bool FaultProxy::start(std::string& error)
{
    m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(m_listen, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(m_listen, 64) != 0
        || ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        error = std::string("proxy cannot listen: ") + std::strerror(errno);
        return false;
    }
    m_port = ntohs(address.sin_port);
    m_acceptor = std::thread([this] { acceptLoop(); });
    return true;
}

void FaultProxy::setRequiredToken(const std::string& token)
{
    std::lock_guard lock(m_mutex);
    m_requiredToken = token;
}

void FaultProxy::setLinkedEtag(const std::string& etag)
{
    std::lock_guard lock(m_mutex);
    m_linkedEtag = etag;
}

void FaultProxy::setRedirectOrigin(const std::string& origin)
{
    std::lock_guard lock(m_mutex);
    m_redirectOrigin = origin;
}

void FaultProxy::setCannedResponse(const std::string& response)
{
    std::lock_guard lock(m_mutex);
    m_cannedResponse = response;
}

void FaultProxy::setExtraResponseHeaders(const std::string& lines)
{
    std::lock_guard lock(m_mutex);
    m_extraResponseHeaders = lines;
}

std::string FaultProxy::lastAcceptEncoding() const
{
    std::lock_guard lock(m_mutex);
    return m_lastAcceptEncoding;
}

std::vector<std::string> FaultProxy::authorizedPaths() const
{
    std::lock_guard lock(m_mutex);
    return m_authorizedPaths;
}

void FaultProxy::resetCounters()
{
    {
        std::lock_guard lock(m_mutex);
        m_authorizedPaths.clear();
    }
    m_bodyBytes = 0;
    m_requests = 0;
    m_rangeRequests = 0;
    m_dropped = 0;
    m_sawAuthorization = false;
}

bool FaultProxy::take(std::atomic<int>& counter)
{
    int value = counter.load();
    while (value > 0)
        if (counter.compare_exchange_weak(value, value - 1))
            return true;
    return false;
}

void FaultProxy::acceptLoop()
{
    while (!m_stopping) {
        const int client = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            return;
        std::lock_guard lock(m_mutex);
        m_openSockets.push_back(client);
        m_workers.emplace_back([this, client] {
            serve(client);
            std::lock_guard inner(m_mutex);
            m_openSockets.erase(std::remove(m_openSockets.begin(), m_openSockets.end(), client), m_openSockets.end());
        });
    }
}

void FaultProxy::serve(int client)
{
    struct Serving {
        std::atomic<int>& count;
        explicit Serving(std::atomic<int>& c) : count(c) { ++count; }
        ~Serving() { --count; }
    } serving(m_serving);
    if (dropConnections) {
        ++m_dropped;
        resetAndClose(client);
        return;
    }
    Head request;
    if (!readHead(client, request)) {
        ::close(client);
        return;
    }
    ++m_requests;
    const std::string range = headerValue(request, "range");
    if (!range.empty())
        ++m_rangeRequests;
    const std::string authorization = headerValue(request, "authorization");
    if (!authorization.empty())
        m_sawAuthorization = true;
    const auto firstSpace = request.firstLine.find(' ');
    const std::string path = request.firstLine.substr(firstSpace + 1, request.firstLine.rfind(' ') - firstSpace - 1);
    std::string requiredToken, linkedEtag, redirectOrigin, canned, extraHeaders;
    {
        std::lock_guard lock(m_mutex);
        requiredToken = m_requiredToken;
        linkedEtag = m_linkedEtag;
        redirectOrigin = m_redirectOrigin;
        canned = m_cannedResponse;
        extraHeaders = m_extraResponseHeaders;
        m_lastAcceptEncoding = headerValue(request, "accept-encoding");
        if (!authorization.empty())
            m_authorizedPaths.push_back(path);
    }

    if (!canned.empty()) {
        sendAll(client, canned);
    } else if (!requiredToken.empty() && authorization != "Bearer " + requiredToken) {
        reply(client, 401, "Unauthorized");
    } else if (const int forced = forcedStatus.load(); forced != 0) {
        reply(client, forced, "Forced");
    } else if (take(fail500)) {
        reply(client, 500, "Internal Server Error");
    } else if (hubRedirect && path.find("/resolve/") != std::string::npos) {
        reply(client, 302, "Found",
              "Location: " + redirectOrigin + "/" + path.substr(path.rfind('/') + 1) + "\r\nX-Linked-Etag: \"" + linkedEtag + "\"\r\n");
    } else {
        const int upstream = connectTo(m_serverPort);
        if (upstream < 0) {
            reply(client, 502, "Bad Gateway");
            ::close(client);
            return;
        }
        std::string forwarded = request.firstLine + "\r\n";
        for (const auto& [name, value] : request.headers)
            if (name != "connection" && name != "authorization" && !(name == "range" && ignoreRanges))
                forwarded += name + ": " + value + "\r\n";
        forwarded += "Connection: close\r\n\r\n";
        Head response;
        if (!sendAll(upstream, forwarded) || !readHead(upstream, response)) {
            ::close(upstream);
            ::close(client);
            return;
        }
        const bool partial = response.firstLine.find(" 206 ") != std::string::npos;
        std::uint64_t bodyLength = std::strtoull(headerValue(response, "content-length").c_str(), nullptr, 10);
        const std::uint64_t fewer = partial ? static_cast<std::uint64_t>(std::max(0, fewerBytes.load())) : 0;
        const std::uint64_t extra = static_cast<std::uint64_t>(std::max(0, extraBytes.load()));
        const std::uint64_t forwardLimit = bodyLength - std::min(fewer, bodyLength);
        std::string head = response.firstLine + "\r\n";
        for (auto [name, value] : response.headers) {
            if (name == "connection")
                continue;
            if (name == "content-length")
                value = std::to_string(forwardLimit + extra);
            if (name == "content-range" && fewer > 0) {
                unsigned long long a = 0, b = 0;
                char total[64] = {};
                if (std::sscanf(value.c_str(), "bytes %llu-%llu/%63s", &a, &b, total) == 3)
                    value = "bytes " + std::to_string(a) + "-" + std::to_string(b - fewer) + "/" + total;
            }
            head += name + ": " + value + "\r\n";
        }
        head += extraHeaders + "Connection: close\r\n\r\n";
        const bool cut = take(cutBody), reset = !cut && take(resetBody), stalled = take(stall), trickled = take(trickle);
        bool clientOpen = sendAll(client, head);
        if (stalled)
            for (int waited = 0; waited < stallMs && !m_stopping; waited += 20)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::uint64_t sent = 0;
        std::string chunk = std::move(response.leftover);
        const auto trickleStart = std::chrono::steady_clock::now();
        char buffer[65536];
        while (clientOpen && !m_stopping) {
            if (chunk.empty()) {
                const ssize_t n = ::recv(upstream, buffer, sizeof buffer, 0);
                if (n <= 0)
                    break;
                chunk.assign(buffer, static_cast<std::size_t>(n));
            }
            m_bodyBytes += chunk.size();
            std::uint64_t allowed = std::min<std::uint64_t>(chunk.size(), forwardLimit - std::min(sent, forwardLimit));
            if ((cut || reset) && sent + allowed > cutAfterBytes)
                allowed = cutAfterBytes - std::min<std::uint64_t>(sent, cutAfterBytes);
            if (trickled) {
                // A byte at a time, as a server that is alive but next to useless.
                const int forMs = trickleForMs;
                for (std::uint64_t i = 0; clientOpen && i < allowed && !m_stopping; ++i, ++sent) {
                    if (forMs > 0 && std::chrono::steady_clock::now() - trickleStart >= std::chrono::milliseconds(forMs))
                        clientOpen = false;
                    else
                        clientOpen = sendAll(client, chunk.data() + i, 1);
                    std::this_thread::sleep_for(std::chrono::milliseconds(trickleIntervalMs.load()));
                }
                chunk.clear();
                if (!clientOpen)
                    break;
                continue;
            }
            clientOpen = sendAll(client, chunk.data(), static_cast<std::size_t>(allowed));
            sent += allowed;
            chunk.clear();
            if ((cut || reset) && sent >= cutAfterBytes) {
                ::close(upstream);
                if (reset)
                    resetAndClose(client);
                else
                    ::close(client);
                return;
            }
            if (sent >= forwardLimit)
                break;
        }
        if (clientOpen && extra > 0)
            sendAll(client, std::string(static_cast<std::size_t>(extra), 'x'));
        ::close(upstream);
    }
    ::shutdown(client, SHUT_WR);
    ::close(client);
}

}  // namespace testsupport
