// Importance-weighted error metrics (compare --imatrix): the plain figures stay bit-identical
// with and without a matrix; the weighted ones equal sum_j w_j (x_j - q_j)^2 written out here
// from llama-quantize's weights (quantWeights) and the dequantized tensors, per tensor, per
// expert, per layer and per column, whatever the thread count.

#include "TestPools.h"
#include "OpenFixture.h"
#include "core/compare/ColumnErrorProfile.h"
#include "core/compare/ComparisonJson.h"
#include "core/compare/ErrorMetricTable.h"
#include "core/compare/ImportanceErrorMetrics.h"
#include "core/compare/LayerErrorMetrics.h"
#include "core/compare/ModelComparison.h"
#include "core/imatrix/ImatrixValidation.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/quantize/Quantize.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <mutex>
#include <random>

using namespace gguf;

namespace {

bool sameBits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

std::shared_ptr<ImportanceMatrix> boundMatrix(const QString& name, const Model& reference)
{
    auto loaded = ImportanceMatrix::load(testsupport::fixturePath("llama.cpp/" + name).toStdString());
    if (!loaded)
        qFatal("%s", loaded.error().toString().c_str());
    auto matrix = std::make_shared<ImportanceMatrix>(std::move(loaded.value()));
    validateImatrix(*matrix, reference);
    return matrix;
}

struct Setup {
    std::shared_ptr<const Model> reference;
    std::shared_ptr<const Model> other;
    std::shared_ptr<ImportanceMatrix> matrix;
};

Setup moeSetup()
{
    Setup s;
    s.reference = testsupport::openFixtureModel("tiny-moe-F16.gguf");
    s.other = testsupport::openFixtureModel("llama.cpp/tiny-moe-imat-Q4_K_M.gguf");
    if (s.reference)
        s.matrix = boundMatrix("tiny-moe.imatrix.gguf", *s.reference);
    return s;
}

// A simulation quantizer that ignores the weights: the values of a plain simulation, through
// the importance path.
Status quantizeIgnoringWeights(std::uint32_t type, std::span<const float> values, std::int64_t, std::span<const float>,
                               std::span<std::uint8_t> out)
{
    return quantizeValues(type, values, out);
}

ModelComparison makeComparison(const Setup& s, bool withImportance, std::vector<std::uint32_t> simulated = {},
                               ImportanceQuantizer quantizer = {})
{
    ComparisonOptions options;
    options.referenceIndex = 0;
    options.simulatedTypes = std::move(simulated);
    options.quantizer = std::move(quantizer);
    if (withImportance)
        options.importance = s.matrix;
    auto comparison = ModelComparison::create({s.reference, s.other}, options);
    if (!comparison)
        qFatal("%s", comparison.error().toString().c_str());
    return std::move(comparison.value());
}

std::size_t rowOf(const ModelComparison& comparison, std::string_view name)
{
    for (std::size_t r = 0; r < comparison.rows().size(); ++r)
        if (comparison.rows()[r].reference->name == name)
            return r;
    qFatal("no row %s", std::string(name).c_str());
}

// sum w (o - r)^2 and sum w r^2 over [begin, end) of the cell, in element order, as written
// in the definition (the same double operations as the accumulator, so the same bits).
std::pair<double, double> weightedByHand(const ModelComparison& comparison, std::size_t row, std::size_t column,
                                         const ImportanceEntry& entry, std::uint64_t begin, std::uint64_t end)
{
    const TensorInfo& tensor = *comparison.rows()[row].reference;
    const std::uint64_t total = tensor.elementCount();
    std::vector<float> reference(total), other(total);
    if (Status s = comparison.reconstruct(row, column, {0, total}, reference, other); !s)
        qFatal("%s", s.error().toString().c_str());
    const auto columns = static_cast<std::uint64_t>(tensor.ne[0]);
    const std::uint64_t perExpert = columns * static_cast<std::uint64_t>(tensor.ne[1]);
    double error = 0.0, norm = 0.0;
    std::vector<float> weights;
    std::uint64_t weightsOf = ~std::uint64_t{0};
    for (std::uint64_t k = begin; k < end; ++k) {
        if (k / perExpert != weightsOf) {
            weightsOf = k / perExpert;
            weights = entry.quantWeights(static_cast<std::size_t>(weightsOf));
        }
        const double r = reference[k], o = other[k], w = weights[k % columns];
        const double e = o - r;
        error += w * (e * e);
        norm += w * (r * r);
    }
    return {error, norm};
}

// The plain sums of pairs on the summation grid as ErrorLanes.h defines it, written out here:
// pair i goes to block i / 4096 and, in it, to lane i % 8; a lane sums in pair order (products
// by fused multiply-add), a block folds its lanes ((0+1)+(2+3))+((4+5)+(6+7)), blocks add in order.
// A pair with a NaN or infinity is counted apart and adds nothing.
ErrorSums gridSumsByHand(std::span<const float> reference, std::span<const float> other)
{
    ErrorSums total;
    for (std::size_t blockStart = 0; blockStart < reference.size(); blockStart += 4096) {
        double lanes[6][8] = {};
        const std::size_t blockEnd = std::min(reference.size(), blockStart + 4096);
        for (std::size_t i = blockStart; i < blockEnd; ++i) {
            if (!std::isfinite(reference[i]) || !std::isfinite(other[i])) {
                ++total.nonFiniteCount;
                continue;
            }
            const double r = reference[i], o = other[i], e = o - r;
            double* lane[6] = {&lanes[0][i % 8], &lanes[1][i % 8], &lanes[2][i % 8], &lanes[3][i % 8], &lanes[4][i % 8], &lanes[5][i % 8]};
            *lane[0] = std::fma(e, e, *lane[0]);
            *lane[1] += std::abs(e);
            *lane[2] = std::fma(r, r, *lane[2]);
            *lane[3] = std::fma(o, o, *lane[3]);
            *lane[4] = std::fma(r, o, *lane[4]);
            total.maxAbsError = std::max(total.maxAbsError, std::abs(e));
            ++total.count;
        }
        const auto fold = [](const double (&l)[8]) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); };
        total.sumSquaredError += fold(lanes[0]);
        total.sumAbsError += fold(lanes[1]);
        total.sumReferenceSquared += fold(lanes[2]);
        total.sumOtherSquared += fold(lanes[3]);
        total.sumProduct += fold(lanes[4]);
    }
    return total;
}

