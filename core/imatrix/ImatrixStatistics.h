#pragma once
// The statistics `llama-imatrix --show-statistics` prints, computed the way it computes them
// (tools/imatrix/imatrix.cpp: compute_statistics, compute_cossim, show_statistics): float
// arithmetic in the same order, so the printed table is the same text.

#include "core/imatrix/ImportanceMatrix.h"

#include <string>
#include <string_view>
#include <vector>

namespace gguf {

struct ImatrixTensorStatistics {
    std::string name;       // the weight, e.g. "blk.1.attn_k.weight"
    std::string layer;      // "1", or "-" outside a layer (llama-imatrix's process_tensor_name)
    std::string shortName;  // "attn_k"
    float total = 0.0f;     // Σ over columns (and routed experts) of the mean squared activation
    float minimum = 0.0f;
    float maximum = 0.0f;
    float mean = 0.0f;
    float deviation = 0.0f;
    float activeFraction = 0.0f;  // share of values above 1e-5
    int elements = 0;             // values in the statistics (experts with tokens only)
    float entropy = 0.0f;         // bits, of the values as a distribution
    double entropyPercent = 0.0;  // entropy / log2(elements), in percent
    float zdFraction = 0.0f;      // share of values more than one deviation above the mean
    float cossim = 0.0f;          // of the raw sums with the same tensor one layer down
};

struct ImatrixLayerStatistics {
    int layer = 0;
    float weightedTotal = 0.0f;  // μΣ(Act²): element-weighted mean of `total`
    float zdFraction = 0.0f;
    float cossim = 0.0f;
};

struct ImatrixStatistics {
    std::vector<ImatrixTensorStatistics> tensors;  // in llama-imatrix's order (name, then total descending)
    std::vector<ImatrixLayerStatistics> layers;    // increasing layer
    std::vector<std::string> skipped;              // entries with no statistics, and why
};

ImatrixStatistics computeImatrixStatistics(const ImportanceMatrix& matrix);
// The text llama-imatrix logs (without its log timestamps), `label` standing for the file name.
std::string formatImatrixStatistics(const ImatrixStatistics& statistics, std::string_view label);

}  // namespace gguf
