#pragma once
// libcurl as a typed function table, loaded with dlopen the first time a URL is read (by the CLI
// and the GUI alike): programs and commands that never fetch a URL do not load libcurl and its
// TLS, Kerberos and LDAP stack (about 35 shared objects), and a machine without libcurl still
// runs everything else, with a clear error at the first URL.
//
// curl_easy_setopt and curl_easy_getinfo take their value through C varargs, typed by the
// option's number range; here each kind of option has its own wrapper (long, pointer, callback,
// curl_off_t) that checks at compile time that the option is of that kind, and for callbacks
// that the function has the signature libcurl calls it with.

#include "core/base/Result.h"

#include <curl/curl.h>

namespace gguf::remote {

namespace curlkind {
constexpr bool isLong(CURLoption option) { return option < CURLOPTTYPE_OBJECTPOINT; }
constexpr bool isPointer(CURLoption option)  // strings, slists, user data (OBJECTPOINT = STRINGPOINT = SLISTPOINT)
{
    return (option >= CURLOPTTYPE_OBJECTPOINT && option < CURLOPTTYPE_FUNCTIONPOINT) || option >= CURLOPTTYPE_BLOB;
}
constexpr bool isFunction(CURLoption option) { return option >= CURLOPTTYPE_FUNCTIONPOINT && option < CURLOPTTYPE_OFF_T; }
constexpr bool isOffset(CURLoption option) { return option >= CURLOPTTYPE_OFF_T && option < CURLOPTTYPE_BLOB; }
constexpr int infoType(CURLINFO info) { return static_cast<int>(info) & CURLINFO_TYPEMASK; }

// The callback type libcurl calls for each function option this project sets.
template <CURLoption Option>
struct Callback;
template <>
struct Callback<CURLOPT_WRITEFUNCTION> { using Type = curl_write_callback; };
template <>
struct Callback<CURLOPT_HEADERFUNCTION> { using Type = curl_write_callback; };
template <>
struct Callback<CURLOPT_XFERINFOFUNCTION> { using Type = curl_xferinfo_callback; };
}  // namespace curlkind

class CurlLibrary {
public:
    // The library, loaded and resolved once (thread-safe) and kept for the process's life; an
    // error naming the library or function that is missing.
    static Result<const CurlLibrary*> load();

    CURLcode globalInit(long flags) const { return m_globalInit(flags); }
    CURL* easyInit() const { return m_easyInit(); }
    void easyCleanup(CURL* easy) const { m_easyCleanup(easy); }
    const char* easyStrerror(CURLcode code) const { return m_easyStrerror(code); }
    curl_slist* slistAppend(curl_slist* list, const char* text) const { return m_slistAppend(list, text); }
    void slistFreeAll(curl_slist* list) const { m_slistFreeAll(list); }
    CURLM* multiInit() const { return m_multiInit(); }
    CURLMcode multiAddHandle(CURLM* multi, CURL* easy) const { return m_multiAddHandle(multi, easy); }
    CURLMcode multiRemoveHandle(CURLM* multi, CURL* easy) const { return m_multiRemoveHandle(multi, easy); }
    CURLMcode multiPerform(CURLM* multi, int* running) const { return m_multiPerform(multi, running); }
    CURLMcode multiPoll(CURLM* multi, int timeoutMs) const { return m_multiPoll(multi, nullptr, 0, timeoutMs, nullptr); }
    CURLMsg* multiInfoRead(CURLM* multi, int* left) const { return m_multiInfoRead(multi, left); }
    CURLMcode multiCleanup(CURLM* multi) const { return m_multiCleanup(multi); }

    template <CURLoption Option>
    CURLcode setLong(CURL* easy, long value) const
    {
        static_assert(curlkind::isLong(Option), "not a long option");
        return m_easySetopt(easy, Option, value);
    }
    template <CURLoption Option>
    CURLcode setPointer(CURL* easy, const void* value) const
    {
        static_assert(curlkind::isPointer(Option), "not a pointer option");
        return m_easySetopt(easy, Option, const_cast<void*>(value));
    }
    template <CURLoption Option>
    CURLcode setCallback(CURL* easy, typename curlkind::Callback<Option>::Type function) const
    {
        static_assert(curlkind::isFunction(Option), "not a function option");
        return m_easySetopt(easy, Option, function);
    }
    template <CURLoption Option>
    CURLcode setOffset(CURL* easy, curl_off_t value) const
    {
        static_assert(curlkind::isOffset(Option), "not a curl_off_t option");
        return m_easySetopt(easy, Option, value);
    }
    // CURLINFO_STRING and CURLINFO_PTR answers (a char* or a pointer set with CURLOPT_PRIVATE).
    template <CURLINFO Info>
    CURLcode getPointer(CURL* easy, char** out) const
    {
        static_assert(curlkind::infoType(Info) == CURLINFO_STRING || curlkind::infoType(Info) == CURLINFO_PTR, "not a pointer answer");
        return m_easyGetinfo(easy, Info, out);
    }
    template <CURLINFO Info>
    CURLcode getLong(CURL* easy, long* out) const
    {
        static_assert(curlkind::infoType(Info) == CURLINFO_LONG, "not a long answer");
        return m_easyGetinfo(easy, Info, out);
    }

private:
    CurlLibrary() = default;

    decltype(&curl_global_init) m_globalInit = nullptr;
    decltype(&curl_easy_init) m_easyInit = nullptr;
    decltype(&curl_easy_setopt) m_easySetopt = nullptr;
    decltype(&curl_easy_getinfo) m_easyGetinfo = nullptr;
    decltype(&curl_easy_cleanup) m_easyCleanup = nullptr;
    decltype(&curl_easy_strerror) m_easyStrerror = nullptr;
    decltype(&curl_slist_append) m_slistAppend = nullptr;
    decltype(&curl_slist_free_all) m_slistFreeAll = nullptr;
    decltype(&curl_multi_init) m_multiInit = nullptr;
    decltype(&curl_multi_add_handle) m_multiAddHandle = nullptr;
    decltype(&curl_multi_remove_handle) m_multiRemoveHandle = nullptr;
    decltype(&curl_multi_perform) m_multiPerform = nullptr;
    decltype(&curl_multi_poll) m_multiPoll = nullptr;
    decltype(&curl_multi_info_read) m_multiInfoRead = nullptr;
    decltype(&curl_multi_cleanup) m_multiCleanup = nullptr;
};

}  // namespace gguf::remote
