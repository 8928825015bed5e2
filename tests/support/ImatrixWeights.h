#pragma once
// The importance weights llama-quantize hands to ggml (quant_weights) for one tensor and
// expert, computed here straight from a GGUF imatrix fixture with the core's GGUF reader:
// in_sum2[e][i] / counts[e] (1 where counts[e] is 0), as load_imatrix in llama.cpp's
// tools/quantize/quantize.cpp does. An independent oracle for the quantizer tests; the real
// reader (core/imatrix) replaces it at integration.

#include <QString>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace testsupport {

class ImatrixWeights {
public:
    static std::optional<ImatrixWeights> load(const QString& path, QString* error);

    bool has(const std::string& weightName) const { return m_sums.count(weightName) != 0; }
    // Rows of `columns` weights for expert `expert`; empty when there is no entry.
    std::vector<float> quantWeights(const std::string& weightName, int expert) const;
    int expertCount(const std::string& weightName) const;
    std::size_t entryCount() const { return m_sums.size(); }

private:
    std::map<std::string, std::vector<float>> m_sums;    // experts x columns, raw sums
    std::map<std::string, std::vector<float>> m_counts;  // per expert
};

}  // namespace testsupport
