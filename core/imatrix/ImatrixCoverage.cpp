#include "core/imatrix/ImatrixCoverage.h"

#include "core/imatrix/ImatrixValidation.h"

namespace gguf {

namespace {

bool isEdgeMatrix(const std::string& name)
{
    return name == "token_embd.weight" || name == "output.weight";
}

// "a, b, c, d, ... (5 more)": the first `named` of `names`.
std::string firstNames(const std::vector<std::string>& names, std::size_t named)
{
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < named; ++i)
        list += (i ? ", " : "") + names[i];
    if (names.size() > named)
        list += ", ... (" + std::to_string(names.size() - named) + " more)";
    return list;
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
    coverage.entries = matrix.entries().size();
    for (const ImportanceEntry& entry : matrix.entries())
        if (!model.findTensor(entry.name))
            coverage.unmatched.push_back(entry.name);
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
    return "the importance matrix has no entry for " + std::to_string(uncovered.size()) + " of the model's " + std::to_string(matrices)
         + " matrices (" + firstNames(names, named) + "): they are quantized without importance weights";
}

std::vector<std::string> ImatrixCoverage::warnings(std::size_t named) const
{
    std::vector<std::string> out;
    if (!unmatched.empty())
        out.push_back("the importance matrix may be of another model: " + std::to_string(unmatched.size()) + " of its " + std::to_string(entries)
                      + " entries name no tensor of this model (" + firstNames(unmatched, named) + "): they are unused");
    if (worthWarning())
        out.push_back(warning(named));
    return out;
}

}  // namespace gguf