// Every plain and weighted sum, as bits, so one comparison names the first that differs.
std::vector<std::uint64_t> sumBits(const ErrorSums& s, bool withWeighted)
{
    std::vector<std::uint64_t> bits = {s.count,
                                       s.nonFiniteCount,
                                       std::bit_cast<std::uint64_t>(s.sumSquaredError),
                                       std::bit_cast<std::uint64_t>(s.sumAbsError),
                                       std::bit_cast<std::uint64_t>(s.maxAbsError),
                                       std::bit_cast<std::uint64_t>(s.sumReferenceSquared),
                                       std::bit_cast<std::uint64_t>(s.sumOtherSquared),
                                       std::bit_cast<std::uint64_t>(s.sumProduct)};
    if (withWeighted)
        for (std::uint64_t b : {s.weightedCount, std::bit_cast<std::uint64_t>(s.sumWeightedSquaredError),
                                std::bit_cast<std::uint64_t>(s.sumWeightedReferenceSquared)})
            bits.push_back(b);
    return bits;
}

ComparisonRunOptions runOptions(unsigned threads, std::uint64_t chunkElements)
{
    ComparisonRunOptions options;
    options.executor = &testsupport::poolOf(threads);
    options.chunkElements = chunkElements;
    return options;
}

}  // namespace

