#include "core/base/BlasLibrary.h"


#include <dlfcn.h>

#include "core/base/SharedLibrary.h"

namespace gguf {

namespace {

// C = alpha op(A) op(B) + beta C, as cblas_?gemm defines it, for real matrices.
template <typename T>
void portableGemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, blasint m, blasint n, blasint k, T alpha,
                  const T* a, blasint lda, const T* b, blasint ldb, T beta, T* c, blasint ldc)
{
    if (order == CblasColMajor) {  // a column-major C is the row-major C^T = op(B)^T op(A)^T
        portableGemm(CblasRowMajor, transB, transA, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
        return;
    }
    const bool ta = transA != CblasNoTrans, tb = transB != CblasNoTrans;
    for (blasint i = 0; i < m; ++i)
        for (blasint j = 0; j < n; ++j) {
            T sum = 0;
            for (blasint p = 0; p < k; ++p)
                sum += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
            T& out = c[i * ldc + j];
            out = alpha * sum + (beta == T(0) ? T(0) : beta * out);
        }
}

void portableSgemm(const CBLAS_ORDER order, const CBLAS_TRANSPOSE transA, const CBLAS_TRANSPOSE transB, const blasint m, const blasint n,
                   const blasint k, const float alpha, const float* a, const blasint lda, const float* b, const blasint ldb, const float beta,
                   float* c, const blasint ldc)
{
    portableGemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void portableDgemm(const CBLAS_ORDER order, const CBLAS_TRANSPOSE transA, const CBLAS_TRANSPOSE transB, const blasint m, const blasint n,
                   const blasint k, const double alpha, const double* a, const blasint lda, const double* b, const blasint ldb,
                   const double beta, double* c, const blasint ldc)
{
    portableGemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

struct Loaded {
    BlasLibrary table;
    std::string problem;
};

const Loaded& loaded()
{
    static const Loaded library = [] {
        Loaded result;
        static const char* const kNames[] = {"libopenblas.so.0", "libopenblas.so", nullptr};
        const char* what = "OpenBLAS";
        if (void* handle = openSharedLibrary(kNames, what, result.problem)) {
            resolveFunction(handle, "cblas_sgemm", result.table.sgemm, what, result.problem);
            resolveFunction(handle, "cblas_dgemm", result.table.dgemm, what, result.problem);
            // One thread: OpenBLAS shares a product out by its own thread count, and the
            // sums of a share's edge depend on where it falls, so a pass at 2 threads gave
            // other bits than at 1 (its attention, from 129 tokens). Its idle threads also
            // spun beside the pass's own (sched_yield, 6 % of a 2-thread pass's samples).
            // Callers run their products side by side on their own pool instead.
            if (auto* setThreads = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads")))
                setThreads(1);
        }
        if (!result.problem.empty()) {
            result.problem += "; matrix products run on slower portable code (Debian: install libopenblas0)";
            result.table = BlasLibrary::portable();
        }
        return result;
    }();
    return library;
}

}  // namespace

BlasLibrary BlasLibrary::portable()
{
    return BlasLibrary{&portableSgemm, &portableDgemm};
}

const std::string& BlasLibrary::loadProblem()
{
    return loaded().problem;
}

const BlasLibrary& blas()
{
    return loaded().table;
}

}  // namespace gguf
