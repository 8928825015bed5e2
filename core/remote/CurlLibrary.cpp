#include "core/remote/CurlLibrary.h"

#include "core/base/SharedLibrary.h"

#include <mutex>

namespace gguf::remote {

Result<const CurlLibrary*> CurlLibrary::load()
{
    // Resolved once; a failure is kept too, so every later URL gets the same message at once.
    static std::once_flag once;
    static CurlLibrary library;
    static std::string error;
    std::call_once(once, [] {
        static const char* const kNames[] = {"libcurl.so.4", "libcurl.so", nullptr};
        const char* what = "libcurl";
        void* handle = openSharedLibrary(kNames, what, error);
        if (!handle) {
            error += "; install libcurl (Debian: libcurl4) to read models over HTTP";
            return;
        }
        CurlLibrary& f = library;
        resolveFunction(handle, "curl_global_init", f.m_globalInit, what, error);
        resolveFunction(handle, "curl_easy_init", f.m_easyInit, what, error);
        resolveFunction(handle, "curl_easy_setopt", f.m_easySetopt, what, error);
        resolveFunction(handle, "curl_easy_getinfo", f.m_easyGetinfo, what, error);
        resolveFunction(handle, "curl_easy_cleanup", f.m_easyCleanup, what, error);
        resolveFunction(handle, "curl_easy_strerror", f.m_easyStrerror, what, error);
        resolveFunction(handle, "curl_slist_append", f.m_slistAppend, what, error);
        resolveFunction(handle, "curl_slist_free_all", f.m_slistFreeAll, what, error);
        resolveFunction(handle, "curl_multi_init", f.m_multiInit, what, error);
        resolveFunction(handle, "curl_multi_add_handle", f.m_multiAddHandle, what, error);
        resolveFunction(handle, "curl_multi_remove_handle", f.m_multiRemoveHandle, what, error);
        resolveFunction(handle, "curl_multi_perform", f.m_multiPerform, what, error);
        resolveFunction(handle, "curl_multi_poll", f.m_multiPoll, what, error);
        resolveFunction(handle, "curl_multi_info_read", f.m_multiInfoRead, what, error);
        resolveFunction(handle, "curl_multi_cleanup", f.m_multiCleanup, what, error);
    });
    if (!error.empty())
        return Error{error, Error::kNoOffset, {}};
    return &library;
}

}  // namespace gguf::remote
