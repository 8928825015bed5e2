#include "core/compare/ComparableModels.h"

#include "core/gguf/MetadataFormat.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace gguf {
namespace {

std::vector<std::string_view> sortedNames(const Model& model)
{
    std::vector<std::string_view> names;
    names.reserve(model.tensors().size());
    for (const TensorInfo& tensor : model.tensors())
        names.emplace_back(tensor.name);
    std::sort(names.begin(), names.end());
    return names;
}

std::string architectureText(const Model& model)
{
    const std::string architecture = model.metadataString("general.architecture");
    return architecture.empty() ? std::string("not set") : escapeForDisplay(architecture);
}

}  // namespace

std::string whyNotComparable(const Model& candidate, const Model& reference)
{
    const std::string ours = candidate.metadataString("general.architecture");
    const std::string theirs = reference.metadataString("general.architecture");
    if (ours != theirs)
        return "architecture is " + architectureText(candidate) + ", not " + architectureText(reference);

    const std::vector<std::string_view> a = sortedNames(candidate);
    const std::vector<std::string_view> b = sortedNames(reference);
    std::vector<std::string_view> onlyHere;
    std::vector<std::string_view> onlyThere;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(onlyHere));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(onlyThere));
    if (!onlyHere.empty())
        return std::to_string(onlyHere.size()) + " of its " + std::to_string(a.size()) + " tensors are not in the other file (e.g. "
             + escapeForDisplay(onlyHere.front()) + ")";
    if (!onlyThere.empty())
        return "it lacks " + std::to_string(onlyThere.size()) + " of the other file's " + std::to_string(b.size()) + " tensors (e.g. "
             + escapeForDisplay(onlyThere.front()) + ")";
    return {};
}

}  // namespace gguf
