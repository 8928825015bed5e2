#include "core/sensitivity/ScanComparison.h"

#include "core/sensitivity/ScanFingerprint.h"
#include "core/types/GgmlType.h"

#include <cstring>

namespace gguf {

namespace {

Error scanError(std::string message)
{
    return Error{std::move(message), Error::kNoOffset, {}};
}

std::string typesText(const std::vector<std::uint32_t>& types)
{
    std::string text;
    for (const std::uint32_t type : types)
        text += (text.empty() ? "" : ",") + typeName(type);
    return text;
}

std::string layersText(const ScanIdentity& id)
{
    if (id.layers.empty())
        return "every " + std::to_string(id.layerStride) + ". block";
    std::string text = "blocks ";
    for (std::size_t i = 0; i < id.layers.size(); ++i)
        text += (i ? "," : "") + std::to_string(id.layers[i]);
    return text;
}

std::string groupText(const ScanGroup& g)
{
    return g.tensor + " (" + g.role + ", layer " + std::to_string(g.layer) + " from " + std::to_string(g.firstLayer) + ", "
         + std::to_string(g.elements) + " elements in rows of " + std::to_string(g.rowLength) + (g.hasImportance ? ", with weights" : "")
         + ")";
}

bool sameGroup(const ScanGroup& x, const ScanGroup& y)
{
    return x.tensor == y.tensor && x.role == y.role && x.layer == y.layer && x.firstLayer == y.firstLayer && x.elements == y.elements
        && x.rowLength == y.rowLength && x.hasImportance == y.hasImportance;
}

bool sameFigures(const ProbeFigures& a, const ProbeFigures& b)
{
    return std::memcmp(&a.meanKld, &b.meanKld, sizeof(double)) == 0 && std::memcmp(&a.kldStandardError, &b.kldStandardError, sizeof(double)) == 0
        && std::memcmp(&a.sameTopFraction, &b.sameTopFraction, sizeof(double)) == 0
        && std::memcmp(&a.meanDeltaTopProbability, &b.meanDeltaTopProbability, sizeof(double)) == 0 && a.positions == b.positions
        && a.layersRerun == b.layersRerun && a.trimmedKld.has_value() == b.trimmedKld.has_value()
        && (!a.trimmedKld || std::memcmp(&*a.trimmedKld, &*b.trimmedKld, sizeof(double)) == 0);
}

}  // namespace

std::string scanDifference(const NamedScan& a, const NamedScan& b, bool comparePaths)
{
    const ScanIdentity& x = a.record.identity;
    const ScanIdentity& y = b.record.identity;
    // "the types differ: part 2 has q4_K, part 1 q4_K,q8_0"
    const auto differ = [&](const std::string& what, const std::string& ofA, const std::string& ofB) {
        return what + " differ: " + a.name + " has " + ofA + ", " + b.name + " " + ofB;
    };
    // The fingerprint's parts first, where both recorded them: they name the cause (another
    // model, another text) rather than its consequences (other groups, other tokens).
    const struct {
        const std::string& ofA;
        const std::string& ofB;
        const char* what;
    } parts[] = {
        {x.parts.tensors, y.parts.tensors, "the model's tensor names or shapes differ"},
        {x.parts.model, y.parts.model, "the model files differ (the same tensors, of other types or at other offsets)"},
        {x.parts.text, y.parts.text, "the text differs (other tokens)"},
        {x.parts.imatrix, y.parts.imatrix, "the importance matrix differs (other weights)"},
        {x.parts.arithmetic, y.parts.arithmetic, "the arithmetic differs"},
    };
    for (const auto& part : parts)
        if (!part.ofA.empty() && !part.ofB.empty() && part.ofA != part.ofB)
            return part.what;
    if (x.tokens != y.tokens)
        return differ("the tokens", std::to_string(x.tokens), std::to_string(y.tokens));
    if (x.chunkSize != y.chunkSize || x.scoredPerChunk != y.scoredPerChunk)
        return differ("the chunks", "chunks of " + std::to_string(x.chunkSize), "chunks of " + std::to_string(y.chunkSize));
    if (x.activations != y.activations)
        return differ("the activation arithmetics", x.activations, y.activations);
    if (x.attention != y.attention)
        return differ("the KV caches and attention", x.attention, y.attention);
    if (x.importance.empty() != y.importance.empty() || (comparePaths && x.importance != y.importance))
        return differ("the importance matrices", x.importance.empty() ? "none" : x.importance, y.importance.empty() ? "none" : y.importance);
    if (x.types != y.types)
        return differ("the types", typesText(x.types), typesText(y.types));
    if (x.layerStride != y.layerStride || x.layers != y.layers)
        return differ("the layers scanned", layersText(x), layersText(y));
    const std::vector<ScanGroup>& groupsA = a.record.groups;
    const std::vector<ScanGroup>& groupsB = b.record.groups;
    if (groupsA.size() != groupsB.size())
        return differ("the groups", std::to_string(groupsA.size()), std::to_string(groupsB.size()));
    for (std::size_t g = 0; g < groupsA.size(); ++g)
        if (!sameGroup(groupsA[g], groupsB[g]))
            return differ("group " + std::to_string(g) + "'s tensors", groupText(groupsA[g]), groupText(groupsB[g]));
    const std::vector<ProbeKey>& probesA = a.record.probes;
    const std::vector<ProbeKey>& probesB = b.record.probes;
    if (probesA.size() != probesB.size())
        return differ("the probes", std::to_string(probesA.size()), std::to_string(probesB.size()));
    for (std::size_t i = 0; i < probesA.size(); ++i)
        if (probesA[i].group != probesB[i].group || probesA[i].type != probesB[i].type)
            return differ("probe " + std::to_string(i) + "'s labels", groupsA[probesA[i].group].tensor + " as " + typeName(probesA[i].type),
                          groupsB[probesB[i].group].tensor + " as " + typeName(probesB[i].type));
    if (comparePaths && x.model != y.model)
        return differ("the models", x.model, y.model);
    if (x.fingerprint != y.fingerprint)
        return "the fingerprint differs (the model, the text, the importance matrix or the settings)";
    return {};
}

Result<ScanRecord> mergeScanRecords(const std::vector<ScanRecord>& parts)
{
    if (parts.empty())
        return scanError("nothing to merge");
    ScanRecord merged = parts.front();
    merged.shard.clear();
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const ScanRecord& part = parts[k];
        const std::string name = "part " + std::to_string(k + 1);
        if (const std::string difference = scanDifference({part, name}, {parts.front(), "part 1"}, true); !difference.empty())
            return scanError(name + " is not a part of the scan part 1 is of: " + difference);
        for (std::size_t i = 0; i < part.probes.size(); ++i) {
            if (!part.figures[i])
                continue;
            if (merged.figures[i] && !sameFigures(*merged.figures[i], *part.figures[i]))
                return scanError("probe " + std::to_string(i) + " (" + merged.groups[merged.probes[i].group].tensor + " as "
                                 + typeName(merged.probes[i].type) + ") has other figures in " + name);
            merged.figures[i] = part.figures[i];
        }
    }
    return merged;
}

