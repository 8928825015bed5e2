#include "remote/HttpFile.h"

#include "remote/RemoteUrl.h"

#include "gguf/FetchCancel.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace gguf::remote {

namespace {
std::once_flag g_curlInit;

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
    std::chrono::steady_clock::time_point notBefore{};
    std::string lastProblem;
    // This try:
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    long status = 0;
    std::uint64_t received = 0;
    std::string contentRange, etag, lastModified;
    bool overflow = false, wholeFile = false;
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
            t.contentRange.clear();
            t.etag.clear();
            t.lastModified.clear();
        } else if (headerIs(line, "content-range", value)) {
            t.contentRange = value;
        } else if (headerIs(line, "etag", value)) {
            t.etag = value;
        } else if (headerIs(line, "last-modified", value)) {
            t.lastModified = value;
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

    void start(CURLM* multi, const std::string& url, const std::string& token, const RemoteOptions& options)
    {
        status = 0;
        received = 0;
        overflow = wholeFile = false;
        contentRange.clear();
        errorText[0] = '\0';
        easy = curl_easy_init();
        const std::string range = std::to_string(offset) + "-" + std::to_string(offset + wanted - 1);
        curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
        curl_easy_setopt(easy, CURLOPT_RANGE, range.c_str());
        curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
        curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_USERAGENT, "gguf-explorer");
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connectTimeout.count() * 1000));
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.stallTimeout.count()));
        curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &Transfer::onHeader);
        curl_easy_setopt(easy, CURLOPT_HEADERDATA, this);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Transfer::onBody);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
        curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, &Transfer::onProgress);
        curl_easy_setopt(easy, CURLOPT_XFERINFODATA, this);
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errorText);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, this);
        if (!token.empty()) {
            // libcurl drops a custom Authorization header when a redirect leaves the host.
            const std::string header = "Authorization: Bearer " + token;
            headers = curl_slist_append(headers, header.c_str());
            curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
        }
        curl_multi_add_handle(multi, easy);
        ++owner->m_requests;
    }

    void finish(CURLM* multi)
    {
        if (!easy)
            return;
        curl_multi_remove_handle(multi, easy);
        curl_easy_cleanup(easy);
        easy = nullptr;
        curl_slist_free_all(headers);
        headers = nullptr;
    }
};

void initializeHttp()
{
    std::call_once(g_curlInit, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Result<std::shared_ptr<HttpFile>> HttpFile::open(const std::string& url, RemoteOptions options)
{
    initializeHttp();
    std::shared_ptr<HttpFile> file(new HttpFile(url, std::move(options)));
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
    return runTransfers(transfers, false);
}

Status HttpFile::runTransfers(std::vector<Transfer>& transfers, bool first)
{
    const std::string token = tokenForUrl(m_url);
    CURLM* multi = curl_multi_init();
    std::deque<Transfer*> waiting;
    for (Transfer& t : transfers)
        waiting.push_back(&t);
    std::uint64_t wantedTotal = 0;
    for (const Transfer& t : transfers)
        wantedTotal += t.wanted;
    std::uint64_t doneTotal = 0;
    int active = 0;
    Status outcome = Ok{};
    while (outcome.ok() && (active > 0 || !waiting.empty())) {
        if (isCancelled()) {
            outcome = Error{"cancelled", Error::kNoOffset, m_url};
            break;
        }
        const auto now = std::chrono::steady_clock::now();
        for (auto it = waiting.begin(); it != waiting.end() && active < std::max(1, m_options.maxInFlight);) {
            if ((*it)->notBefore > now) {
                ++it;
                continue;
            }
            (*it)->start(multi, m_url, token, m_options);
            ++active;
            it = waiting.erase(it);
        }
        int running = 0;
        curl_multi_perform(multi, &running);
        int left = 0;
        while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
            if (message->msg != CURLMSG_DONE)
                continue;
            Transfer* t = nullptr;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
            const CURLcode code = message->data.result;
            if (code != CURLE_OK && !t->overflow && !t->wholeFile)
                t->lastProblem = t->errorText[0] ? t->errorText : curl_easy_strerror(code);
            t->finish(multi);
            --active;
            bool retry = false;
            if (Status judged = judge(*t, first, retry); !judged) {
                outcome = judged;
                break;
            }
            if (retry) {
                waiting.push_back(t);
            } else {
                doneTotal += t->received;
            }
            if (m_options.progress)
                m_options.progress(doneTotal, wantedTotal);
        }
        if (outcome.ok() && (active > 0 || !waiting.empty()))
            curl_multi_poll(multi, nullptr, 0, 50, nullptr);
    }
    for (Transfer& t : transfers)
        t.finish(multi);
    curl_multi_cleanup(multi);
    return outcome;
}

// Decides what one finished try means: done, try again (maybe resuming), or an error.
Status HttpFile::judge(Transfer& t, bool first, bool& retry)
{
    retry = false;
    const auto fail = [&](const std::string& message) { return Error{message, t.offset, m_url}; };
    if (isCancelled())
        return fail("cancelled");
    if (t.overflow)
        return fail("the server sent more bytes than the " + std::to_string(t.wanted) + " asked for");
    if (t.wholeFile)
        return fail("the server does not support range requests (it answered a range request with the whole file); "
                    "nothing was downloaded. Download the file first, or serve it from a server that supports ranges");
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
    if (t.status == 206) {
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
        if (t.received == declared)
            return Ok{};
        t.lastProblem = t.lastProblem.empty() ? "the response ended early" : t.lastProblem;
    }
    // A failed try: resume after what arrived, and wait before trying again.
    if (t.status == 206 && t.received > 0) {
        t.offset += t.received;
        t.out += t.received;
        t.wanted -= t.received;
        t.failedTries = 0;  // progress was made
    }
    if (t.status >= 400)
        t.lastProblem = httpStatusMessage(t.status, tokenSent);
    ++t.failedTries;
    if (t.failedTries >= m_options.maxAttempts)
        return fail("gave up after " + std::to_string(m_options.maxAttempts) + " tries: " + t.lastProblem);
    const auto wait = m_options.firstBackoff * (1 << std::min(t.failedTries - 1, 6));
    t.notBefore = std::chrono::steady_clock::now() + wait;
    retry = true;
    return Ok{};
}

}  // namespace gguf::remote
