#include "core/remote/HttpFile.h"

#include "core/remote/CurlLibrary.h"
#include "core/remote/RemoteUrl.h"

#include "core/gguf/FetchCancel.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace gguf::remote {

namespace {
using Clock = std::chrono::steady_clock;

// A response's headers past this are refused: no honest range answer comes near it, and the
// Content-Range they would hide is what every check below stands on.
constexpr std::size_t kMaxHeaderBytes = 64u << 10;

std::string lowercase(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// "0.8 s", "10 s": waits as the options set them.
std::string secondsText(std::chrono::milliseconds wait)
{
    const long long ms = wait.count();
    if (ms % 1000 == 0 || ms >= 10000)
        return std::to_string((ms + 500) / 1000) + " s";
    return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + " s";
}

std::chrono::milliseconds since(Clock::time_point then)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - then);
}

std::string trimmed(std::string text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
    std::size_t start = 0;
    while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])))
        ++start;
    return text.substr(start);
}

bool headerIs(const std::string& line, const char* name, std::string& value)
{
    const std::size_t length = std::strlen(name);
    if (line.size() <= length || line[length] != ':')
        return false;
    for (std::size_t i = 0; i < length; ++i)
        if (std::tolower(static_cast<unsigned char>(line[i])) != name[i])
            return false;
    value = trimmed(line.substr(length + 1));
    return true;
}

struct ContentRange {
    bool valid = false;
    bool unsatisfied = false;  // "bytes */total"
    std::uint64_t first = 0, last = 0, total = 0;
    bool totalKnown = false;
};

ContentRange parseContentRange(const std::string& text)
{
    ContentRange range;
    unsigned long long first = 0, last = 0, total = 0;
    char star = 0;
    if (std::sscanf(text.c_str(), "bytes */%llu", &total) == 1) {
        range.valid = range.unsatisfied = range.totalKnown = true;
        range.total = total;
        return range;
    }
    const int got = std::sscanf(text.c_str(), "bytes %llu-%llu/%llu", &first, &last, &total);
    if (got == 3) {
        range.totalKnown = true;
    } else if (!(got == 2 && std::sscanf(text.c_str(), "bytes %llu-%llu/%c", &first, &last, &star) == 3 && star == '*')) {
        return range;
    }
    range.valid = last >= first && (!range.totalKnown || last < total);
    range.first = first;
    range.last = last;
    range.total = total;
    return range;
}

std::string unquoted(std::string text)
{
    if (text.rfind("W/", 0) == 0)
        text = text.substr(2);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
        text = text.substr(1, text.size() - 2);
    return text;
}
}  // namespace

std::string httpStatusMessage(long status, bool tokenSent)
{
    switch (status) {
    case 401:
        return tokenSent ? "HTTP 401: the server refused the Hugging Face token (HF_TOKEN or the token file); check that it is valid"
                         : "HTTP 401: the server wants a login; set HF_TOKEN (or run `huggingface-cli login`) for a gated or private model";
    case 403:
        return tokenSent ? "HTTP 403: access denied with the token given; a gated model needs its terms accepted on its Hub page"
                         : "HTTP 403: access denied; a gated model needs a token (HF_TOKEN) and its terms accepted on its Hub page";
    case 404:
        return "HTTP 404: no such file on the server (check the owner, repository, file name and revision)";
    case 410:
        return "HTTP 410: the file was removed from the server";
    case 416:
        return "HTTP 416: the server says the range asked for is not in the file";
    default:
        return "HTTP " + std::to_string(status) + " from the server";
    }
}

// One range, and the state of its current try.
struct HttpFile::Transfer {
    HttpFile* owner = nullptr;
    std::uint64_t offset = 0;    // next byte wanted
    std::uint8_t* out = nullptr;
    std::uint64_t wanted = 0;    // bytes still wanted; for the opening request, at most this many
    int failedTries = 0;
    Clock::time_point notBefore{};
    std::string lastProblem;
    // This try:
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    Clock::time_point startedAt{};
    CURLcode code = CURLE_OK;
    long status = 0;             // of the last response line; 0: no answer
    std::uint64_t received = 0;
    std::size_t headerBytes = 0; // of the current response
    bool headersComplete = false;
    std::string contentRange, etag, lastModified, location, contentEncoding;
    bool overflow = false, wholeFile = false, headersTooLarge = false, encoded = false;
    char errorText[CURL_ERROR_SIZE] = {};

