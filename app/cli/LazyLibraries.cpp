// OpenBLAS, loaded on first use instead of at start-up (libcurl is core/remote/CurlLibrary's).
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

#include <cblas.h>

#include "LazyLoad.h"

namespace {

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