class TestImportanceMetrics : public QObject {
    Q_OBJECT

private slots:
    void plainFiguresUnchanged()
    {
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        // The same simulated values with and without the matrix: its weights only add figures.
        const ModelComparison plain = makeComparison(s, false, {typeIdValue(GgmlTypeId::Q4_K)});
        const ModelComparison weighted = makeComparison(s, true, {typeIdValue(GgmlTypeId::Q4_K)}, quantizeIgnoringWeights);
        auto a = runComparison(plain);
        auto b = runComparison(weighted);
        QVERIFY(a && b);
        QVERIFY(a->expertCells.empty());
        int compared = 0;
        for (std::size_t r = 0; r < a->cells.size(); ++r)
            for (std::size_t c = 0; c < a->cells[r].size(); ++c) {
                QCOMPARE(a->cells[r][c].has_value(), b->cells[r][c].has_value());
                if (!a->cells[r][c])
                    continue;
                for (const ErrorMetricInfo& metric : errorMetricTable())
                    QVERIFY2(sameBits(metric.valueIn(*a->cells[r][c]), metric.valueIn(*b->cells[r][c])), metric.key);
                QVERIFY(std::isnan(a->cells[r][c]->weightedSquaredError));
                ++compared;
            }
        QCOMPARE(compared, int(plain.rows().size() * 2));
        for (std::size_t c = 0; c < 2; ++c)
            for (const ErrorMetricInfo& metric : errorMetricTable())
                QVERIFY2(sameBits(metric.valueIn(a->columnTotals[c]), metric.valueIn(b->columnTotals[c])), metric.key);
        // Without a matrix the JSON has exactly its old members.
        std::string json;
        writeComparisonJson(plain, *a, json);
        QVERIFY(json.find("weighted") == std::string::npos);
        QVERIFY(json.find("importance_matrix") == std::string::npos);
        std::string weightedJson;
        writeComparisonJson(weighted, *b, weightedJson);
        QVERIFY(weightedJson.find("\"relative_weighted_error\"") != std::string::npos);
        QVERIFY(weightedJson.find("\"experts\": [") != std::string::npos || weightedJson.find("\"experts\":[") != std::string::npos);
        QVERIFY(weightedJson.find("\"importance_matrix\"") != std::string::npos);
    }

    void weightedFiguresAreTheDefinition()
    {
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        const ModelComparison comparison = makeComparison(s, true);
        auto results = runComparison(comparison, runOptions(2, 4096));
        QVERIFY(results);
        for (const char* name : {"blk.0.attn_q.weight", "blk.1.ffn_down_exps.weight", "blk.0.ffn_gate_exps.weight"}) {
            const std::size_t row = rowOf(comparison, name);
            const ImportanceEntry* entry = s.matrix->find(name);
            QVERIFY(entry);
            const ErrorMetrics& m = *results->cells[row][0];
            const auto [error, norm] = weightedByHand(comparison, row, 0, *entry, 0, comparison.rows()[row].reference->elementCount());
            QVERIFY2(sameBits(m.weightedSquaredError, error), name);
            QVERIFY2(sameBits(m.relativeWeightedError, error / norm), name);
            QVERIFY(m.weightedSquaredError > 0.0);
            QCOMPARE(m.sums.weightedCount, m.count);
        }
        // Tensors the matrix does not cover have no weighted figures.
        QVERIFY(std::isnan(results->cells[rowOf(comparison, "token_embd.weight")][0]->weightedSquaredError));
        QVERIFY(std::isnan(results->cells[rowOf(comparison, "blk.0.attn_norm.weight")][0]->relativeWeightedError));
    }

    void perExpertAndPerLayer()
    {
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        const ModelComparison comparison = makeComparison(s, true);
        auto results = runComparison(comparison, runOptions(1, 3000));
        QVERIFY(results);
        const std::size_t row = rowOf(comparison, "blk.1.ffn_up_exps.weight");
        const std::vector<ErrorMetrics>& experts = results->expertCells[row][0];
        QCOMPARE(experts.size(), std::size_t(8));
        const TensorInfo& tensor = *comparison.rows()[row].reference;
        const std::uint64_t perExpert = std::uint64_t(tensor.ne[0] * tensor.ne[1]);
        double sum = 0.0;
        for (std::size_t e = 0; e < 8; ++e) {
            const auto [error, norm] = weightedByHand(comparison, row, 0, *s.matrix->find(tensor.name), e * perExpert, (e + 1) * perExpert);
            QVERIFY(sameBits(experts[e].weightedSquaredError, error));
            QVERIFY(sameBits(experts[e].relativeWeightedError, error / norm));
            QCOMPARE(experts[e].count, perExpert);
            QVERIFY(std::isnan(experts[e].p99AbsError));  // parts keep sums only
            sum += experts[e].weightedSquaredError;
        }
        const double whole = results->cells[row][0]->weightedSquaredError;
        QVERIFY(std::abs(sum - whole) <= 1e-12 * whole);
        QVERIFY(results->expertCells[rowOf(comparison, "blk.1.attn_q.weight")][0].empty());  // 2-D

        // A layer is its tensors' sums merged in row order; the model, every tensor's.
        for (const LayerErrorMetrics& layer : layerErrorMetrics(comparison, *results, 0)) {
            ErrorSums merged;
            for (std::size_t r = 0; r < comparison.rows().size(); ++r)
                if (comparison.rows()[r].nameParts.layer == layer.layer && results->cells[r][0])
                    merged.merge(results->cells[r][0]->sums);
            QVERIFY(sameBits(layer.metrics.weightedSquaredError, merged.sumWeightedSquaredError));
            QVERIFY(sameBits(layer.metrics.relativeWeightedError, merged.sumWeightedSquaredError / merged.sumWeightedReferenceSquared));
        }
        ErrorSums all;
        for (std::size_t r = 0; r < comparison.rows().size(); ++r)
            if (results->cells[r][0])
                all.merge(results->cells[r][0]->sums);
        QVERIFY(sameBits(results->columnTotals[0].weightedSquaredError, all.sumWeightedSquaredError));
    }

