#include "core/forward/OutputMetrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gguf {

namespace {

// log-softmax of one row of logits, in double.
void logSoftmax(std::span<const float> logits, std::vector<double>& out)
{
    out.resize(logits.size());
    const double peak = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (const float v : logits)
        sum += std::exp(double(v) - peak);
    const double logSum = peak + std::log(sum);
    for (std::size_t i = 0; i < logits.size(); ++i)
        out[i] = double(logits[i]) - logSum;
}

std::int32_t argmax(const std::vector<double>& values)
{
    return static_cast<std::int32_t>(std::max_element(values.begin(), values.end()) - values.begin());
}

double percentile(const std::vector<double>& sorted, double fraction)
{
    const double index = fraction * double(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(index));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (sorted[above] - sorted[below]) * (index - double(below));
}

Error mismatch(const std::string& what)
{
    return Error{"the two runs do not fit each other: " + what, Error::kNoOffset, {}};
}

}  // namespace

Summary summarize(std::vector<double> values)
{
    Summary s;
    s.count = values.size();
    if (values.empty())
        return s;
    std::sort(values.begin(), values.end());
    const double n = double(values.size());
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
    double squares = 0.0;
    for (const double v : values)
        squares += (v - s.mean) * (v - s.mean);
    s.meanError = values.size() > 1 ? std::sqrt(squares / (n - 1.0) / n) : 0.0;
    s.minimum = values.front();
    s.maximum = values.back();
    s.median = percentile(values, 0.5);
    s.p90 = percentile(values, 0.9);
    s.p99 = percentile(values, 0.99);
    return s;
}

Status OutputComparisonBuilder::addSequence(const ForwardResult& reference, const ForwardResult& other, std::span<const std::int32_t> tokens,
                                            std::int64_t firstScored, std::int64_t endScored, std::int64_t firstPosition)
{
    const auto& hr = reference.hyperparameters;
    const auto& ho = other.hyperparameters;
    const auto n = static_cast<std::int64_t>(tokens.size());
    if (reference.tokenCount != n || other.tokenCount != n)
        return mismatch("token counts differ");
    if (hr.vocabularySize != ho.vocabularySize)
        return mismatch("vocabulary sizes differ (" + std::to_string(hr.vocabularySize) + " and " + std::to_string(ho.vocabularySize) + ")");
    if (firstScored < 0 || endScored > n - 1 || firstScored > endScored)
        return mismatch("scored positions outside the sequence");
    const bool compareLayers = hr.layerCount == ho.layerCount && hr.embeddingLength == ho.embeddingLength && !reference.hidden.empty()
                            && !other.hidden.empty();
    if (m_layers.empty() && compareLayers) {
        m_layers.resize(static_cast<std::size_t>(hr.layerCount));
        m_result.mixtureOfExperts = hr.isMixtureOfExperts() && ho.expertCount == hr.expertCount && ho.expertUsedCount == hr.expertUsedCount;
        if (!m_result.mixtureOfExperts && (hr.isMixtureOfExperts() || ho.isMixtureOfExperts()))
            m_result.routingNote = "routing not compared: the reference routes to " + std::to_string(hr.expertUsedCount) + " of "
                                 + std::to_string(hr.expertCount) + " experts, the other model to " + std::to_string(ho.expertUsedCount)
                                 + " of " + std::to_string(ho.expertCount) + " (their MoE layouts differ)";
        if (m_result.mixtureOfExperts) {
            m_result.expertCountsReference.assign(m_layers.size(), std::vector<std::int64_t>(static_cast<std::size_t>(hr.expertCount)));
            m_result.expertCountsOther = m_result.expertCountsReference;
            m_result.routingChanged.assign(m_layers.size(), {});
        }
    }

    std::vector<double> logRef, logOther;
    for (std::int64_t t = firstScored; t < endScored; ++t) {
        logSoftmax(reference.logitsAt(t), logRef);
        logSoftmax(other.logitsAt(t), logOther);
        PositionMetrics p;
        p.position = firstPosition + t;
        p.nextToken = tokens[static_cast<std::size_t>(t + 1)];
        for (std::size_t i = 0; i < logRef.size(); ++i)
            p.kld += std::exp(logRef[i]) * (logRef[i] - logOther[i]);
        p.kld = std::max(p.kld, 0.0);  // rounding can leave -1e-17 for identical rows
        p.referenceTop = argmax(logRef);
        p.otherTop = argmax(logOther);
        p.referenceTopProbability = std::exp(logRef[static_cast<std::size_t>(p.referenceTop)]);
        p.referenceTopProbabilityOther = std::exp(logOther[static_cast<std::size_t>(p.referenceTop)]);
        p.nextTokenProbability = std::exp(logRef[static_cast<std::size_t>(p.nextToken)]);
        p.nextTokenProbabilityOther = std::exp(logOther[static_cast<std::size_t>(p.nextToken)]);
        m_nllReference -= logRef[static_cast<std::size_t>(p.nextToken)];
        m_nllOther -= logOther[static_cast<std::size_t>(p.nextToken)];
        m_result.positions.push_back(p);
    }

    if (!compareLayers || m_layers.size() != static_cast<std::size_t>(hr.layerCount))
        return Ok{};
    const std::int64_t width = hr.embeddingLength;
    for (std::int64_t layer = 0; layer < hr.layerCount; ++layer) {
        LayerSums& sums = m_layers[static_cast<std::size_t>(layer)];
        const auto r = reference.hiddenAt(layer);
        const auto o = other.hiddenAt(layer);
        for (std::int64_t t = firstScored; t < n; ++t) {
            double dot = 0.0, rr = 0.0, oo = 0.0, dd = 0.0;
            for (std::int64_t i = 0; i < width; ++i) {
                const double a = r[static_cast<std::size_t>(t * width + i)];
                const double b = o[static_cast<std::size_t>(t * width + i)];
                dot += a * b;
                rr += a * a;
                oo += b * b;
                dd += (b - a) * (b - a);
            }
            const double cosine = rr > 0.0 && oo > 0.0 ? dot / std::sqrt(rr * oo) : (rr == oo ? 1.0 : 0.0);
            sums.squaredDifference += dd;
            sums.squaredReference += rr;
            sums.cosineSum += cosine;
            sums.minCosine = std::min(sums.minCosine, cosine);
            ++sums.positions;
        }
        if (m_result.mixtureOfExperts)
            addRouting(reference, other, layer, firstScored, n);
    }
    return Ok{};
}

