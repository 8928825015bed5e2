#pragma once
// OpenBLAS as a typed function table, loaded with dlopen at the first matrix product (the
// forward pass's), by the CLI and the GUI alike: most runs never multiply a matrix, and
// OpenBLAS's constructor starts a thread per core and allocates their buffers at load. The
// functions are OpenBLAS's own, so results are those of a direct link.
//
// Where OpenBLAS cannot be loaded, the table holds portable kernels with the same contract
// (plain loops, slower, their sums in another order) and loadProblem() says why, so that a
// missing library costs speed, never a crash.

#include <cblas.h>

#include <string>

namespace gguf {

struct BlasLibrary {
    decltype(&cblas_sgemm) sgemm = nullptr;
    decltype(&cblas_dgemm) dgemm = nullptr;

    // Empty when OpenBLAS was loaded; else what failed ("cannot load OpenBLAS (...)").
    static const std::string& loadProblem();
    // The portable kernels alone (what the table holds without OpenBLAS), for tests.
    static BlasLibrary portable();
};

// The table, resolved once (thread-safe) on first use.
const BlasLibrary& blas();

}  // namespace gguf