    void threadCountDoesNotMatter()
    {
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        const ModelComparison comparison = makeComparison(s, true, {typeIdValue(GgmlTypeId::Q2_K)});
        auto one = runComparison(comparison, runOptions(1, 2048));
        auto three = runComparison(comparison, runOptions(3, 2048));
        QVERIFY(one && three);
        for (std::size_t r = 0; r < one->cells.size(); ++r)
            for (std::size_t c = 0; c < one->cells[r].size(); ++c) {
                if (!one->cells[r][c])
                    continue;
                QVERIFY(sameBits(one->cells[r][c]->weightedSquaredError, three->cells[r][c]->weightedSquaredError));
                QVERIFY(sameBits(one->cells[r][c]->relativeWeightedError, three->cells[r][c]->relativeWeightedError));
                QCOMPARE(one->expertCells[r][c].size(), three->expertCells[r][c].size());
                for (std::size_t e = 0; e < one->expertCells[r][c].size(); ++e)
                    QVERIFY(sameBits(one->expertCells[r][c][e].weightedSquaredError, three->expertCells[r][c][e].weightedSquaredError));
            }
    }

    void expertSumsAreTheExpertsOwnGrid()
    {
        // An expert's figures are what a cell of that expert alone computes: its plain sums on
        // its own summation grid (from its first value), whatever the ranges and the threads.
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        const ModelComparison comparison = makeComparison(s, true, {typeIdValue(GgmlTypeId::Q2_K)});
        const std::pair<unsigned, std::uint64_t> runs[] = {{1, 3000}, {3, 4096}, {2, 1000003}, {1, kComparisonChunkElements}};
        int checked = 0;
        for (const auto& [threads, chunk] : runs) {
            auto results = runComparison(comparison, runOptions(threads, chunk));
            QVERIFY(results);
            for (std::size_t r = 0; r < comparison.rows().size(); ++r) {
                const TensorInfo& tensor = *comparison.rows()[r].reference;
                if (tensor.ne[2] < 2)
                    continue;
                const ImportanceEntry* entry = s.matrix->find(tensor.name);
                QVERIFY(entry);
                const std::uint64_t total = tensor.elementCount();
                const std::uint64_t perExpert = total / std::uint64_t(tensor.ne[2]);
                for (std::size_t c = 0; c < comparison.columns().size(); ++c) {
                    std::vector<float> reference(total), other(total);
                    QVERIFY(comparison.reconstruct(r, c, {0, total}, reference, other));
                    const std::vector<ErrorMetrics>& experts = results->expertCells[r][c];
                    QCOMPARE(experts.size(), std::size_t(tensor.ne[2]));
                    for (std::size_t e = 0; e < experts.size(); ++e) {
                        const std::span<const float> ref = std::span<const float>(reference).subspan(e * perExpert, perExpert);
                        const std::span<const float> oth = std::span<const float>(other).subspan(e * perExpert, perExpert);
                        const std::string where = std::string(tensor.name) + " column " + std::to_string(c) + " expert " +
                                                  std::to_string(e) + " chunk " + std::to_string(chunk);
                        QVERIFY2(sumBits(experts[e].sums, false) == sumBits(gridSumsByHand(ref, oth), false), where.c_str());
                        // A one-expert cell: one accumulator fed the expert with its own weights.
                        const std::vector<float> weights = entry->quantWeights(e);
                        std::vector<float> expertWeights(perExpert);
                        for (std::uint64_t k = 0; k < perExpert; ++k)
                            expertWeights[k] = weights[k % weights.size()];
                        ErrorAccumulator alone;
                        alone.addWeighted(ref, oth, expertWeights);
                        QVERIFY2(sumBits(experts[e].sums, true) == sumBits(alone.sums(), true), where.c_str());
                        const ErrorMetrics fromAlone = ErrorAccumulator::metricsFrom(alone.sums(), AbsErrorHistogram{});
                        for (const ErrorMetricInfo& metric : errorMetricTable())
                            if (metric.combination == MetricCombination::FromSums)
                                QVERIFY2(sameBits(metric.valueIn(experts[e]), metric.valueIn(fromAlone)), (where + " " + metric.key).c_str());
                        QVERIFY(sameBits(experts[e].relativeWeightedError, fromAlone.relativeWeightedError));
                        ++checked;
                    }
                }
            }
        }
        QCOMPARE(checked, 4 * 6 * 2 * 8);  // runs x expert tensors x columns x experts
    }

