// The forward pass (core/forward) against llama.cpp's own logits and per-layer residual stream
// (fixtures/llama.cpp/logits, F32 KV cache, one thread): max |delta| / max |ref| below 1e-4 at
// every position and every layer, for every sequence, dense (tiny-llama F32) and MoE (tiny-moe
// F16, with llama.cpp's f16 rounding of activations emulated, and the tiny-moe-F32 oracle with
// pure f32 activations). Plus the failure paths: cancellation, bad token ids, unknown
// architectures, and the streaming bound on the weights held.

#include "app/threads/ParallelRows.h"
#include "core/forward/ForwardPass.h"
#include "core/gguf/Dequantize.h"
#include "core/quantize/Conversion.h"
#include "core/kernels/FloatEncode.h"
#include "core/kernels/HalfFloat.h"
#include "LogitsOracle.h"
#include "OpenFixture.h"
#include "SmallModels.h"
#include "core/write/GgufWriter.h"

#include <QTemporaryDir>

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cmath>
#include <set>
#include <string>

using namespace testsupport;

namespace {
constexpr double kBound = 1e-4;
// ForwardOptions' three ways of summing the matrix products: the default, the exact mode, BLAS.
const char* const kSumNames[] = {"lanes", "dgemm", "sgemm"};

enum class Activations { F32, EmulateF16 };

struct OracleCase {
    const char* model;
    const char* oracle;
    Activations activations;
};

// tiny-moe-F32 is tiny-moe-F16 widened exactly (fixtures README section 5): the same weights,
// so the F16 file with f32 activations must reproduce it; it is the tight MoE oracle.
const OracleCase kCases[] = {
    {"tiny-llama-F32.gguf", "tiny-llama-F32.P1", Activations::F32}, {"tiny-llama-F32.gguf", "tiny-llama-F32.P2", Activations::F32},
    {"tiny-llama-F32.gguf", "tiny-llama-F32.P3", Activations::F32}, {"tiny-moe-F16.gguf", "tiny-moe-F32.P1", Activations::F32},
    {"tiny-moe-F16.gguf", "tiny-moe-F32.P3", Activations::F32},     {"tiny-moe-F16.gguf", "tiny-moe-F16.P1", Activations::EmulateF16},
    {"tiny-moe-F16.gguf", "tiny-moe-F16.P2", Activations::EmulateF16}, {"tiny-moe-F16.gguf", "tiny-moe-F16.P3", Activations::EmulateF16},
};

// llama.cpp rounds the activations to f16 before each f16 product; when our value before the
// rounding differs from its value by one float ulp, the two can round to neighbouring f16
// values (1/1024 apart), and a few such flips are amplified at some positions. The emulation
// brings the F16 oracle from 0.63 % to these bounds (measured worst: logits 1.0e-3, hidden
// 6.9e-3, at a few positions; three quarters of the positions within 1e-4); the tight check is
// the F32 oracle above.
constexpr double kFlipLogitBound = 2e-3;
constexpr double kFlipHiddenBound = 1e-2;
}  // namespace

