#pragma once
// Figures the app has measured per tensor of one model, as sets the Graph page colours nodes by:
// the weight error of a comparison column, the KLD a sensitivity scan measured at one type, an
// importance matrix's activation total. Each set is made from the result the producing page holds
// (no recomputation) and names the model file it belongs to, so a page of that model finds it in
// the TensorFigureStore.

#include <QString>
#include <string>
#include <unordered_map>
#include <vector>

namespace gguf {
class ModelComparison;
struct ComparisonResults;
struct ScanRecord;
}
struct LoadedImatrix;

enum class TensorFigureKind {
    WeightError,        // relative RMSE of a comparison column against its reference
    ScanSensitivity,    // mean KLD of the output with the tensor alone quantized (sensitivity scan)
    ImatrixImportance,  // Σ of the mean squared activations (llama-imatrix's "sum(act²)")
};

struct TensorFigureSet {
    QString modelPath;       // the model file the figures are of (Model::primary().path())
    TensorFigureKind kind = TensorFigureKind::WeightError;
    QString label;           // "Weight error: rel. RMSE of model-Q4_K.gguf vs model-F16.gguf"
    std::unordered_map<std::string, double> values;  // tensor name -> figure
};

// One set per comparison column: a file column's figures belong to that file, a simulated
// column's to the reference (where the graph shows the tensors it re-encoded).
std::vector<TensorFigureSet> weightErrorFigures(const gguf::ModelComparison& comparison, const gguf::ComparisonResults& results);
// One set per scanned type, of the scanned model at `modelPath`.
std::vector<TensorFigureSet> scanFigures(const QString& modelPath, const gguf::ScanRecord& record);
// The matrix's per-tensor totals, for the model it was validated against (none when it was not).
std::vector<TensorFigureSet> importanceFigures(const LoadedImatrix& imatrix);
