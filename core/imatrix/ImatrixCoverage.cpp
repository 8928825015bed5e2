#include "core/imatrix/ImatrixCoverage.h"

#include "core/imatrix/ImatrixValidation.h"

namespace gguf {

namespace {

bool isEdgeMatrix(const std::string& name)
{
    return name == "token_embd.weight" || name == "output.weight";
}

}  // namespace

ImatrixCoverage imatrixCoverage(const ImportanceMatrix& matrix, const Model& model)
{
    ImatrixCoverage coverage;
    for (const TensorInfo& tensor : model.tensors()) {
        if (!isMatrixWeight(tensor))
            continue;
        ++coverage.matrices;
        if (matrix.find(tensor.name))
            continue;
        coverage.uncovered.emplace_back(tensor.name);
        coverage.uncoveredInLayers += isEdgeMatrix(coverage.uncovered.back()) ? 0 : 1;
    }
    return coverage;
}

std::string ImatrixCoverage::warning(std::size_t named) const
{
    // The names that matter first: those outside token_embd/output.
    std::vector<std::string> names;
    for (const std::string& name : uncovered)
        if (!isEdgeMatrix(name))
            names.push_back(name);
    for (const std::string& name : uncovered)
        if (isEdgeMatrix(name))
            names.push_back(name);
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < named; ++i)
        list += (i ? ", " : "") + names[i];
    if (names.size() > named)
        list += ", ... (" + std::to_string(names.size() - named) + " more)";
    return "the importance matrix has no entry for " + std::to_string(uncovered.size()) + " of the model's " + std::to_string(matrices)
         + " matrices (" + list + "): they are quantized without importance weights";
}

}  // namespace gguf
