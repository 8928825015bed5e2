// libcurl and OpenBLAS, loaded on first use instead of at start-up.
//
// Most commands (`info`, `meta`, `tensors`, `check`, ...) read a local file and never fetch a URL
// or multiply a matrix, yet linking the two libraries made every run load about 35 shared
// objects: libcurl's TLS, Kerberos and LDAP stack, and OpenBLAS, whose constructor starts a
// thread per core and allocates their buffers. That was most of a short command's time and a
// good part of its peak memory. The CLI therefore defines the few entry points core/ calls
// (core/remote/HttpFile.cpp, core/forward/) itself; linked with --as-needed, the executable no
// longer depends on either library, and each definition forwards to the real function, looked
// up with dlopen the first time one of its library's functions is called. The same library
// files do the work, so results are those of a direct link.

#define CURL_DISABLE_TYPECHECK  // the type-checking macros would rename the definitions below
#include <curl/curl.h>

#include <cblas.h>

#include "LazyLoad.h"

#include <cstdarg>

namespace {

struct CurlFunctions {
    decltype(&curl_global_init) globalInit;
    decltype(&curl_easy_init) easyInit;
    decltype(&curl_easy_setopt) easySetopt;
    decltype(&curl_easy_getinfo) easyGetinfo;
    decltype(&curl_easy_cleanup) easyCleanup;
    decltype(&curl_easy_strerror) easyStrerror;
    decltype(&curl_slist_append) slistAppend;
    decltype(&curl_slist_free_all) slistFreeAll;
    decltype(&curl_multi_init) multiInit;
    decltype(&curl_multi_add_handle) multiAddHandle;
    decltype(&curl_multi_remove_handle) multiRemoveHandle;
    decltype(&curl_multi_perform) multiPerform;
    decltype(&curl_multi_poll) multiPoll;
    decltype(&curl_multi_info_read) multiInfoRead;
    decltype(&curl_multi_cleanup) multiCleanup;
};

// Resolved once, thread-safely (a function-local static), on the first call into libcurl.
const CurlFunctions& curl()
{
    static const CurlFunctions functions = [] {
        static const char* const kNames[] = {"libcurl.so.4", "libcurl.so", nullptr};
        const char* what = "libcurl";
        void* lib = lazyload::libraryOrExit(kNames, what);
        CurlFunctions f{};
        f.globalInit = lazyload::symbolOrExit<decltype(f.globalInit)>(lib, "curl_global_init", what);
        f.easyInit = lazyload::symbolOrExit<decltype(f.easyInit)>(lib, "curl_easy_init", what);
        f.easySetopt = lazyload::symbolOrExit<decltype(f.easySetopt)>(lib, "curl_easy_setopt", what);
        f.easyGetinfo = lazyload::symbolOrExit<decltype(f.easyGetinfo)>(lib, "curl_easy_getinfo", what);
        f.easyCleanup = lazyload::symbolOrExit<decltype(f.easyCleanup)>(lib, "curl_easy_cleanup", what);
        f.easyStrerror = lazyload::symbolOrExit<decltype(f.easyStrerror)>(lib, "curl_easy_strerror", what);
        f.slistAppend = lazyload::symbolOrExit<decltype(f.slistAppend)>(lib, "curl_slist_append", what);
        f.slistFreeAll = lazyload::symbolOrExit<decltype(f.slistFreeAll)>(lib, "curl_slist_free_all", what);
        f.multiInit = lazyload::symbolOrExit<decltype(f.multiInit)>(lib, "curl_multi_init", what);
        f.multiAddHandle = lazyload::symbolOrExit<decltype(f.multiAddHandle)>(lib, "curl_multi_add_handle", what);
        f.multiRemoveHandle = lazyload::symbolOrExit<decltype(f.multiRemoveHandle)>(lib, "curl_multi_remove_handle", what);
        f.multiPerform = lazyload::symbolOrExit<decltype(f.multiPerform)>(lib, "curl_multi_perform", what);
        f.multiPoll = lazyload::symbolOrExit<decltype(f.multiPoll)>(lib, "curl_multi_poll", what);
        f.multiInfoRead = lazyload::symbolOrExit<decltype(f.multiInfoRead)>(lib, "curl_multi_info_read", what);
        f.multiCleanup = lazyload::symbolOrExit<decltype(f.multiCleanup)>(lib, "curl_multi_cleanup", what);
        return f;
    }();
    return functions;
}

struct BlasFunctions {
    decltype(&cblas_sgemm) sgemm;
    decltype(&cblas_dgemm) dgemm;
};

const BlasFunctions& blas()
{
    static const BlasFunctions functions = [] {
        static const char* const kNames[] = {"libopenblas.so.0", "libopenblas.so", nullptr};
        const char* what = "OpenBLAS";
        void* lib = lazyload::libraryOrExit(kNames, what);
        return BlasFunctions{lazyload::symbolOrExit<decltype(&cblas_sgemm)>(lib, "cblas_sgemm", what),
                             lazyload::symbolOrExit<decltype(&cblas_dgemm)>(lib, "cblas_dgemm", what)};
    }();
    return functions;
}

}  // namespace