    static std::size_t onHeader(char* data, std::size_t size, std::size_t count, void* self)
    {
        auto& t = *static_cast<Transfer*>(self);
        const std::string line(data, size * count);
        std::string value;
        if (line.rfind("HTTP/", 0) == 0) {
            // A new response (after a redirect): its headers replace the previous one's.
            const auto space = line.find(' ');
            t.status = space == std::string::npos ? 0 : std::strtol(line.c_str() + space + 1, nullptr, 10);
            t.headerBytes = 0;
            t.headersComplete = false;
            t.contentRange.clear();
            t.etag.clear();
            t.lastModified.clear();
            t.location.clear();
            t.contentEncoding.clear();
        }
        t.headerBytes += line.size();
        if (t.headerBytes > kMaxHeaderBytes) {
            t.headersTooLarge = true;
            return 0;
        }
        if (line == "\r\n" || line == "\n") {
            t.headersComplete = t.status >= 200;
        } else if (headerIs(line, "content-range", value)) {
            t.contentRange = value;
        } else if (headerIs(line, "etag", value)) {
            t.etag = value;
        } else if (headerIs(line, "last-modified", value)) {
            t.lastModified = value;
        } else if (headerIs(line, "location", value)) {
            t.location = value;
        } else if (headerIs(line, "content-encoding", value)) {
            t.contentEncoding = lowercase(value);
            // An encoded body is not the file's bytes; an error page may be encoded, it is dropped.
            if (t.contentEncoding != "identity" && !t.contentEncoding.empty() && t.status >= 200 && t.status < 300) {
                t.encoded = true;
                return 0;
            }
        } else if (headerIs(line, "x-linked-etag", value)) {
            t.owner->m_facts.linkedEtag = unquoted(value);
        }
        return size * count;
    }

    static std::size_t onBody(char* data, std::size_t size, std::size_t count, void* self)
    {
        auto& t = *static_cast<Transfer*>(self);
        const std::size_t n = size * count;
        if (t.status == 200) {
            t.wholeFile = true;  // stop before the body: it may be the whole model
            return 0;
        }
        if (t.status != 206)
            return n;  // an error page: read and dropped
        if (t.received + n > t.wanted) {
            t.overflow = true;
            return 0;
        }
        std::memcpy(t.out + t.received, data, n);
        t.received += n;
        t.owner->m_bytesReceived += n;
        return n;
    }

    static int onProgress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
    {
        // Runs on the reading thread (curl_multi_perform), so the reader's job flag is in reach.
        const auto& t = *static_cast<Transfer*>(self);
        return t.owner->isCancelled() ? 1 : 0;
    }

