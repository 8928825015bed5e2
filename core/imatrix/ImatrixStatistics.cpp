#include "core/imatrix/ImatrixStatistics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>

namespace gguf {

namespace {

// llama-imatrix's process_tensor_name: the part after "blk" is the layer, the part before
// "weight" the tensor.
void splitName(const std::string& input, std::string& layer, std::string& tensor)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    // std::getline on '.': a trailing '.' yields no empty last part.
    while (start < input.size()) {
        const std::size_t dot = input.find('.', start);
        const std::size_t end = dot == std::string::npos ? input.size() : dot;
        parts.push_back(input.substr(start, end - start));
        start = end + 1;
    }
    for (std::size_t i = 0; i + 1 < parts.size(); ++i)
        if (parts[i] == "blk") {
            layer = parts[i + 1];
            break;
        }
    for (std::size_t i = 1; i < parts.size(); ++i)
        if (parts[i] == "weight") {
            tensor = parts[i - 1];
            break;
        }
    if (tensor.empty())
        tensor = input;
    if (layer.empty())
        layer = "-";
}

// The collector's counts: GGUF counts rounded to integers (std::lround), the legacy ncall once.
std::vector<std::int64_t> collectorCounts(const ImportanceEntry& entry)
{
    if (entry.legacy)
        return {entry.legacyCalls};
    std::vector<std::int64_t> counts;
    counts.reserve(entry.counts.size());
    for (float c : entry.counts)
        counts.push_back(std::isfinite(c) && std::fabs(c) < 9.0e18f ? std::lround(c) : 0);
    return counts;
}

std::optional<ImatrixTensorStatistics> tensorStatistics(const ImportanceEntry& entry, std::vector<std::string>& skipped)
{
    const std::vector<std::int64_t> counts = collectorCounts(entry);
    if (counts.empty() || entry.sums.size() % counts.size() != 0) {
        skipped.push_back(entry.name + ": activation size mismatch");
        return std::nullopt;
    }
    const std::size_t rows = counts.size();
    const std::size_t rowSize = entry.sums.size() / rows;
    std::vector<float> activations;
    activations.reserve(entry.sums.size());
    for (std::size_t i = 0; i < rows; ++i) {
        if (counts[i] == 0)
            continue;
        // The collector stores legacy values times the chunk size and ncall times the chunk
        // size; both scalings are by a power of two and cancel exactly in this division.
        const float count = static_cast<float>(counts[i]);
        for (std::size_t j = 0; j < rowSize; ++j)
            activations.push_back(entry.sums[i * rowSize + j] / count);
    }
    if (activations.empty()) {
        skipped.push_back(entry.name + ": all counts are zero");
        return std::nullopt;
    }
    const auto n = static_cast<float>(activations.size());
    ImatrixTensorStatistics ts;
    ts.name = entry.name;
    splitName(entry.name, ts.layer, ts.shortName);
    float total = 0.0f;
    float squares = 0.0f;
    for (float a : activations)
        total = total + a;
    for (float a : activations)
        squares = squares + a * a;
    ts.total = total;
    ts.maximum = *std::max_element(activations.begin(), activations.end());
    ts.minimum = *std::min_element(activations.begin(), activations.end());
    ts.mean = total / n;
    const float variance = squares / n - ts.mean * ts.mean;
    ts.deviation = std::sqrt(std::max(0.0f, variance));
    const auto inactive = std::count_if(activations.begin(), activations.end(), [](float v) { return std::fabs(v) <= 1e-5f; });
    ts.activeFraction = 1 - static_cast<float>(inactive) / n;
    float entropy = 0.0f;
    if (total > 0)
        for (float a : activations)
            if (const float p = a / total; p > 0)
                entropy -= p * std::log2(p);
    ts.entropy = entropy;
    int above = 0;
    if (ts.deviation > 0.0f)
        for (float a : activations)
            if ((a - ts.mean) / ts.deviation > 1)
                ++above;
    ts.elements = static_cast<int>(activations.size());
    ts.zdFraction = static_cast<float>(above) / static_cast<float>(ts.elements);
    // std::log2 of an int is the double overload in llama-imatrix too.
    ts.entropyPercent = ts.elements > 0 ? 100.0f * (ts.entropy / std::log2(static_cast<double>(ts.elements))) : 0.0;
    return ts;
}

float innerProduct(const std::vector<float>& a, const std::vector<float>& b)
{
    float sum = 0.0f;
    for (std::size_t i = 0; i < a.size(); ++i)
        sum = sum + a[i] * b[i];
    return sum;
}

// Where llama-imatrix's regex `blk\.(\d+)\.` first matches in `name`: the digits' position and
// length, or nullopt. Scanned by hand: std::regex recurses once per digit and overflows the
// stack on a name of 100,000 digits, which an imatrix file can hold.
std::optional<std::pair<std::size_t, std::size_t>> layerDigits(std::string_view name)
{
    for (std::size_t at = name.find("blk."); at != std::string_view::npos; at = name.find("blk.", at + 1)) {
        std::size_t end = at + 4;
        while (end < name.size() && name[end] >= '0' && name[end] <= '9')
            ++end;
        if (end > at + 4 && end < name.size() && name[end] == '.')
            return std::pair{at + 4, end - at - 4};
    }
    return std::nullopt;
}

// compute_cossim: the raw sums of blk.N.x against blk.(N-1).x.
void addCosineSimilarities(std::vector<ImatrixTensorStatistics>& stats, const ImportanceMatrix& matrix)
{
    for (ImatrixTensorStatistics& ts : stats) {
        const auto match = layerDigits(ts.name);
        if (!match)
            continue;
        // llama-imatrix uses std::stoi here; a layer number past int is not a layer it could pair.
        const std::string digits = ts.name.substr(match->first, match->second);
        if (digits.size() > 9)
            continue;
        const int block = std::stoi(digits);
        std::string previous = ts.name;
        previous.replace(match->first, match->second, std::to_string(block - 1));
        const bool computed = std::any_of(stats.begin(), stats.end(), [&](const ImatrixTensorStatistics& t) { return t.name == previous; });
        const ImportanceEntry* current = matrix.find(ts.name);
        const ImportanceEntry* before = matrix.find(previous);
        if (!computed || !current || !before || current->sums.size() != before->sums.size())
            continue;
        const float dot = innerProduct(current->sums, before->sums);
        const float currentMagnitude = std::sqrt(innerProduct(current->sums, current->sums));
        const float previousMagnitude = std::sqrt(innerProduct(before->sums, before->sums));
        ts.cossim = dot / (currentMagnitude * previousMagnitude);
    }
}

std::optional<int> blockNumber(const std::string& layer)
{
    // std::stoi: leading whitespace and sign allowed, trailing text ignored; failure -> -1.
    std::size_t i = 0;
    while (i < layer.size() && std::isspace(static_cast<unsigned char>(layer[i])))
        ++i;
    std::size_t digitsStart = i;
    if (i < layer.size() && (layer[i] == '+' || layer[i] == '-'))
        ++i;
    std::size_t digitsEnd = i;
    while (digitsEnd < layer.size() && std::isdigit(static_cast<unsigned char>(layer[digitsEnd])))
        ++digitsEnd;
    if (digitsEnd == i || digitsEnd - i > 9)
        return std::nullopt;
    return std::stoi(layer.substr(digitsStart, digitsEnd - digitsStart));
}

}  // namespace