    void expertPartsDoNotDependOnTheCuts()
    {
        // Three parts of odd sizes, with NaN and infinities, fed in random pieces that never
        // cross a part's end (as the engine feeds experts): each part's sums equal one
        // accumulator fed that part at once, and the whole's equal one fed everything at once.
        const std::size_t sizes[] = {10007, 4096, 9001};
        std::mt19937 random(20261201);
        std::normal_distribution<float> value(0.0f, 0.05f);
        std::uniform_real_distribution<float> weight(0.0f, 3.0f);
        std::vector<float> reference, other, weights;
        for (std::size_t size : sizes)
            for (std::size_t i = 0; i < size; ++i) {
                reference.push_back(value(random));
                other.push_back(reference.back() + value(random) * 0.1f);
                weights.push_back(weight(random));
            }
        reference[17] = std::numeric_limits<float>::quiet_NaN();
        other[10007 + 5] = std::numeric_limits<float>::infinity();
        weights[20000] = std::numeric_limits<float>::quiet_NaN();
        ErrorAccumulator wholeAtOnce;
        wholeAtOnce.addWeighted(reference, other, weights);
        for (int trial = 0; trial < 8; ++trial) {
            ErrorAccumulator whole;
            std::vector<ErrorAccumulator> parts(3);
            std::size_t begin = 0;
            for (std::size_t p = 0; p < 3; ++p) {
                const std::size_t end = begin + sizes[p];
                std::size_t at = begin;
                while (at < end) {
                    const std::size_t length = std::min<std::size_t>(end - at, 1 + random() % (trial < 4 ? 37 : 5000));
                    const auto piece = [&](const std::vector<float>& v) { return std::span<const float>(v).subspan(at, length); };
                    whole.add(piece(reference), piece(other));
                    whole.addWeightedPart(parts[p], piece(reference), piece(other), piece(weights));
                    at += length;
                }
                ErrorAccumulator alone;
                const auto part = [&](const std::vector<float>& v) { return std::span<const float>(v).subspan(begin, sizes[p]); };
                alone.addWeighted(part(reference), part(other), part(weights));
                QCOMPARE(sumBits(parts[p].sums(), true), sumBits(alone.sums(), true));
                QCOMPARE(sumBits(parts[p].sums(), false), sumBits(gridSumsByHand(part(reference), part(other)), false));
                QCOMPARE(parts[p].histogram().count(), std::uint64_t(0));  // parts keep no |error| bins
                begin = end;
            }
            QCOMPARE(sumBits(whole.sums(), true), sumBits(wholeAtOnce.sums(), true));
        }
        QCOMPARE(wholeAtOnce.sums().nonFiniteCount, std::uint64_t(2));
    }