    void start(CURLM* multi, const std::string& url, const std::string& token, const RemoteOptions& options, const CurlLibrary& curl)
    {
        code = CURLE_OK;
        status = 0;
        received = 0;
        headerBytes = 0;
        headersComplete = overflow = wholeFile = headersTooLarge = encoded = false;
        contentRange.clear();
        location.clear();
        contentEncoding.clear();
        errorText[0] = '\0';
        startedAt = Clock::now();
        easy = curl.easyInit();
        const std::string range = std::to_string(offset) + "-" + std::to_string(offset + wanted - 1);
        const long connectMs = static_cast<long>(std::min(options.connectTimeout, options.unreachableAfter).count());
        curl.setPointer<CURLOPT_URL>(easy, url.c_str());
        curl.setPointer<CURLOPT_RANGE>(easy, range.c_str());
        curl.setLong<CURLOPT_FOLLOWLOCATION>(easy, 1L);
        curl.setLong<CURLOPT_MAXREDIRS>(easy, 10L);
        curl.setPointer<CURLOPT_PROTOCOLS_STR>(easy, "http,https");
        curl.setPointer<CURLOPT_REDIR_PROTOCOLS_STR>(easy, "http,https");
        curl.setLong<CURLOPT_NOSIGNAL>(easy, 1L);
        curl.setPointer<CURLOPT_USERAGENT>(easy, "gguf-explorer");
        curl.setLong<CURLOPT_CONNECTTIMEOUT_MS>(easy, std::max(1L, connectMs));
        curl.setLong<CURLOPT_LOW_SPEED_LIMIT>(easy, std::max(1L, options.lowSpeedBytesPerSecond));
        curl.setLong<CURLOPT_LOW_SPEED_TIME>(easy, std::max(1L, static_cast<long>(options.lowSpeedWindow.count())));
        curl.setCallback<CURLOPT_HEADERFUNCTION>(easy, &Transfer::onHeader);
        curl.setPointer<CURLOPT_HEADERDATA>(easy, this);
        curl.setCallback<CURLOPT_WRITEFUNCTION>(easy, &Transfer::onBody);
        curl.setPointer<CURLOPT_WRITEDATA>(easy, this);
        curl.setLong<CURLOPT_NOPROGRESS>(easy, 0L);
        curl.setCallback<CURLOPT_XFERINFOFUNCTION>(easy, &Transfer::onProgress);
        curl.setPointer<CURLOPT_XFERINFODATA>(easy, this);
        curl.setPointer<CURLOPT_ERRORBUFFER>(easy, errorText);
        curl.setPointer<CURLOPT_PRIVATE>(easy, this);
        // The file's own bytes: a compressed body would not be the asked range of the file.
        headers = curl.slistAppend(headers, "Accept-Encoding: identity");
        if (!token.empty()) {
            // libcurl drops a custom Authorization header when a redirect leaves the host.
            const std::string header = "Authorization: Bearer " + token;
            headers = curl.slistAppend(headers, header.c_str());
        }
        curl.setPointer<CURLOPT_HTTPHEADER>(easy, headers);
        curl.multiAddHandle(multi, easy);
        ++owner->m_requests;
    }

    void finish(CURLM* multi, const CurlLibrary& curl)
    {
        if (!easy)
            return;
        curl.multiRemoveHandle(multi, easy);
        curl.easyCleanup(easy);
        easy = nullptr;
        curl.slistFreeAll(headers);
        headers = nullptr;
    }
};

Status initializeHttp()
{
    auto curl = CurlLibrary::load();
    if (!curl)
        return curl.error();
    static std::once_flag once;
    std::call_once(once, [&] { curl.value()->globalInit(CURL_GLOBAL_DEFAULT); });
    return Ok{};
}

Result<std::shared_ptr<HttpFile>> HttpFile::open(const std::string& url, RemoteOptions options)
{
    if (Status ready = initializeHttp(); !ready)
        return Error{ready.error().message, Error::kNoOffset, url};
    std::shared_ptr<HttpFile> file(new HttpFile(url, std::move(options), *CurlLibrary::load().value()));
    file->m_firstBytes.resize(static_cast<std::size_t>(std::max<std::uint64_t>(1, file->m_options.firstReadBytes)));
    std::vector<Transfer> transfers(1);
    transfers[0].owner = file.get();
    transfers[0].out = file->m_firstBytes.data();
    transfers[0].wanted = file->m_firstBytes.size();
    if (Status s = file->runTransfers(transfers, true); !s)
        return s.error();
    file->m_firstBytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(file->m_facts.size, file->m_firstBytes.size())));
    return file;
}

bool HttpFile::isCancelled() const
{
    return (m_options.cancel && m_options.cancel->load(std::memory_order_relaxed)) || fetchCancelled();
}

Status HttpFile::checkUnchanged() const
{
    std::lock_guard lock(m_mutex);
    if (m_changed.empty())
        return Ok{};
    return Error{m_changed, Error::kNoOffset, m_url};
}

Status HttpFile::recentlyUnreachable() const
{
    std::lock_guard lock(m_mutex);
    if (!m_unreachableAt || since(*m_unreachableAt) >= m_options.unreachableAfter)
        return Ok{};
    return Error{m_unreachable, Error::kNoOffset, m_url};
}

