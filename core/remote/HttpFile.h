#pragma once
// One file on an HTTP server, read by range requests through libcurl (HTTP/1.1 and HTTP/2,
// redirects followed: the Hub answers with a redirect to its CDN).
//
// Every response must be exactly what was asked for: 206 with the asked Content-Range and as
// many bytes, from the file first seen (same ETag, else same Last-Modified); anything else is
// an error, never a short buffer. A server that answers a range request with the whole file
// (200) is refused at once, before its body is read. 5xx, 429, resets, timeouts and bodies cut
// short are retried with doubling waits, a cut-short body resuming where it stopped. Every
// wait is bounded (RemoteOptions): a server that does not answer is reported within
// unreachableAfter, and reads of the file after that fail at once for as long; a try slower
// than the low-speed limit fails; a read has an overall deadline. The body must be the file's
// own bytes: identity encoding is asked for and any other Content-Encoding refused.

#include "core/gguf/ByteRangeSource.h"
#include "core/remote/RemoteOptions.h"

#include <chrono>
#include <optional>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gguf::remote {

struct RemoteFileFacts {
    std::uint64_t size = 0;
    std::string etag;          // of the final response, quotes kept
    std::string lastModified;
    std::string linkedEtag;    // X-Linked-Etag (the Hub: the LFS file's SHA-256), quotes removed
    std::string effectiveUrl;  // after redirects
};

class CurlLibrary;

class HttpFile final : public ByteRangeSource {
public:
    // Asks for the first options.firstReadBytes bytes; the answer gives the size and validators
    // and is kept for the first read.
    static Result<std::shared_ptr<HttpFile>> open(const std::string& url, RemoteOptions options);

    std::uint64_t size() const override { return m_facts.size; }
    Status read(const std::vector<ByteRange>& ranges) override;
    Status checkUnchanged() const override;
    std::uint64_t preferredReadSize() const override { return m_options.firstReadBytes; }

    const RemoteFileFacts& facts() const { return m_facts; }
    const std::string& url() const { return m_url; }
    std::uint64_t bytesReceived() const { return m_bytesReceived; }  // bodies, every try
    std::uint64_t requestCount() const { return m_requests; }

private:
    struct Transfer;
    using Clock = std::chrono::steady_clock;
    HttpFile(std::string url, RemoteOptions options, const CurlLibrary& curl)
        : m_url(std::move(url)), m_options(std::move(options)), m_curl(curl)
    {
    }
    Status runTransfers(std::vector<Transfer>& transfers, bool first);
    Status judge(Transfer& transfer, bool first, bool& retry);
    Status judgeResponse(Transfer& transfer);
    // The server's silence over all tries: when the last unanswered try began, if no try since
    // got an answer; and, once a read gave up on it, when and why (later reads fail at once).
    Status recentlyUnreachable() const;
    // The file's own flag (RemoteOptions::cancel) or the reading thread's (gguf/FetchCancel.h).
    bool isCancelled() const;

    std::string m_url;
    RemoteOptions m_options;
    const CurlLibrary& m_curl;
    RemoteFileFacts m_facts;
    std::vector<std::uint8_t> m_firstBytes;  // the opening request's body, served once
    mutable std::mutex m_mutex;
    bool m_opened = false;  // the first response fixed size and validators
    std::string m_changed;  // set once a response came from another version of the file
    std::optional<Clock::time_point> m_silentSince;
    int m_silentTries = 0;  // unanswered tries of every transfer since m_silentSince
    std::optional<Clock::time_point> m_unreachableAt;
    std::string m_unreachable;
    std::atomic<std::uint64_t> m_bytesReceived{0};
    std::atomic<std::uint64_t> m_requests{0};
};

// "HTTP 404 ..." style text for a status that is not retried.
std::string httpStatusMessage(long status, bool tokenSent);

// libcurl's process-wide set-up, once. Call it from the main thread before a job thread opens a
// URL, as curl_global_init asks: it initialises OpenSSL, which keeps the calling thread's error
// state; made on a worker still exiting when the process ends, that state is never freed. The
// GUI's ModelLoader calls it before handing a URL to its job; HttpFile::open calls it too, for
// programs that open URLs on their main thread (the CLI). libcurl is loaded then
// (remote/CurlLibrary.h); the error says when it cannot be.
Status initializeHttp();

}  // namespace gguf::remote