void OutputComparisonBuilder::addRouting(const ForwardResult& reference, const ForwardResult& other, std::int64_t layer, std::int64_t first,
                                         std::int64_t n)
{
    const std::int64_t k = reference.hyperparameters.expertUsedCount;
    const std::int64_t experts = reference.hyperparameters.expertCount;
    const auto size = static_cast<std::size_t>(reference.hyperparameters.layerCount * n * k);
    if (reference.selectedExperts.size() != size || other.selectedExperts.size() != size)
        return;
    // A layer routes in a run when its experts are chosen (-1: a dense layer, ForwardResult). A
    // layer dense in either model has no router to compare: the files' MoE layouts differ there.
    const auto routes = [&](const ForwardResult& run) {
        const auto at = run.selectedExperts.begin() + (layer * n + first) * k;
        return std::all_of(at, at + (n - first) * k, [experts](std::int32_t e) { return e >= 0 && e < experts; });
    };
    const bool inReference = routes(reference);
    const bool inOther = routes(other);
    LayerSums& sums = m_layers[static_cast<std::size_t>(layer)];
    if (inReference != inOther)
        sums.routedInOneOnly = true;
    if (!inReference || !inOther)
        return;
    auto& countsRef = m_result.expertCountsReference[static_cast<std::size_t>(layer)];
    auto& countsOther = m_result.expertCountsOther[static_cast<std::size_t>(layer)];
    auto& changed = m_result.routingChanged[static_cast<std::size_t>(layer)];
    for (std::int64_t t = first; t < n; ++t) {
        const auto at = static_cast<std::size_t>((layer * n + t) * k);
        std::vector<std::int32_t> a(reference.selectedExperts.begin() + at, reference.selectedExperts.begin() + at + k);
        std::vector<std::int32_t> b(other.selectedExperts.begin() + at, other.selectedExperts.begin() + at + k);
        for (std::int64_t s = 0; s < k; ++s) {
            ++countsRef[static_cast<std::size_t>(a[static_cast<std::size_t>(s)])];
            ++countsOther[static_cast<std::size_t>(b[static_cast<std::size_t>(s)])];
        }
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        const bool differs = a != b;
        changed.push_back(differs ? 1 : 0);
        ++sums.routedTokens;
        sums.changedTokens += differs ? 1 : 0;
    }
}

OutputComparison OutputComparisonBuilder::finish() const
{
    OutputComparison result = m_result;
    std::vector<double> kld, deltaTop, deltaNext;
    std::size_t same = 0;
    for (const auto& p : result.positions) {
        kld.push_back(p.kld);
        deltaTop.push_back(p.referenceTopProbabilityOther - p.referenceTopProbability);
        deltaNext.push_back(p.nextTokenProbabilityOther - p.nextTokenProbability);
        same += p.sameTop() ? 1 : 0;
    }
    result.kld = summarize(kld);
    result.deltaTopProbability = summarize(deltaTop);
    result.deltaNextProbability = summarize(deltaNext);
    const double n = double(result.positions.size());
    if (n > 0) {
        result.sameTopFraction = double(same) / n;
        result.perplexityReference = std::exp(m_nllReference / n);
        result.perplexityOther = std::exp(m_nllOther / n);
    }
    for (const LayerSums& sums : m_layers) {
        LayerDrift drift;
        drift.relativeRmse = sums.squaredReference > 0.0 ? std::sqrt(sums.squaredDifference / sums.squaredReference) : 0.0;
        drift.meanCosine = sums.positions > 0 ? sums.cosineSum / double(sums.positions) : 1.0;
        drift.minCosine = sums.minCosine;
        drift.routingChangedFraction = sums.routedTokens > 0 ? double(sums.changedTokens) / double(sums.routedTokens) : 0.0;
        drift.routingCompared = sums.routedTokens > 0;
        result.layers.push_back(drift);
    }
    std::string oneOnly;
    for (std::size_t layer = 0; layer < m_layers.size(); ++layer)
        if (m_layers[layer].routedInOneOnly)
            oneOnly += (oneOnly.empty() ? "" : ", ") + std::to_string(layer);
    if (!oneOnly.empty())
        result.routingNote = "routing compared where both models route: layer(s) " + oneOnly
                           + " are dense in one model and routed in the other (their MoE layouts differ)";
    return result;
}

}  // namespace gguf