Status HttpFile::read(const std::vector<ByteRange>& ranges)
{
    if (Status unchanged = checkUnchanged(); !unchanged)
        return unchanged;
    std::vector<Transfer> transfers;
    for (const ByteRange& range : ranges) {
        if (range.out.empty())
            continue;
        if (range.offset > m_facts.size || range.out.size() > m_facts.size - range.offset)
            return Error{"read of " + std::to_string(range.out.size()) + " bytes past the end of the remote file", range.offset, m_url};
        // Served from the opening request's bytes when it holds them: a small header costs one request.
        if (range.offset + range.out.size() <= m_firstBytes.size()) {
            std::memcpy(range.out.data(), m_firstBytes.data() + range.offset, range.out.size());
            continue;
        }
        Transfer t;
        t.owner = this;
        t.offset = range.offset;
        t.out = range.out.data();
        t.wanted = range.out.size();
        transfers.push_back(t);
    }
    if (transfers.empty())
        return Ok{};
    // A server found unreachable a moment ago is not asked again by every read that follows
    // (a view's rows, one read each, would each wait as long).
    if (Status reachable = recentlyUnreachable(); !reachable)
        return reachable;
    return runTransfers(transfers, false);
}

Status HttpFile::runTransfers(std::vector<Transfer>& transfers, bool first)
{
    const std::string token = tokenForUrl(m_url);
    CURLM* multi = m_curl.multiInit();
    std::deque<Transfer*> waiting;
    for (Transfer& t : transfers)
        waiting.push_back(&t);
    std::uint64_t wantedTotal = 0;
    for (const Transfer& t : transfers)
        wantedTotal += t.wanted;
    const std::uint64_t receivedBefore = m_bytesReceived;
    const std::uint64_t speed = std::max<std::uint64_t>(1, m_options.deadlineBytesPerSecond);
    const auto allowed = m_options.readDeadline + std::chrono::milliseconds(wantedTotal / speed * 1000 + wantedTotal % speed * 1000 / speed);
    const Clock::time_point deadline = Clock::now() + allowed;
    std::uint64_t reported = 0;
    int active = 0;
    Status outcome = Ok{};
    // Ends a try (curl finished it, or it waited too long for an answer) and decides what next.
    const auto conclude = [&](Transfer& t) -> Status {
        t.finish(multi, m_curl);
        --active;
        bool retry = false;
        if (Status judged = judge(t, first, retry); !judged)
            return judged;
        if (retry)
            waiting.push_back(&t);
        return Ok{};
    };
    while (outcome.ok() && (active > 0 || !waiting.empty())) {
        if (isCancelled()) {
            outcome = Error{"cancelled", Error::kNoOffset, m_url};
            break;
        }
        const auto now = Clock::now();
        if (now >= deadline) {
            outcome = Error{"the server is too slow: " + std::to_string(m_bytesReceived - receivedBefore) + " of "
                                + std::to_string(wantedTotal) + " bytes arrived in " + secondsText(allowed)
                                + ", the time this read is given",
                            transfers.front().offset, m_url};
            break;
        }
        for (auto it = waiting.begin(); it != waiting.end() && active < std::max(1, m_options.maxInFlight);) {
            if ((*it)->notBefore > now) {
                ++it;
                continue;
            }
            (*it)->start(multi, m_url, token, m_options, m_curl);
            ++active;
            it = waiting.erase(it);
        }
        int running = 0;
        m_curl.multiPerform(multi, &running);
        int left = 0;
        while (CURLMsg* message = m_curl.multiInfoRead(multi, &left)) {
            if (message->msg != CURLMSG_DONE)
                continue;
            char* owner = nullptr;
            m_curl.getPointer<CURLINFO_PRIVATE>(message->easy_handle, &owner);
            Transfer& t = *reinterpret_cast<Transfer*>(owner);
            t.code = message->data.result;
            if (t.code != CURLE_OK && !t.overflow && !t.wholeFile)
                t.lastProblem = t.errorText[0] ? t.errorText : m_curl.easyStrerror(t.code);
            if (Status s = conclude(t); !s) {
                outcome = s;
                break;
            }
        }
        // A connection that takes no answer as long as an unreachable server is given counts as one.
        for (Transfer& t : transfers) {
            if (!outcome.ok() || !t.easy || t.status != 0 || since(t.startedAt) < m_options.unreachableAfter)
                continue;
            t.code = CURLE_OPERATION_TIMEDOUT;
            t.lastProblem = "no response in " + secondsText(m_options.unreachableAfter);
            if (Status s = conclude(t); !s)
                outcome = s;
        }
        if (const std::uint64_t received = m_bytesReceived - receivedBefore; m_options.progress && received != reported) {
            reported = received;
            m_options.progress(std::min(received, wantedTotal), wantedTotal);
        }
        if (outcome.ok() && (active > 0 || !waiting.empty()))
            m_curl.multiPoll(multi, 50);
    }
    for (Transfer& t : transfers)
        t.finish(multi, m_curl);
    m_curl.multiCleanup(multi);
    return outcome;
}