    void columnProfileAddsUp()
    {
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        const ModelComparison comparison = makeComparison(s, true);
        auto results = runComparison(comparison);
        QVERIFY(results);
        const std::size_t row = rowOf(comparison, "blk.0.ffn_down_exps.weight");
        auto profile = computeColumnErrorProfile(comparison, row, 0);
        QVERIFY(profile);
        QCOMPARE(profile->squaredError.size(), std::size_t(512));
        QCOMPARE(profile->importance.size(), std::size_t(512));
        QCOMPARE(profile->valuesPerColumn, std::uint64_t(256 * 8));
        double weighted = 0.0, plain = 0.0;
        for (std::size_t j = 0; j < 512; ++j) {
            weighted += profile->weightedError[j];
            plain += profile->squaredError[j];
        }
        const ErrorMetrics& m = *results->cells[row][0];
        QVERIFY(std::abs(weighted - m.weightedSquaredError) <= 1e-12 * m.weightedSquaredError);
        QVERIFY(std::abs(plain - m.sums.sumSquaredError) <= 1e-12 * m.sums.sumSquaredError);

        // One expert: its weights, its share of the error.
        auto expert6 = computeColumnErrorProfile(comparison, row, 0, 6);
        QVERIFY(expert6);
        QCOMPARE(expert6->importance, s.matrix->find("blk.0.ffn_down_exps.weight")->quantWeights(6));
        QCOMPARE(expert6->valuesPerColumn, std::uint64_t(256));
        double expertWeighted = 0.0;
        for (double v : expert6->weightedError)
            expertWeighted += v;
        const double fromCell = results->expertCells[row][0][6].weightedSquaredError;
        QVERIFY(std::abs(expertWeighted - fromCell) <= 1e-12 * fromCell);
        QVERIFY(!computeColumnErrorProfile(comparison, row, 0, 8));
    }

    void columnProfileStopsWhenCancelled()
    {
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        const ModelComparison comparison = makeComparison(s, true);
        const std::size_t row = rowOf(comparison, "blk.0.ffn_down_exps.weight");
        std::atomic<bool> cancelled{false};
        QVERIFY(computeColumnErrorProfile(comparison, row, 0, std::nullopt, &cancelled));
        cancelled = true;
        auto stopped = computeColumnErrorProfile(comparison, row, 0, std::nullopt, &cancelled);
        QVERIFY(!stopped);
        QVERIFY2(stopped.error().toString().find("cancelled") != std::string::npos, stopped.error().toString().c_str());
    }

    void simulationGivesEachRowItsExpertsWeights()
    {
        // The seam for importance-aware simulation: a quantizer that records what it is given
        // and quantizes as without importance must be called once per row with that row's
        // expert's weights, and then reproduce the plain simulation's figures exactly.
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        struct Call {
            std::size_t values;
            std::int64_t rowLength;
            std::vector<float> importance;
        };
        auto calls = std::make_shared<std::vector<Call>>();
        auto mutex = std::make_shared<std::mutex>();
        ComparisonOptions options;
        options.referenceIndex = 0;
        options.simulatedTypes = {typeIdValue(GgmlTypeId::Q4_K)};
        options.importance = s.matrix;
        options.includeTensor = [](std::string_view name) { return name == "blk.1.ffn_up_exps.weight" || name == "blk.0.attn_norm.weight"; };
        options.quantizer = [calls, mutex](std::uint32_t type, std::span<const float> values, std::int64_t rowLength,
                                                        std::span<const float> importance, std::span<std::uint8_t> out) -> Status {
            {
                const std::lock_guard lock(*mutex);
                calls->push_back({values.size(), rowLength, std::vector<float>(importance.begin(), importance.end())});
            }
            return quantizeValues(type, values, out);
        };
        auto withSeam = ModelComparison::create({s.reference}, options);
        QVERIFY(withSeam);
        options.importance = nullptr;  // no matrix: the plain simulation, range by range
        auto without = ModelComparison::create({s.reference}, options);
        QVERIFY(without);
        auto a = runComparison(*withSeam, runOptions(2, 4096));
        auto b = runComparison(*without, runOptions(2, 4096));
        QVERIFY(a && b);
        const std::size_t row = rowOf(*withSeam, "blk.1.ffn_up_exps.weight");
        for (const ErrorMetricInfo& metric : errorMetricTable())
            QVERIFY2(sameBits(metric.valueIn(*a->cells[row][0]), metric.valueIn(*b->cells[row][0])), metric.key);
        // 512 rows of 256 per expert, 8 experts; the norm (1-D, kept as is) is never quantized.
        QCOMPARE(calls->size(), std::size_t(512 * 8));
        const ImportanceEntry* entry = s.matrix->find("blk.1.ffn_up_exps.weight");
        std::vector<int> perExpert(8, 0);
        for (const Call& call : *calls) {
            QCOMPARE(call.values, std::size_t(256));
            QCOMPARE(call.rowLength, std::int64_t(256));
            int expert = -1;
            for (int e = 0; e < 8 && expert < 0; ++e)
                if (call.importance == entry->quantWeights(std::size_t(e)))
                    expert = e;
            QVERIFY(expert >= 0);
            ++perExpert[std::size_t(expert)];
        }
        QCOMPARE(perExpert, std::vector<int>(8, 512));
    }

