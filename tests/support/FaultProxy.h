#pragma once
// A small HTTP/1.1 proxy in front of the local web server, for the remote-reading tests: it
// forwards each request (one per connection) and can break the answer the way real networks and
// servers do: 5xx, a body cut short or reset, a stall, a server that ignores ranges, more or
// fewer bytes than asked, a refused login, a Hub-style redirect. It counts the body bytes the
// server sent, so tests can assert how much a remote open fetched. Plain POSIX threads and
// sockets; faults are set between requests from the test thread.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace testsupport {

class FaultProxy {
public:
    explicit FaultProxy(int serverPort);
    ~FaultProxy();
    bool start(std::string& error);  // listens on 127.0.0.1, a free port
    int port() const { return m_port; }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(m_port) + path; }

    // Faults: each counter is "the next N responses".
    std::atomic<int> fail500{0};
    std::atomic<int> cutBody{0};          // close after cutAfterBytes of the body
    std::atomic<int> resetBody{0};        // reset (RST) after cutAfterBytes of the body
    std::atomic<std::uint64_t> cutAfterBytes{1000};
    std::atomic<int> stall{0};            // wait stallMs before the body
    std::atomic<int> stallMs{3000};
    std::atomic<bool> ignoreRanges{false};  // the Range header is dropped: the server answers 200
    std::atomic<int> extraBytes{0};       // every response sends this many bytes more than its headers say
    std::atomic<int> fewerBytes{0};       // every 206 declares and sends this many bytes fewer
    std::atomic<int> forcedStatus{0};     // answer every request with this status, no upstream
    std::atomic<bool> hubRedirect{false}; // ".../resolve/REV/FILE" answers 302 to "/FILE" with X-Linked-Etag
    std::atomic<int> trickle{0};          // send the body a byte per trickleIntervalMs, for trickleForMs (0: to its end), then close
    std::atomic<int> trickleIntervalMs{10};
    std::atomic<int> trickleForMs{0};
    std::atomic<bool> dropConnections{false};  // close every connection at once, unanswered (a dead server)
    void setCannedResponse(const std::string& response);   // sent as is to every request, no upstream ("" ends it)
    void setExtraResponseHeaders(const std::string& lines);  // "Name: value\r\n" lines added to upstream answers
    std::string lastAcceptEncoding() const;                // the Accept-Encoding of the last request
    std::uint64_t droppedConnections() const { return m_dropped; }
    void setRequiredToken(const std::string& token);  // 401 unless "Authorization: Bearer TOKEN"
    void setLinkedEtag(const std::string& etag);      // sent with hubRedirect, quoted
    void setRedirectOrigin(const std::string& origin);  // hubRedirect goes there ("http://localhost:PORT"), else to this host
    std::vector<std::string> authorizedPaths() const;   // the paths of requests that carried an Authorization header

    std::uint64_t bodyBytesFromServer() const { return m_bodyBytes; }
    std::uint64_t requests() const { return m_requests; }
    std::uint64_t rangeRequests() const { return m_rangeRequests; }
    bool sawAuthorization() const { return m_sawAuthorization; }
    void resetCounters();
    // Responses still being served (a stalled one included): a test that leaves stalls behind
    // waits for none, so their late bytes are not counted against the next test.
    int responsesInProgress() const { return m_serving; }

private:
    void acceptLoop();
    void serve(int client);
    bool take(std::atomic<int>& counter);

    int m_serverPort;
    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::thread m_acceptor;
    mutable std::mutex m_mutex;
    std::vector<std::thread> m_workers;
    std::vector<int> m_openSockets;
    std::string m_requiredToken;
    std::string m_linkedEtag;
    std::string m_redirectOrigin;
    std::vector<std::string> m_authorizedPaths;
    std::string m_cannedResponse;
    std::string m_extraResponseHeaders;
    std::string m_lastAcceptEncoding;
    std::atomic<std::uint64_t> m_dropped{0};
    std::atomic<std::uint64_t> m_bodyBytes{0};
    std::atomic<std::uint64_t> m_requests{0};
    std::atomic<std::uint64_t> m_rangeRequests{0};
    std::atomic<bool> m_sawAuthorization{false};
    std::atomic<int> m_serving{0};
};

}  // namespace testsupport