// What the response of a finished try says about the file: Ok when it is the asked range (or
// a failed try to retry, left to judge), an error when the server answered something else.
Status HttpFile::judgeResponse(Transfer& t)
{
    const auto fail = [&](const std::string& message) { return Error{message, t.offset, m_url}; };
    // libcurl refuses one header line over 100 KiB itself, before it reaches onHeader.
    if (t.code == CURLE_OUT_OF_MEMORY && t.status != 0 && !t.headersComplete)
        t.headersTooLarge = true;
    if (t.headersTooLarge)
        return fail("the server's response headers are larger than " + std::to_string(kMaxHeaderBytes >> 10) + " KiB; refused");
    if (t.encoded)
        return fail("the server sent a '" + t.contentEncoding
                    + "'-encoded response, though only the file's own bytes (identity encoding) were asked for; refused");
    if (t.overflow)
        return fail("the server sent more bytes than the " + std::to_string(t.wanted) + " asked for");
    if (t.wholeFile)
        return fail("the server does not support range requests (it answered a range request with the whole file); "
                    "nothing was downloaded. Download the file first, or serve it from a server that supports ranges");
    if (t.code == CURLE_TOO_MANY_REDIRECTS)
        return fail("the server redirected more than 10 times (a redirect loop?)"
                    + (t.location.empty() ? std::string() : ", the last time to '" + t.location.substr(0, 200) + "'"));
    if (t.code == CURLE_UNSUPPORTED_PROTOCOL && t.status >= 300 && t.status < 400)
        return fail("the server redirected to '" + t.location.substr(0, 200) + "', which is not an http or https URL; refused");
    if (t.code == CURLE_OK && t.status >= 300 && t.status < 400)
        return fail("HTTP " + std::to_string(t.status) + " from the server without a redirect to follow"
                    + (t.location.empty() ? std::string(" (no Location header)") : " (Location: '" + t.location.substr(0, 200) + "')"));
    return Ok{};
}