class ForwardPassTest : public QObject {
    Q_OBJECT

private slots:
    void matchesLlamaCpp_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("oracle");
        QTest::addColumn<bool>("emulate");
        QTest::addColumn<int>("sums");
        for (const auto& c : kCases)
            for (const int sums : {0, 1, 2}) {
                const bool emulate = c.activations == Activations::EmulateF16;
                QTest::newRow(QStringLiteral("%1 %2 %3")
                                  .arg(QLatin1String(c.oracle), emulate ? "f16-activations" : "f32-activations", kSumNames[sums])
                                  .toUtf8())
                    << QString::fromLatin1(c.model) << QString::fromLatin1(c.oracle) << emulate << sums;
            }
    }

    // The default sums (float lanes in ggml's order) and the exact mode (double) are held to
    // 1e-4. cblas_sgemm's sums are printed and held to 2e-4: at one (layer, position) of tiny-moe
    // P1 its rounding lands at 1.1e-4 with OpenBLAS's AVX-512 kernel (8.5e-5 with
    // OPENBLAS_CORETYPE=Haswell).
    void matchesLlamaCpp()
    {
        QFETCH(QString, model);
        QFETCH(QString, oracle);
        QFETCH(bool, emulate);
        QFETCH(int, sums);
        const auto reference = loadLogitsOracle(oracle);
        QVERIFY2(reference.loaded, qPrintable(oracle));
        const auto opened = openFixtureModel(model);
        QVERIFY(opened);
        gguf::ForwardOptions options;
        options.executor = &gguf::ParallelRows::shared();
        options.activations = emulate ? gguf::ActivationArithmetic::LlamaCpp : gguf::ActivationArithmetic::Float32;
        options.kvCache = kOracleKvCache;
        options.accumulateInDouble = sums == 1;
        options.accumulateWithBlas = sums == 2;
        auto result = gguf::runForward(*opened, reference.tokens, options);
        QVERIFY2(result, result ? "" : result.error().toString().c_str());
        QCOMPARE(result->hyperparameters.vocabularySize, reference.vocabulary);
        QCOMPARE(result->hyperparameters.layerCount, reference.layers);
        QCOMPARE(result->logits.size(), reference.logits.size());
        QCOMPARE(result->hidden.size(), reference.hidden.size());
        const double logitError = worstRowError(result->logits, reference.logits, static_cast<std::size_t>(reference.vocabulary));
        const double hiddenError = worstRowError(result->hidden, reference.hidden, static_cast<std::size_t>(reference.embedding));
        qInfo("%s %s: worst position logits %.3g, worst layer/position hidden %.3g", qPrintable(oracle), kSumNames[sums],
              logitError, hiddenError);
        const double scale = sums == 2 ? 2.0 : 1.0;
        QVERIFY2(logitError < (emulate ? kFlipLogitBound : scale * kBound), qPrintable(QString::number(logitError)));
        QVERIFY2(hiddenError < (emulate ? kFlipHiddenBound : scale * kBound), qPrintable(QString::number(hiddenError)));
        if (emulate) {
            // Flips are rare: most positions still match within the tight bound.
            int tight = 0;
            const auto width = static_cast<std::size_t>(reference.vocabulary);
            for (std::size_t first = 0; first < reference.logits.size(); first += width)
                tight += relativeRowError(std::span<const float>(result->logits).subspan(first, width),
                                          std::span<const float>(reference.logits).subspan(first, width))
                       < kBound;
            QVERIFY2(tight * 4 >= 3 * static_cast<int>(reference.tokens.size()), qPrintable(QString::number(tight)));
        }
    }

    // The bound is tight enough to see llama.cpp's f16 activation rounding: without emulating
    // it (f32 activations), the F16 oracle is missed (README: up to 0.63 % of the largest logit).
    void boundSeesActivationRounding()
    {
        const auto reference = loadLogitsOracle(QStringLiteral("tiny-moe-F16.P1"));
        QVERIFY(reference.loaded);
        const auto opened = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        QVERIFY(opened);
        gguf::ForwardOptions f32;
        f32.activations = gguf::ActivationArithmetic::Float32;
        auto result = gguf::runForward(*opened, reference.tokens, f32);
        QVERIFY(result);
        QVERIFY(worstRowError(result->logits, reference.logits, static_cast<std::size_t>(reference.vocabulary)) > 10 * kBound);
    }

    // For quantized files llama.cpp also quantizes the activations (q8_0 for legacy quants,
    // q8_K for K-quants). With that emulated our pass reproduces its logits and hidden states
    // within the same 1e-4 bound (measured: at most 3.2e-6, with the integer products of
    // kernels/QuantizedDot.h for Q8_0 and Q4_K); with f32 activations they are a neighbour, and
    // ours for the quantized file must still be nearer to them (mean |delta|) than ours for the
    // full-precision reference is.
    void quantizedFilesMatchWithLlamaActivations_data()
    {
        QTest::addColumn<QString>("oracle");
        QTest::addColumn<QString>("referenceModel");
        for (const char* name : {"tiny-llama-Q8_0", "tiny-llama-Q4_K", "tiny-llama-Q2_K"})
            for (const char* sequence : {".P1", ".P2"})
                QTest::newRow((std::string(name) + sequence).c_str()) << QString::fromLatin1(name) + QLatin1String(sequence)
                                                                      << QStringLiteral("tiny-llama-F32.gguf");
        for (const char* name : {"tiny-moe-Q4_K", "tiny-moe-Q2_K"})
            QTest::newRow((std::string(name) + ".P1").c_str()) << QString::fromLatin1(name) + QStringLiteral(".P1") << QStringLiteral("tiny-moe-F16.gguf");
    }

    void quantizedFilesMatchWithLlamaActivations()
    {
        QFETCH(QString, oracle);
        QFETCH(QString, referenceModel);
        const auto reference = loadLogitsOracle(oracle);
        QVERIFY(reference.loaded);
        const auto opened = openFixtureModel(oracle.section(QLatin1Char('.'), 0, 0) + QStringLiteral(".gguf"));
        const auto full = openFixtureModel(referenceModel);
        QVERIFY(opened && full);
        gguf::ForwardOptions emulate;
        emulate.executor = &gguf::ParallelRows::shared();
        emulate.activations = gguf::ActivationArithmetic::LlamaCpp;
        emulate.kvCache = kOracleKvCache;
        auto emulated = gguf::runForward(*opened, reference.tokens, emulate);
        QVERIFY(emulated);
        const double logitError = worstRowError(emulated->logits, reference.logits, static_cast<std::size_t>(reference.vocabulary));
        const double hiddenError = worstRowError(emulated->hidden, reference.hidden, static_cast<std::size_t>(reference.embedding));
        gguf::ForwardOptions f32;
        f32.activations = gguf::ActivationArithmetic::Float32;
        auto plain = gguf::runForward(*opened, reference.tokens, f32);
        auto fullResult = gguf::runForward(*full, reference.tokens, f32);
        gguf::ForwardOptions q8;
        q8.activations = gguf::ActivationArithmetic::QuantizedAsLlamaCpp;
        auto byQ8 = gguf::runForward(*opened, reference.tokens, q8);
        QVERIFY(plain && fullResult && byQ8);

        const auto meanDelta = [&](const std::vector<float>& ours) {
            double sum = 0.0;
            for (std::size_t i = 0; i < ours.size(); ++i)
                sum += std::abs(double(ours[i]) - double(reference.logits[i]));
            return sum / double(ours.size());
        };
        qInfo("%s: with llama.cpp's activation quantization worst logits %.3g, hidden %.3g; f32 activations: worst logits %.3g, mean |delta| "
              "%.3g (full-precision file: %.3g)",
              qPrintable(oracle), logitError, hiddenError,
              worstRowError(plain->logits, reference.logits, static_cast<std::size_t>(reference.vocabulary)), meanDelta(plain->logits),
              meanDelta(fullResult->logits));
        // As with f16 (kFlipLogitBound): where one activation lies on a q8_K rounding boundary,
        // ours and llama.cpp's can quantize it one step apart, since Q2_K products are not
        // summed in ggml's order (q8_0 and f32 ones are, and match to the bit; Q4_K ones are
        // summed in integers in the order of ggml's repacked kernels and come within 3.2e-6). Seen
        // once: Q2_K P2, 3.6e-3 of the logits and 4.1e-4 of one layer at a few positions;
        // everywhere else within the tight bound.
        QVERIFY2(logitError < kFlipLogitBound * 5, qPrintable(QString::number(logitError)));
        QVERIFY2(hiddenError < kFlipLogitBound, qPrintable(QString::number(hiddenError)));
        int tight = 0;
        const auto width = static_cast<std::size_t>(reference.vocabulary);
        for (std::size_t first = 0; first < reference.logits.size(); first += width)
            tight += relativeRowError(std::span<const float>(emulated->logits).subspan(first, width),
                                      std::span<const float>(reference.logits).subspan(first, width))
                   < kBound;
        qInfo("  %d of %zu positions within 1e-4", tight, reference.tokens.size());
        QVERIFY(tight * 4 >= 3 * static_cast<int>(reference.tokens.size()));
        QVERIFY(meanDelta(plain->logits) < meanDelta(fullResult->logits));

        // The q8 mode quantizes the activations into quantized weights as llama.cpp does, with
        // llama.cpp's products (f32 elsewhere, the oracle's f32 cache). Its plain attention
        // differs from ggml's in the last bit from the third position on, which now and then
        // crosses a q8 rounding further on (Q4_K P2: 3.3e-2 worst, mean |delta| 4.3e-3 against
        // the f32 mode's 1.4e-2; Q2_K P1: 1.4e-2): it is held nearer to llama.cpp than the f32
        // mode on the whole, and to the bound at the first position, which attention does not mix.
        const double q8Error = worstRowError(byQ8->logits, reference.logits, static_cast<std::size_t>(reference.vocabulary));
        qInfo("  q8 activations: worst logits %.3g, mean |delta| %.3g", q8Error, meanDelta(byQ8->logits));
        QVERIFY(meanDelta(byQ8->logits) * 2 < meanDelta(plain->logits));
        const double q8First = relativeRowError(std::span<const float>(byQ8->logits).first(width), std::span<const float>(reference.logits).first(width));
        QVERIFY2(q8First < kBound, qPrintable(QString::number(q8First)));
    }

    // Quantized and f16 matrices are dequantized a tile at a time inside the products (deferred);
    // an identity transform makes the loader dequantize them whole first, as before. The two
    // must agree to the bit, with and without llama.cpp's activation rounding, and the deferred
    // pass holds less than the whole copies do.
    void deferredWeightsMatchWholeCopies_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("emulate");
        for (const char* model : {"tiny-llama-Q4_K.gguf", "tiny-llama-Q8_0.gguf", "tiny-moe-F16.gguf", "tiny-moe-Q4_K.gguf"})
            for (const bool emulate : {false, true})
                // (Quantized weights with llama.cpp's activations are multiplied in integers,
                // which a transform turns off: that pair is not the same product either way.)
                if (!emulate || std::strstr(model, "F16") != nullptr)
                    QTest::newRow((std::string(model) + (emulate ? " llama.cpp activations" : "")).c_str())
                        << QString::fromLatin1(model) << emulate;
    }

    void deferredWeightsMatchWholeCopies()
    {
        QFETCH(QString, model);
        QFETCH(bool, emulate);
        const auto opened = openFixtureModel(model);
        QVERIFY(opened);
        const std::vector<std::int32_t> tokens{1, 5, 9, 200, 17, 33, 2, 64, 7};
        gguf::ForwardOptions deferred;
        deferred.executor = &gguf::ParallelRows::shared();
        deferred.activations = emulate ? gguf::ActivationArithmetic::LlamaCpp : gguf::ActivationArithmetic::Float32;
        gguf::ForwardOptions whole = deferred;
        whole.transform = [](const gguf::TensorInfo&, std::uint64_t, std::span<float>) -> gguf::Status { return gguf::Ok{}; };
        auto a = gguf::runForward(*opened, tokens, deferred);
        auto b = gguf::runForward(*opened, tokens, whole);
        QVERIFY(a && b);
        QCOMPARE(a->logits.size(), b->logits.size());
        QVERIFY(std::memcmp(a->logits.data(), b->logits.data(), a->logits.size() * sizeof(float)) == 0);
        QVERIFY(std::memcmp(a->hidden.data(), b->hidden.data(), a->hidden.size() * sizeof(float)) == 0);
        qInfo("f32 weight bytes held: deferred %llu, whole copies %llu", static_cast<unsigned long long>(a->peakWeightBytes),
              static_cast<unsigned long long>(b->peakWeightBytes));
        QVERIFY(a->peakWeightBytes < b->peakWeightBytes);
        // The exact (double) sums need whole copies and reuse their buffers as before.
        gguf::ForwardOptions exact = deferred;
        exact.accumulateInDouble = true;
        auto c = gguf::runForward(*opened, tokens, exact);
        QVERIFY(c);
        QVERIFY(c->peakWeightBytes <= b->peakWeightBytes);
    }

    void logitsFromAPositionMatchAWholePass_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("emulate");
        for (const char* model : {"tiny-llama-F32.gguf", "tiny-llama-Q4_K.gguf", "tiny-llama-Q8_0.gguf", "tiny-moe-F16.gguf"})
            for (const bool emulate : {false, true})
                QTest::newRow((std::string(model) + (emulate ? " llama.cpp activations" : "")).c_str()) << QString::fromLatin1(model) << emulate;
    }

    // A KLD over chunks reads the logits of each chunk's second half only, and the pass then
    // multiplies the output matrix for those positions alone: their logits must be a whole
    // pass's bits (every product's way of summing, the integer products included; OpenBLAS's
    // to float rounding), the rows
    // before stay zero, and a first position outside the sequence is refused.
    void logitsFromAPositionMatchAWholePass()
    {
        QFETCH(QString, model);
        QFETCH(bool, emulate);
        const auto opened = openFixtureModel(model);
        QVERIFY(opened);
        const std::vector<std::int32_t> tokens{1, 5, 9, 200, 17, 33, 2, 64, 7, 91, 3};
        for (const char* sums : kSumNames) {
            gguf::ForwardOptions whole;
            whole.executor = &gguf::ParallelRows::shared();
            whole.activations = emulate ? gguf::ActivationArithmetic::LlamaCpp : gguf::ActivationArithmetic::Float32;
            whole.accumulateInDouble = std::strcmp(sums, "dgemm") == 0;
            whole.accumulateWithBlas = std::strcmp(sums, "sgemm") == 0;
            auto all = gguf::runForward(*opened, tokens, whole);
            QVERIFY(all);
            for (const std::int64_t first : {std::int64_t{1}, std::int64_t{5}, std::int64_t{10}}) {
                gguf::ForwardOptions part = whole;
                part.firstLogitPosition = first;
                auto some = gguf::runForward(*opened, tokens, part);
                QVERIFY(some);
                QCOMPARE(some->logits.size(), all->logits.size());
                const std::size_t skipped = static_cast<std::size_t>(first) * all->logitsAt(0).size();
                // OpenBLAS picks its kernel by the matrix's shape (a small-matrix path for a few rows
                // on some CPUs), so fewer token rows may sum in another order: the same values to
                // float rounding, not the same bits. So does llama.cpp for a repacked Q4_K output
                // matrix (gemm for each four token rows, gemv for the rest): its logits of the
                // positions it is asked for depend on how many there are, and ours follow them.
                // Every other way of summing is ours and does not depend on the count: the bits.
                const bool countDependent = whole.accumulateWithBlas || (emulate && model.contains(QLatin1String("Q4_K")));
                QVERIFY2(sameValuesFrom(some->logits, all->logits, skipped, !countDependent), sums);
                QVERIFY(std::all_of(some->logits.begin(), some->logits.begin() + static_cast<std::ptrdiff_t>(skipped),
                                    [](float x) { return x == 0.0f; }));
                // Every layer's residual stream as in the whole pass, the last layer's from `first` on
                // (its FFN runs only where logits are read); the same for the experts routed.
                QCOMPARE(some->hidden.size(), all->hidden.size());
                const std::int64_t layers = all->hyperparameters.layerCount;
                const std::size_t width = static_cast<std::size_t>(all->hyperparameters.embeddingLength);
                const std::size_t lastLayer = all->hiddenAt(layers - 1).size() * static_cast<std::size_t>(layers - 1);
                const std::size_t lastKept = lastLayer + static_cast<std::size_t>(first) * width;
                QVERIFY(std::memcmp(some->hidden.data(), all->hidden.data(), lastLayer * sizeof(float)) == 0);
                QVERIFY2(sameValuesFrom(some->hidden, all->hidden, lastKept, !countDependent), sums);
                QCOMPARE(some->selectedExperts.size(), all->selectedExperts.size());
                if (!all->selectedExperts.empty()) {
                    const std::size_t perLayer = all->selectedExperts.size() / static_cast<std::size_t>(layers);
                    const std::size_t routedFrom = perLayer * static_cast<std::size_t>(layers - 1)
                                                 + static_cast<std::size_t>(first * all->hyperparameters.expertUsedCount);
                    QVERIFY(std::equal(some->selectedExperts.begin(), some->selectedExperts.begin() + static_cast<std::ptrdiff_t>(perLayer * (layers - 1)),
                                       all->selectedExperts.begin()));
                    QVERIFY(std::equal(some->selectedExperts.begin() + static_cast<std::ptrdiff_t>(routedFrom), some->selectedExperts.end(),
                                       all->selectedExperts.begin() + static_cast<std::ptrdiff_t>(routedFrom)));
                }
            }
        }
        for (const std::int64_t outside : {std::int64_t{-1}, static_cast<std::int64_t>(tokens.size())}) {
            gguf::ForwardOptions bad;
            bad.firstLogitPosition = outside;
            auto refused = gguf::runForward(*opened, tokens, bad);
            QVERIFY(!refused);
            QVERIFY2(refused.error().message.find("first position with logits") != std::string::npos, refused.error().message.c_str());
        }
    }

    void passRunsOnTheCallersExecutor_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("arithmetic");
        QTest::addColumn<int>("sums");  // 0 float lanes, 1 cblas_sgemm, 2 double
        const std::pair<const char*, gguf::ActivationArithmetic> arithmetics[] = {
            {"f32", gguf::ActivationArithmetic::Float32},
            {"default", gguf::ActivationArithmetic::QuantizedAsLlamaCpp},
            {"llama.cpp", gguf::ActivationArithmetic::LlamaCpp}};
        for (const char* model : {"tiny-llama-F32.gguf", "tiny-llama-Q4_K.gguf", "tiny-llama-Q8_0.gguf", "tiny-moe-F16.gguf"}) {
            for (const auto& [name, arithmetic] : arithmetics)
                QTest::newRow((std::string(model) + " " + name).c_str()) << QString::fromLatin1(model) << static_cast<int>(arithmetic) << 0;
            for (const int sums : {1, 2})
                QTest::newRow((std::string(model) + (sums == 1 ? " sgemm sums" : " double sums")).c_str())
                    << QString::fromLatin1(model) << static_cast<int>(gguf::ActivationArithmetic::Float32) << sums;
        }
    }

    // The pass starts no thread of its own: its products, attention heads and dequantization run
    // as tasks on the executor it is given (counted here), and the logits and hidden states are
    // the same bits on the calling thread alone (no executor) and on three threads, in every
    // arithmetic and way of summing (OpenBLAS's products included: its own threads would share
    // them out by their count).
    void passRunsOnTheCallersExecutor()
    {
        QFETCH(QString, model);
        QFETCH(int, arithmetic);
        QFETCH(int, sums);
        const auto opened = openFixtureModel(model);
        QVERIFY(opened);
        struct CountingExecutor : gguf::TaskExecutor {
            gguf::ParallelRows pool{3};
            std::atomic<std::size_t> tasks{0};
            unsigned threadCount() const override { return pool.threadCount(); }
            void run(std::size_t count, const std::function<void(std::size_t)>& task) override
            {
                tasks += count;
                pool.run(count, task);
            }
        } counting;
        std::vector<std::int32_t> tokens;
        for (int i = 0; i < 150; ++i)
            tokens.push_back((i * 37 + 1) % 500);
        gguf::ForwardOptions alone;
        alone.activations = static_cast<gguf::ActivationArithmetic>(arithmetic);
        alone.accumulateWithBlas = sums == 1;
        alone.accumulateInDouble = sums == 2;
        gguf::ForwardOptions threaded = alone;
        threaded.executor = &counting;
        auto a = gguf::runForward(*opened, tokens, alone);
        auto b = gguf::runForward(*opened, tokens, threaded);
        QVERIFY(a && b);
        QVERIFY(counting.tasks.load() > 0);
        QCOMPARE(a->logits.size(), b->logits.size());
        QVERIFY(std::memcmp(a->logits.data(), b->logits.data(), a->logits.size() * sizeof(float)) == 0);
        QCOMPARE(a->hidden.size(), b->hidden.size());
        QVERIFY(std::memcmp(a->hidden.data(), b->hidden.data(), a->hidden.size() * sizeof(float)) == 0);
    }

    // With enough experts routed for the threads (at least 4 per thread), a layer runs its experts
    // side by side, one task each, instead of sharing each expert's products out by rows: the
    // same bits as one thread alone. 200 tokens route all 8 of tiny-moe's experts in every layer,
    // so 2 threads take that path (F16 and IQ4_XS weights, both read in place).
    void expertsSideBySideMatchOneThread_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("emulate");
        for (const char* model : {"tiny-moe-F16.gguf", "llama.cpp/tiny-moe-imat-IQ4_XS.gguf"})
            QTest::newRow(model) << QString::fromLatin1(model) << false;
        // llama.cpp's arithmetic: F16 experts in its float lanes, Q4_K ones in integer products.
        for (const char* model : {"tiny-moe-F16.gguf", "tiny-moe-Q4_K.gguf"})
            QTest::newRow((std::string(model) + " llama.cpp activations").c_str()) << QString::fromLatin1(model) << true;
    }

    void expertsSideBySideMatchOneThread()
    {
        QFETCH(QString, model);
        QFETCH(bool, emulate);
        const auto opened = openFixtureModel(model);
        QVERIFY(opened);
        constexpr std::int32_t kTokens = 200;
        std::vector<std::int32_t> tokens;
        for (std::int32_t i = 0; i < kTokens; ++i)
            tokens.push_back(1 + i);
        gguf::ParallelRows two(2);
        gguf::ForwardOptions alone;
        alone.activations = emulate ? gguf::ActivationArithmetic::LlamaCpp : gguf::ActivationArithmetic::Float32;
        gguf::ForwardOptions threaded = alone;
        threaded.executor = &two;
        auto a = gguf::runForward(*opened, tokens, alone);
        auto b = gguf::runForward(*opened, tokens, threaded);
        QVERIFY(a && b);
        const auto& h = a->hyperparameters;
        for (std::int64_t layer = 0; layer < h.layerCount; ++layer) {
            std::set<std::int32_t> routed;
            for (std::int64_t i = 0; i < kTokens * h.expertUsedCount; ++i)
                routed.insert(a->selectedExperts[static_cast<std::size_t>(layer * kTokens * h.expertUsedCount + i)]);
            QCOMPARE(static_cast<std::int64_t>(routed.size()), h.expertCount);  // 8 >= 4 x 2 threads
        }
        QVERIFY(a->selectedExperts == b->selectedExperts);
        QVERIFY(std::memcmp(a->logits.data(), b->logits.data(), a->logits.size() * sizeof(float)) == 0);
        QVERIFY(std::memcmp(a->hidden.data(), b->hidden.data(), a->hidden.size() * sizeof(float)) == 0);
    }

    void selectedExpertsAreTopKOfRouter()
    {
        const auto opened = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        QVERIFY(opened);
        const std::vector<std::int32_t> tokens{1, 5, 9, 200, 17};
        auto result = gguf::runForward(*opened, tokens);
        QVERIFY(result);
        const auto& h = result->hyperparameters;
        QCOMPARE(h.expertCount, 8);
        QCOMPARE(h.expertUsedCount, 2);
        QCOMPARE(result->selectedExperts.size(), static_cast<std::size_t>(h.layerCount * 5 * 2));
        for (std::size_t i = 0; i < result->selectedExperts.size(); i += 2) {
            QVERIFY(result->selectedExperts[i] != result->selectedExperts[i + 1]);
            QVERIFY(result->selectedExperts[i] >= 0 && result->selectedExperts[i] < 8);
        }
    }

    void weightsAreStreamed()
    {
        const auto opened = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        QVERIFY(opened);
        const std::vector<std::int32_t> tokens{1, 2, 3};
        auto result = gguf::runForward(*opened, tokens);
        QVERIFY(result);
        std::uint64_t allWeights = 0;
        std::uint64_t layerZero = 0;
        for (const auto& t : opened->tensors()) {
            allWeights += t.elementCount() * sizeof(float);
            if (t.name.starts_with("blk.0."))
                layerZero += t.elementCount() * sizeof(float);
        }
        qInfo("peak f32 weights held %llu bytes; one layer %llu; whole model %llu", static_cast<unsigned long long>(result->peakWeightBytes),
              static_cast<unsigned long long>(layerZero), static_cast<unsigned long long>(allWeights));
        QVERIFY(result->peakWeightBytes > 0);
        QVERIFY(result->peakWeightBytes <= layerZero);
    }

    void cancelStopsThePass()
    {
        const auto opened = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(opened);
        std::atomic<bool> cancel{false};
        gguf::ForwardOptions options;
        options.executor = &gguf::ParallelRows::shared();
        options.cancel = &cancel;
        int calls = 0;
        options.progress = [&](std::int64_t, std::int64_t) {
            ++calls;
            cancel = true;
        };
        const std::vector<std::int32_t> tokens{1, 2, 3};
        auto result = gguf::runForward(*opened, tokens, options);
        QVERIFY(!result);
        QCOMPARE(QString::fromStdString(result.error().message), QString::fromLatin1(gguf::kForwardCancelled));
        QCOMPARE(calls, 1);
    }

    // No output.weight: the logits come from token_embd.weight (llama.cpp's TENSOR_DUPLICATED
    // fallback). Checked against the last hidden state, normed and multiplied out here in double.
    void missingOutputUsesTiedEmbedding()
    {
        const auto source = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(source);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("tied.gguf")).toStdString();
        gguf::GgufWriter writer;
        QVERIFY(writer.copyMetadata(source->primary()));
        for (const auto& tensor : source->tensors()) {
            if (tensor.name == "output.weight")
                continue;
            gguf::TensorSpec spec{std::string(tensor.name), tensor.typeId, {}};
            for (std::uint32_t d = 0; d < tensor.nDims; ++d)
                spec.ne.push_back(tensor.ne[d]);
            const gguf::TensorInfo* info = &tensor;
            QVERIFY(writer.addTensor(spec, [info](gguf::ByteSink& out) { return out.write(info->data, info->nbytes); }));
        }
        QVERIFY(writer.writeFile(path));
        const auto tied = openModelAt(QString::fromStdString(path));
        QVERIFY(tied);
        const std::vector<std::int32_t> tokens{1, 7, 42, 300};
        auto result = gguf::runForward(*tied, tokens);
        QVERIFY2(result, result ? "" : result.error().toString().c_str());
        QVERIFY(result->hyperparameters.tiedOutput);
        auto untied = gguf::runForward(*source, tokens);
        QVERIFY(untied);
        QVERIFY(!untied->hyperparameters.tiedOutput);
        QVERIFY(result->hidden == untied->hidden);

        const auto& h = result->hyperparameters;
        const gguf::TensorInfo* embd = tied->findTensor("token_embd.weight");
        const gguf::TensorInfo* norm = tied->findTensor("output_norm.weight");
        QVERIFY(embd && norm && embd->typeId == 0 && norm->typeId == 0);
        const auto* e = reinterpret_cast<const float*>(embd->data);
        const auto* g = reinterpret_cast<const float*>(norm->data);
        const auto last = result->hiddenAt(h.layerCount - 1);
        std::vector<float> expected;
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            const float* x = last.data() + t * static_cast<std::size_t>(h.embeddingLength);
            double sum = 0.0;
            for (std::int64_t i = 0; i < h.embeddingLength; ++i)
                sum += double(x[i]) * x[i];
            const double scale = 1.0 / std::sqrt(sum / double(h.embeddingLength) + double(h.rmsEpsilon));
            for (std::int64_t v = 0; v < h.vocabularySize; ++v) {
                double dot = 0.0;
                for (std::int64_t i = 0; i < h.embeddingLength; ++i)
                    dot += double(x[i]) * scale * double(g[i]) * double(e[v * h.embeddingLength + i]);
                expected.push_back(static_cast<float>(dot));
            }
        }
        const double error = worstRowError(result->logits, expected, static_cast<std::size_t>(h.vocabularySize));
        QVERIFY2(error < 1e-5, qPrintable(QString::number(error)));
        QVERIFY(worstRowError(untied->logits, expected, static_cast<std::size_t>(h.vocabularySize)) > 1e-2);
    }

    // Hostile hyperparameters and shapes: a precise error naming the key or tensor, never a
    // crash or an allocation sized by the bad field.
    // A companion .scale of a weight (an NVFP4 conversion's per-tensor scale) multiplies its
    // products, as llama.cpp's build_lora_mm does: the logits used to be the same with every
    // scale at 0 or at 2, then the file was refused. Its logits now differ from the unscaled
    // file's as llama.cpp's do (by about max|logit|; tst_forward_types holds them to llama.cpp's),
    // and every view's dequantization gives the effective values, the stored ones times the scale.
    void weightScalesAreApplied()
    {
        const auto scaled = openModelAt(fixturePath(QStringLiteral("llama.cpp/types/tiny-llama-NVFP4-scaled.gguf")));
        const auto plain = openModelAt(fixturePath(QStringLiteral("tiny-llama-NVFP4.gguf")));
        QVERIFY(scaled && plain);
        const std::vector<std::int32_t> tokens{1, 2, 3};
        const auto withScales = gguf::runForward(*scaled, tokens);
        const auto without = gguf::runForward(*plain, tokens);
        QVERIFY2(withScales, withScales ? "" : withScales.error().toString().c_str());
        QVERIFY(without);
        const auto width = static_cast<std::size_t>(without->hyperparameters.vocabularySize);
        QVERIFY(worstRowError(withScales->logits, without->logits, width) > 0.1);

        const gguf::TensorInfo* weight = scaled->findTensor("blk.0.attn_q.weight");
        const gguf::TensorInfo* scale = scaled->findTensor("blk.0.attn_q.scale");
        QVERIFY(weight && scale && weight->outputScale == scale);
        float factor = 0.0f;
        std::memcpy(&factor, scale->data, sizeof factor);
        QVERIFY(factor != 1.0f);
        const auto columns = static_cast<std::size_t>(weight->ne[0]);
        std::vector<float> stored(columns), effective(columns);
        QVERIFY(gguf::dequantizeRows(*weight, 0, 1, stored, gguf::WeightValues::Stored));
        QVERIFY(gguf::dequantizeRows(*weight, 0, 1, effective));
        for (std::size_t i = 0; i < columns; ++i)
            QCOMPARE(effective[i], stored[i] * factor);
    }

    // A conversion re-quantizes a scaled weight's stored values and keeps its companion scale,
    // as llama-quantize does: converting the effective values (stored times scale) would apply
    // the scale twice in the converted file. To f32 the NVFP4 values are exact.
    void conversionKeepsStoredValues()
    {
        const auto scaled = openModelAt(fixturePath(QStringLiteral("llama.cpp/types/tiny-llama-NVFP4-scaled.gguf")));
        QVERIFY(scaled);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("f32.gguf")).toStdString();
        gguf::ConversionOptions options;
        options.targetType = 0;
        QVERIFY(gguf::convertModel(*scaled, path, options));
        const auto converted = openModelAt(QString::fromStdString(path));
        QVERIFY(converted);
        const gguf::TensorInfo* before = scaled->findTensor("blk.0.attn_q.weight");
        const gguf::TensorInfo* after = converted->findTensor("blk.0.attn_q.weight");
        QVERIFY(before && after && after->typeId == 0 && after->outputScale);
        const auto columns = static_cast<std::size_t>(before->ne[0]);
        std::vector<float> stored(columns), written(columns);
        QVERIFY(gguf::dequantizeRows(*before, 0, 1, stored, gguf::WeightValues::Stored));
        QVERIFY(gguf::dequantizeRows(*after, 0, 1, written, gguf::WeightValues::Stored));
        QVERIFY(stored == written);
    }

    // A per-expert companion scale multiplies each expert's product once, in every arithmetic:
    // tiny-moe-F16 with every ffn_down_exps.scale 2 gives the bits of the same file with those
    // expert weights doubled (exact in f16, and so in every product) and no scale. A path that
    // multiplied the effective values (stored times scale) and then the product by the scale
    // doubled it twice (llama.cpp's arithmetic read deferred f16 experts that way).
    void expertScalesMultiplyOnce()
    {
        const auto source = openFixtureModel(QStringLiteral("tiny-moe-F16.gguf"));
        QVERIFY(source);
        QTemporaryDir dir;
        const auto write = [&](const QString& name, bool scaled) -> std::shared_ptr<const gguf::Model> {
            gguf::GgufWriter writer;
            if (!writer.copyMetadata(source->primary()))
                return nullptr;
            std::vector<std::string> scales;
            for (const auto& tensor : source->tensors()) {
                gguf::TensorSpec spec{std::string(tensor.name), tensor.typeId, {}};
                for (std::uint32_t d = 0; d < tensor.nDims; ++d)
                    spec.ne.push_back(tensor.ne[d]);
                const gguf::TensorInfo* info = &tensor;
                const bool down = std::string_view(tensor.name).ends_with("ffn_down_exps.weight");
                if (down && scaled)
                    scales.push_back(std::string(tensor.name.substr(0, tensor.name.size() - 6)) + "scale");
                const bool doubled = down && !scaled;
                if (!writer.addTensor(spec, [info, doubled](gguf::ByteSink& out) {
                        if (!doubled)
                            return out.write(info->data, info->nbytes);
                        std::vector<std::uint8_t> bytes(info->data, info->data + info->nbytes);
                        for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) {
                            const auto half = static_cast<std::uint16_t>(bytes[i] | (bytes[i + 1] << 8));
                            const std::uint16_t twice = gguf::quantize::f32ToF16Bits(2.0f * gguf::f16ToF32(half));
                            bytes[i] = static_cast<std::uint8_t>(twice & 0xFF);
                            bytes[i + 1] = static_cast<std::uint8_t>(twice >> 8);
                        }
                        return out.write(bytes.data(), bytes.size());
                    }))
                    return nullptr;
            }
            for (const std::string& scaleName : scales) {
                const std::vector<float> twos(8, 2.0f);
                if (!writer.addTensor({scaleName, 0, {8}}, [twos](gguf::ByteSink& out) { return out.write(twos.data(), twos.size() * sizeof(float)); }))
                    return nullptr;
            }
            const std::string path = dir.filePath(name).toStdString();
            return writer.writeFile(path) ? openModelAt(QString::fromStdString(path)) : nullptr;
        };
        const auto scaled = write(QStringLiteral("scaled.gguf"), true);
        const auto doubled = write(QStringLiteral("doubled.gguf"), false);
        QVERIFY(scaled && doubled);
        QVERIFY(scaled->findTensor("blk.0.ffn_down_exps.weight")->outputScale);
        const std::vector<std::int32_t> tokens{1, 7, 42, 300, 5, 9, 200, 17, 33, 2, 64};
        for (const auto arithmetic : {gguf::ActivationArithmetic::LlamaCpp, gguf::ActivationArithmetic::QuantizedAsLlamaCpp,
                                      gguf::ActivationArithmetic::Float32}) {
            gguf::ForwardOptions options;
            options.executor = &gguf::ParallelRows::shared();
            options.activations = arithmetic;
            const auto a = gguf::runForward(*scaled, tokens, options);
            const auto b = gguf::runForward(*doubled, tokens, options);
            QVERIFY2(a && b, a ? (b ? "" : b.error().toString().c_str()) : a.error().toString().c_str());
            QVERIFY2(a->logits == b->logits, gguf::activationArithmeticName(arithmetic));
        }
    }

    void rejectsInconsistentModels_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no epsilon") << QStringLiteral("no-epsilon") << QStringLiteral("layer_norm_rms_epsilon");
        QTest::newRow("huge feed-forward") << QStringLiteral("ff") << QStringLiteral("blk.0.ffn_gate.weight");
        QTest::newRow("heads do not divide") << QStringLiteral("kv") << QStringLiteral("head_count_kv");
        QTest::newRow("too many heads") << QStringLiteral("heads") << QStringLiteral("key_length");
        QTest::newRow("wrong q shape") << QStringLiteral("q") << QStringLiteral("blk.0.attn_q.weight");
        QTest::newRow("missing ffn_down") << QStringLiteral("down") << QStringLiteral("blk.0.ffn_down.weight");
        QTest::newRow("experts without tensors") << QStringLiteral("experts") << QStringLiteral("blk.0.ffn_gate_inp.weight");
        // Held against the tensors before any buffer is sized by it (it used to end in bad_alloc).
        QTest::newRow("huge block count") << QStringLiteral("layers") << QStringLiteral("block_count");
        // A per-layer array of another length than the layers is refused, not read as absent.
        QTest::newRow("per-layer kv heads") << QStringLiteral("kv-array") << QStringLiteral("head_count_kv has type arr[u32]");
    }

    void rejectsInconsistentModels()
    {
        QFETCH(QString, change);
        QFETCH(QString, expected);
        using gguf::EncodedValue;
        const std::int64_t e = 32, ff = 64, vocab = 16;
        std::vector<std::pair<std::string, EncodedValue>> keys{
            {"general.architecture", EncodedValue::string("llama")},
            {"llama.context_length", EncodedValue::u32(64)},
            {"llama.embedding_length", EncodedValue::u32(e)},
            {"llama.block_count", EncodedValue::u32(change == "layers" ? 1u << 31 : 1)},
            {"llama.feed_forward_length", EncodedValue::u32(change == "ff" ? 1u << 30 : ff)},
            {"llama.attention.head_count", EncodedValue::u32(change == "heads" ? 64 : 4)},
        };
        const std::string fourHeadsTwice("\x04\0\0\0\x04\0\0\0", 8);  // two values for one layer
        keys.push_back({"llama.attention.head_count_kv", change == "kv-array" ? *EncodedValue::fixedArray(gguf::ValueType::U32, fourHeadsTwice)
                                                                              : EncodedValue::u32(change == "kv" ? 3 : 4)});
        if (change != "no-epsilon")
            keys.push_back({"llama.attention.layer_norm_rms_epsilon", EncodedValue::f32(1e-5f)});
        if (change == "experts") {
            keys.push_back({"llama.expert_count", EncodedValue::u32(4)});
            keys.push_back({"llama.expert_used_count", EncodedValue::u32(2)});
        }
        std::vector<SmallTensor> tensors{{"token_embd.weight", {e, vocab}}, {"output_norm.weight", {e}},
                                         {"blk.0.attn_norm.weight", {e}},   {"blk.0.attn_q.weight", {e, change == "q" ? e + 1 : e}},
                                         {"blk.0.attn_k.weight", {e, e}},   {"blk.0.attn_v.weight", {e, e}},
                                         {"blk.0.attn_output.weight", {e, e}}, {"blk.0.ffn_norm.weight", {e}},
                                         {"blk.0.ffn_gate.weight", {e, ff}}, {"blk.0.ffn_up.weight", {e, ff}}};
        if (change != "down")
            tensors.push_back({"blk.0.ffn_down.weight", {ff, e}});
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("bad.gguf")).toStdString();
        QCOMPARE(QString::fromStdString(writeSmallModel(path, keys, tensors)), QString());
        const auto model = openModelAt(QString::fromStdString(path));
        QVERIFY(model);
        auto result = gguf::runForward(*model, std::vector<std::int32_t>{1, 2, 3});
        QVERIFY(!result);
        QVERIFY2(result.error().message.find(expected.toStdString()) != std::string::npos, result.error().message.c_str());
    }

    // The same small model with consistent shapes runs (the rows above fail for their reason).
    void consistentSmallModelRuns()
    {
        using gguf::EncodedValue;
        const std::int64_t e = 32, ff = 64, vocab = 16;
        const std::vector<std::pair<std::string, EncodedValue>> keys{
            {"general.architecture", EncodedValue::string("llama")}, {"llama.embedding_length", EncodedValue::u32(e)},
            {"llama.context_length", EncodedValue::u32(64)},         {"llama.block_count", EncodedValue::u32(1)},
            {"llama.feed_forward_length", EncodedValue::u32(ff)},
            {"llama.attention.head_count", EncodedValue::u32(4)},    {"llama.attention.layer_norm_rms_epsilon", EncodedValue::f32(1e-5f)}};
        const std::vector<SmallTensor> tensors{{"token_embd.weight", {e, vocab}}, {"output_norm.weight", {e}},
                                               {"blk.0.attn_norm.weight", {e}},   {"blk.0.attn_q.weight", {e, e}},
                                               {"blk.0.attn_k.weight", {e, e}},   {"blk.0.attn_v.weight", {e, e}},
                                               {"blk.0.attn_output.weight", {e, e}}, {"blk.0.ffn_norm.weight", {e}},
                                               {"blk.0.ffn_gate.weight", {e, ff}}, {"blk.0.ffn_up.weight", {e, ff}},
                                               {"blk.0.ffn_down.weight", {ff, e}}};
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("ok.gguf")).toStdString();
        QCOMPARE(QString::fromStdString(writeSmallModel(path, keys, tensors)), QString());
        const auto model = openModelAt(QString::fromStdString(path));
        QVERIFY(model);
        auto result = gguf::runForward(*model, std::vector<std::int32_t>{1, 2, 3});
        QVERIFY2(result, result ? "" : result.error().toString().c_str());
        QVERIFY(result->hyperparameters.tiedOutput);
        QCOMPARE(result->logits.size(), std::size_t{3 * 16});
    }

    void rejectsBadInput()
    {
        const auto opened = openFixtureModel(QStringLiteral("tiny-llama-F32.gguf"));
        QVERIFY(opened);
        const std::vector<std::int32_t> outside{1, 512};
        auto result = gguf::runForward(*opened, outside);
        QVERIFY(!result);
        QVERIFY2(result.error().message.find("position 1") != std::string::npos, result.error().message.c_str());
        const std::vector<std::int32_t> negative{-1};
        QVERIFY(!gguf::runForward(*opened, negative));
        QVERIFY(!gguf::runForward(*opened, std::vector<std::int32_t>{}));
        // A file without an architecture the pass knows says so.
        const auto other = openFixtureModel(QStringLiteral("all-types.gguf"));
        QVERIFY(other);
        auto unknown = gguf::runForward(*other, std::vector<std::int32_t>{1});
        QVERIFY(!unknown);
        QVERIFY2(unknown.error().message.find("(supported: ") != std::string::npos && unknown.error().message.find("llama") != std::string::npos,
                 unknown.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(ForwardPassTest)
#include "tst_forward_pass.moc"