    void simulationUsesTheWeightsByDefault()
    {
        // Given a matrix and nothing else, a simulated column is what llama-quantize --imatrix
        // makes: every row quantized by quantizeRows with its expert's weights.
        const Setup s = moeSetup();
        QVERIFY(s.reference && s.other);
        ComparisonOptions options;
        options.referenceIndex = 0;
        options.simulatedTypes = {typeIdValue(GgmlTypeId::Q4_K)};
        options.importance = s.matrix;
        auto comparison = ModelComparison::create({s.reference}, options);
        QVERIFY(comparison);
        const char* name = "blk.1.ffn_up_exps.weight";
        const std::size_t row = rowOf(*comparison, name);
        const TensorInfo& tensor = *comparison->rows()[row].reference;
        const ImportanceEntry* entry = s.matrix->find(name);
        QVERIFY(entry);
        const auto rowLength = static_cast<std::size_t>(tensor.ne[0]);
        const std::uint64_t expertElements = rowLength * static_cast<std::uint64_t>(tensor.ne[1]);
        const TypeTraits& q4k = traitsOf(GgmlTypeId::Q4_K);
        std::vector<std::uint8_t> packed(static_cast<std::size_t>(quantizedSize(q4k, rowLength)));
        std::vector<float> reference(rowLength), simulated(rowLength), expected(rowLength), plain(rowLength);
        bool weightsMatter = false;
        for (const std::uint64_t expert : {std::uint64_t{0}, std::uint64_t{5}}) {
            const std::uint64_t begin = expert * expertElements + 3 * rowLength;  // row 3 of the expert
            QVERIFY(comparison->reconstruct(row, 0, {begin, begin + rowLength}, reference, simulated));
            QVERIFY(quantizeRows(q4k.id, reference, std::int64_t(rowLength), entry->quantWeights(std::size_t(expert)), packed));
            q4k.dequantize(packed.data(), expected.data(), packed.size() / q4k.blockBytes);
            QVERIFY(simulated == expected);
            QVERIFY(quantizeValues(q4k.id, reference, packed));
            q4k.dequantize(packed.data(), plain.data(), packed.size() / q4k.blockBytes);
            weightsMatter = weightsMatter || plain != expected;
        }
        QVERIFY(weightsMatter);  // else the test could not tell the paths apart
    }

    void legacyMatrixNeedsBinding()
    {
        // An unbound legacy entry of an expert tensor is one row of 8 x 256: it fits no tensor
        // until validateImatrix cuts it per expert, and then weighs like llama-quantize.
        const auto reference = testsupport::openFixtureModel("tiny-moe-F16.gguf");
        QVERIFY(reference);
        auto loaded = ImportanceMatrix::load(testsupport::fixturePath("llama.cpp/tiny-moe.imatrix.dat").toStdString());
        QVERIFY(loaded);
        const TensorInfo* up = reference->findTensor("blk.0.ffn_up_exps.weight");
        QVERIFY(!tensorImportance(loaded->find(up->name), *up));
        validateImatrix(*loaded, *reference);
        const auto weights = tensorImportance(loaded->find(up->name), *up);
        QVERIFY(weights);
        QCOMPARE(weights->experts, std::size_t(8));
        std::vector<float> fill(3);
        weights->fill(std::uint64_t(up->ne[0] * up->ne[1]) * 5 + 255, fill);  // last column of a row of expert 5, then the next row
        const std::vector<float> expected5 = loaded->find(up->name)->quantWeights(5);
        QCOMPARE(fill[0], expected5[255]);
        QCOMPARE(fill[1], expected5[0]);
        QCOMPARE(fill[2], expected5[1]);
    }
};

QTEST_GUILESS_MAIN(TestImportanceMetrics)
#include "tst_importance_metrics.moc"