// Decides what one finished try means: done, try again (maybe resuming), or an error.
Status HttpFile::judge(Transfer& t, bool first, bool& retry)
{
    retry = false;
    const auto fail = [&](const std::string& message) { return Error{message, t.offset, m_url}; };
    if (isCancelled())
        return fail("cancelled");
    if (Status s = judgeResponse(t); !s)
        return s;
    const bool tokenSent = !tokenForUrl(m_url).empty();
    const bool retryable = t.status == 0 || t.status == 408 || t.status == 429 || t.status >= 500;
    if (first && t.status == 416) {
        const ContentRange range = parseContentRange(t.contentRange);
        if (range.unsatisfied && range.total == 0) {  // an empty file
            m_opened = true;
            m_facts.etag = t.etag;
            m_facts.lastModified = t.lastModified;
            t.wanted = 0;
            return Ok{};
        }
    }
    if (t.status != 0 && t.status != 206 && !retryable)
        return Error{httpStatusMessage(t.status, tokenSent), Error::kNoOffset, m_url};
    // A 206 is judged once its headers are all here; a connection lost among them is a failed try.
    if (t.status == 206 && t.headersComplete) {
        const ContentRange range = parseContentRange(t.contentRange);
        if (!range.valid || range.unsatisfied)
            return fail("the server answered with a missing or malformed Content-Range ('" + t.contentRange.substr(0, 80) + "')");
        if (range.first != t.offset)
            return fail("the server sent bytes from " + std::to_string(range.first) + " instead of the asked " + std::to_string(t.offset));
        const std::uint64_t declared = range.last - range.first + 1;
        if (declared > t.wanted)
            return fail("the server sent more bytes than the " + std::to_string(t.wanted) + " asked for");
        // Fewer than asked is right only when the opening request reached the end of the file.
        const bool endOfFile = range.totalKnown && range.last + 1 == range.total;
        if (declared < t.wanted && !(first && endOfFile))
            return fail("the server sent " + std::to_string(declared) + " bytes where " + std::to_string(t.wanted) + " were asked for");
        std::lock_guard lock(m_mutex);
        if (!m_opened) {
            if (!range.totalKnown)
                return fail("the server does not say how big the file is (Content-Range without a total)");
            m_opened = true;
            m_facts.size = range.total;
            m_facts.etag = t.etag;
            m_facts.lastModified = t.lastModified;
            t.wanted = declared;  // the opening request asks for up to firstReadBytes
        } else {
            const bool byEtag = !m_facts.etag.empty();
            const bool same = byEtag ? t.etag == m_facts.etag
                                     : (m_facts.lastModified.empty() || t.lastModified == m_facts.lastModified);
            if (!same || (range.totalKnown && range.total != m_facts.size)) {
                m_changed = "the file changed on the server since it was opened ("
                          + std::string(byEtag ? "its ETag changed" : "its Last-Modified date changed")
                          + (range.totalKnown && range.total != m_facts.size ? ", and its size" : "") + ")";
                return fail(m_changed);
            }
        }
        if (t.received == declared) {
            m_silentSince.reset();
            m_silentTries = 0;
            return Ok{};
        }
        t.lastProblem = t.lastProblem.empty() ? "the response ended early" : t.lastProblem;
    }
    // A failed try: resume after what arrived, and wait before trying again.
    if (t.status == 206 && t.headersComplete && t.received > 0) {
        t.offset += t.received;
        t.out += t.received;
        t.wanted -= t.received;
        if (t.received >= m_options.progressBytes)
            t.failedTries = 0;  // real progress buys a fresh count; a few bytes do not
    }
    if (t.status >= 400)
        t.lastProblem = httpStatusMessage(t.status, tokenSent);
    ++t.failedTries;
    // Silence is counted over the file, from the first unanswered try since the last answer, and
    // so are its tries: a try that fails at once after other transfers' long silence is not
    // "1 try over 55 s".
    std::chrono::milliseconds silentFor{0};
    int silentTries = 0;
    {
        std::lock_guard lock(m_mutex);
        if (t.status != 0) {
            m_silentSince.reset();
            m_silentTries = 0;
        } else {
            if (!m_silentSince)
                m_silentSince = t.startedAt;
            silentFor = since(*m_silentSince);
            silentTries = ++m_silentTries;
        }
    }
    const bool silent = t.status == 0;
    if (silent && (silentFor >= m_options.unreachableAfter || t.failedTries >= m_options.maxAttempts)) {
        const std::string message = "cannot reach the server: no answer in " + std::to_string(silentTries)
                                  + (silentTries == 1 ? " try" : " tries") + " over " + secondsText(silentFor) + " (the last: " + t.lastProblem + ")";
        std::lock_guard lock(m_mutex);
        m_unreachableAt = Clock::now();
        m_unreachable = message;
        return Error{message, Error::kNoOffset, m_url};  // the server, not a place in the file
    }
    if (t.failedTries >= m_options.maxAttempts)
        return fail("gave up after " + std::to_string(m_options.maxAttempts) + " tries: " + t.lastProblem);
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(m_options.firstBackoff * (1 << std::min(t.failedTries - 1, 6)));
    if (silent)  // the last try comes when the server's time is up, not after it
        wait = std::min(wait, std::max(std::chrono::milliseconds(0), m_options.unreachableAfter - silentFor));
    t.notBefore = Clock::now() + wait;
    retry = true;
    return Ok{};
}

}  // namespace gguf::remote