Status checkScanForModel(const ScanRecord& record, const Model& model, const ImportanceLookup& importance)
{
    const std::string modelPath = model.primary().path();
    const std::string another = "the scan is of another model (" + record.identity.model + ") than " + modelPath + ": ";
    for (const ScanGroup& group : record.groups) {
        const TensorInfo* tensor = model.findTensor(group.tensor);
        if (!tensor)
            return scanError(another + "its group " + group.tensor + " is not a tensor of this one");
        if (tensor->elementCount() != group.elements || tensor->ne[0] != group.rowLength)
            return scanError(another + group.tensor + " has " + std::to_string(group.elements) + " elements in rows of "
                             + std::to_string(group.rowLength) + " in the scan, " + std::to_string(tensor->elementCount()) + " in rows of "
                             + std::to_string(tensor->ne[0]) + " in this model");
    }
    if (!record.identity.parts.tensors.empty() && record.identity.parts.tensors != tensorShapesFingerprint(model))
        return scanError(another + "its tensor names or shapes differ");
    if (importance && !record.identity.importance.empty() && !record.identity.parts.imatrix.empty()) {
        // As the scan decided it: a group has weights when the importance matrix has them.
        std::vector<ScanGroup> groups = record.groups;
        for (ScanGroup& group : groups)
            group.hasImportance = !importance(group.tensor, 0).empty();
        if (importanceFingerprint(model, groups, importance) != record.identity.parts.imatrix)
            return scanError("the scan was measured with another importance matrix (" + record.identity.importance + ") than the one given");
    }
    return Ok{};
}

}  // namespace gguf