extern "C" {

CURLcode curl_global_init(long flags) { return curl().globalInit(flags); }
CURL* curl_easy_init(void) { return curl().easyInit(); }

// The one variadic argument is read with the type libcurl itself reads for the option's range.
CURLcode curl_easy_setopt(CURL* handle, CURLoption option, ...)
{
    va_list args;
    va_start(args, option);
    CURLcode result;
    if (option < CURLOPTTYPE_OBJECTPOINT)
        result = curl().easySetopt(handle, option, va_arg(args, long));
    else if (option < CURLOPTTYPE_FUNCTIONPOINT || option >= CURLOPTTYPE_BLOB)
        result = curl().easySetopt(handle, option, va_arg(args, void*));
    else if (option < CURLOPTTYPE_OFF_T)
        result = curl().easySetopt(handle, option, va_arg(args, void (*)()));
    else
        result = curl().easySetopt(handle, option, va_arg(args, curl_off_t));
    va_end(args);
    return result;
}

// Every CURLINFO_* takes a pointer to where the answer goes.
CURLcode curl_easy_getinfo(CURL* handle, CURLINFO info, ...)
{
    va_list args;
    va_start(args, info);
    void* out = va_arg(args, void*);
    va_end(args);
    return curl().easyGetinfo(handle, info, out);
}

void curl_easy_cleanup(CURL* handle) { curl().easyCleanup(handle); }
const char* curl_easy_strerror(CURLcode code) { return curl().easyStrerror(code); }
curl_slist* curl_slist_append(curl_slist* list, const char* text) { return curl().slistAppend(list, text); }
void curl_slist_free_all(curl_slist* list) { curl().slistFreeAll(list); }
CURLM* curl_multi_init(void) { return curl().multiInit(); }
CURLMcode curl_multi_add_handle(CURLM* multi, CURL* handle) { return curl().multiAddHandle(multi, handle); }
CURLMcode curl_multi_remove_handle(CURLM* multi, CURL* handle) { return curl().multiRemoveHandle(multi, handle); }
CURLMcode curl_multi_perform(CURLM* multi, int* running) { return curl().multiPerform(multi, running); }
CURLMcode curl_multi_poll(CURLM* multi, curl_waitfd extra[], unsigned int extraCount, int timeoutMs, int* ready)
{
    return curl().multiPoll(multi, extra, extraCount, timeoutMs, ready);
}
CURLMsg* curl_multi_info_read(CURLM* multi, int* left) { return curl().multiInfoRead(multi, left); }
CURLMcode curl_multi_cleanup(CURLM* multi) { return curl().multiCleanup(multi); }

void cblas_sgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transA, const enum CBLAS_TRANSPOSE transB, const blasint m,
                 const blasint n, const blasint k, const float alpha, const float* a, const blasint lda, const float* b, const blasint ldb,
                 const float beta, float* c, const blasint ldc)
{
    blas().sgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transA, const enum CBLAS_TRANSPOSE transB, const blasint m,
                 const blasint n, const blasint k, const double alpha, const double* a, const blasint lda, const double* b,
                 const blasint ldb, const double beta, double* c, const blasint ldc)
{
    blas().dgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // extern "C"
