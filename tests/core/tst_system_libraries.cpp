// The system libraries core loads on first use (base/SharedLibrary.h): OpenBLAS and libcurl are
// found and resolved; a missing library is named with the loader's reason; and the portable gemm
// kernels that stand in for a missing OpenBLAS give OpenBLAS's results for every order and
// transpose (on integer-valued matrices, whose sums are exact in any order).

#include "core/base/BlasLibrary.h"
#include "core/base/SharedLibrary.h"
#include "core/remote/CurlLibrary.h"

#include <QtTest>

#include <cstring>
#include <vector>

class TestSystemLibraries : public QObject {
    Q_OBJECT

private slots:
    void openBlasAndCurlLoad()
    {
        QVERIFY2(gguf::BlasLibrary::loadProblem().empty(), gguf::BlasLibrary::loadProblem().c_str());
        QVERIFY(gguf::blas().sgemm && gguf::blas().dgemm);
        QVERIFY(gguf::blas().sgemm != gguf::BlasLibrary::portable().sgemm);
        const auto curl = gguf::remote::CurlLibrary::load();
        QVERIFY2(curl, curl ? "" : curl.error().message.c_str());
        QVERIFY(curl.value()->easyStrerror(CURLE_OK) != nullptr);
    }

    void aMissingLibraryIsNamed()
    {
        static const char* const kNames[] = {"libggufx-no-such-library.so.7", nullptr};
        std::string error;
        QVERIFY(!gguf::openSharedLibrary(kNames, "NoSuch", error));
        QVERIFY2(error.find("cannot load NoSuch (libggufx-no-such-library.so.7: cannot open shared object file") == 0, error.c_str());
    }

    void portableGemmMatchesOpenBlas_data()
    {
        QTest::addColumn<int>("order");
        QTest::addColumn<int>("transA");
        QTest::addColumn<int>("transB");
        for (const int order : {CblasRowMajor, CblasColMajor})
            for (const int a : {CblasNoTrans, CblasTrans})
                for (const int b : {CblasNoTrans, CblasTrans})
                    QTest::addRow("%s A%s B%s", order == CblasRowMajor ? "row-major" : "column-major", a == CblasTrans ? "^T" : "",
                                  b == CblasTrans ? "^T" : "")
                        << order << a << b;
    }

    void portableGemmMatchesOpenBlas()
    {
        QFETCH(int, order);
        QFETCH(int, transA);
        QFETCH(int, transB);
        const auto o = static_cast<CBLAS_ORDER>(order);
        const auto ta = static_cast<CBLAS_TRANSPOSE>(transA), tb = static_cast<CBLAS_TRANSPOSE>(transB);
        const int m = 5, n = 7, k = 3;
        // Leading dimensions with padding, so a stride mix-up shows.
        const bool rowMajor = o == CblasRowMajor;
        const int aRows = (ta == CblasNoTrans) == rowMajor ? m : k, aCols = (ta == CblasNoTrans) == rowMajor ? k : m;
        const int bRows = (tb == CblasNoTrans) == rowMajor ? k : n, bCols = (tb == CblasNoTrans) == rowMajor ? n : k;
        const int lda = aCols + 2, ldb = bCols + 1, ldc = (rowMajor ? n : m) + 3;
        std::vector<double> a(static_cast<std::size_t>(aRows * lda)), b(static_cast<std::size_t>(bRows * ldb));
        for (std::size_t i = 0; i < a.size(); ++i)
            a[i] = static_cast<double>(static_cast<int>(i * 7 % 11) - 5);
        for (std::size_t i = 0; i < b.size(); ++i)
            b[i] = static_cast<double>(static_cast<int>(i * 5 % 13) - 6);
        const std::size_t cSize = static_cast<std::size_t>((rowMajor ? m : n) * ldc);
        std::vector<double> c0(cSize), c1(cSize);
        for (std::size_t i = 0; i < cSize; ++i)
            c0[i] = c1[i] = static_cast<double>(static_cast<int>(i % 9) - 4);
        gguf::blas().dgemm(o, ta, tb, m, n, k, 2.0, a.data(), lda, b.data(), ldb, 0.5, c0.data(), ldc);
        gguf::BlasLibrary::portable().dgemm(o, ta, tb, m, n, k, 2.0, a.data(), lda, b.data(), ldb, 0.5, c1.data(), ldc);
        QVERIFY(std::memcmp(c0.data(), c1.data(), cSize * sizeof(double)) == 0);

        const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
        std::vector<float> f0(cSize, 1.0f), f1(cSize, 1.0f);
        gguf::blas().sgemm(o, ta, tb, m, n, k, 1.0f, af.data(), lda, bf.data(), ldb, 0.0f, f0.data(), ldc);
        gguf::BlasLibrary::portable().sgemm(o, ta, tb, m, n, k, 1.0f, af.data(), lda, bf.data(), ldb, 0.0f, f1.data(), ldc);
        QVERIFY(std::memcmp(f0.data(), f1.data(), cSize * sizeof(float)) == 0);
    }
};

QTEST_GUILESS_MAIN(TestSystemLibraries)
#include "tst_system_libraries.moc"