ImatrixStatistics computeImatrixStatistics(const ImportanceMatrix& matrix)
{
    ImatrixStatistics out;
    for (const ImportanceEntry& entry : matrix.entries())
        if (auto ts = tensorStatistics(entry, out.skipped))
            out.tensors.push_back(std::move(*ts));
    addCosineSimilarities(out.tensors, matrix);
    std::sort(out.tensors.begin(), out.tensors.end(), [](const ImatrixTensorStatistics& a, const ImatrixTensorStatistics& b) {
        return a.shortName < b.shortName || (a.shortName == b.shortName && a.total > b.total);
    });
    struct Weighted {
        float total = 0.0f;
        float zd = 0.0f;
        float cossim = 0.0f;
        int elements = 0;
    };
    std::map<int, Weighted> byLayer;
    for (const ImatrixTensorStatistics& ts : out.tensors) {
        const int block = blockNumber(ts.layer).value_or(-1);
        Weighted& w = byLayer[block];
        w.total += static_cast<float>(ts.elements) * ts.total;
        w.zd += static_cast<float>(ts.elements) * ts.zdFraction;
        w.cossim += static_cast<float>(ts.elements) * ts.cossim;
        w.elements += ts.elements;
    }
    for (const auto& [layer, w] : byLayer) {
        if (layer < 0 || w.elements == 0)
            continue;
        const auto n = static_cast<float>(w.elements);
        out.layers.push_back(ImatrixLayerStatistics{layer, w.total / n, w.zd / n, w.cossim / n});
    }
    return out;
}

std::string formatImatrixStatistics(const ImatrixStatistics& statistics, std::string_view label)
{
    std::string text;
    char line[512];
    text += "\nComputing statistics for " + std::string(label) + " (" + std::to_string(statistics.tensors.size()) + " tensors)\n";
    text += "\n Layer\t       Tensor\t          Σ(Act²)\t  Min\t            Max\t           μ\t   σ\t % Active\tN\t   Entropy\tE (norm)\tZD\t  CosSim\n";
    text += std::string(169, '=') + "\n";
    for (const ImatrixTensorStatistics& ts : statistics.tensors) {
        std::snprintf(line, sizeof line, "%5s\t%-20s\t%10.2f\t%8.4f\t%11.4f\t%6.2f\t%6.2f\t%8.2f%%\t%6d\t%10.4f\t%6.2f%%\t%10.2f%%\t%8.4f\n",
                      ts.layer.c_str(), ts.shortName.c_str(), static_cast<double>(ts.total), static_cast<double>(ts.minimum),
                      static_cast<double>(ts.maximum), static_cast<double>(ts.mean), static_cast<double>(ts.deviation),
                      static_cast<double>(ts.activeFraction * 100.0f), ts.elements, static_cast<double>(ts.entropy),
                      ts.entropyPercent, static_cast<double>(100.0f * ts.zdFraction), static_cast<double>(ts.cossim));
        text += line;
    }
    const std::size_t layers = statistics.layers.size();
    text += "\nComputing weighted average statistics per layer (" + std::to_string(layers) + " layers)\n";
    text += "\n  Layer\t     μΣ(Act²)\t      μZD\tμCosSim\n";
    text += std::string(48, '=') + "\n";
    for (const ImatrixLayerStatistics& l : statistics.layers) {
        std::snprintf(line, sizeof line, "%5d\t%14.2f\t%10.4f%%\t%6.4f\n", l.layer, static_cast<double>(l.weightedTotal),
                      static_cast<double>(100.0f * l.zdFraction), static_cast<double>(l.cossim));
        text += line;
    }
    text += "\n";
    return text;
}

}  // namespace gguf
