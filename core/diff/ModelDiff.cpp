#include "core/diff/ModelDiff.h"

#include "core/compare/ErrorMetricTable.h"
#include "core/compare/ModelComparison.h"
#include "core/gguf/MetadataFormat.h"
#include "core/gguf/RemoteRegion.h"
#include "core/write/GgufWriter.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

namespace gguf {

namespace {

constexpr std::uint64_t kByteChunk = std::uint64_t{4} << 20;

std::string payloadOf(const MetadataValue& value, bool bigEndian)
{
    auto encoded = EncodedValue::copyOf(value, bigEndian);
    return encoded ? std::move(encoded->payload) : std::string();
}

// Values compare by their little-endian encoding, so a big-endian file and a little-endian one
// with the same values have the same metadata.
bool sameValue(const MetadataValue& a, bool aBigEndian, const MetadataValue& b, bool bBigEndian)
{
    if (a.type() != b.type() || a.typeName() != b.typeName())
        return false;
    return payloadOf(a, aBigEndian) == payloadOf(b, bBigEndian);
}

bool sameFixedElement(const std::uint8_t* a, bool aBigEndian, const std::uint8_t* b, bool bBigEndian, std::uint32_t size)
{
    if (aBigEndian == bBigEndian || size == 1)
        return std::memcmp(a, b, size) == 0;
    for (std::uint32_t i = 0; i < size; ++i)
        if (a[i] != b[size - 1 - i])
            return false;
    return true;
}

bool isMultiLineOrLong(std::string_view text)
{
    return text.size() > ModelDiff::kLongString || text.find('\n') != std::string_view::npos;
}

bool canCompareBytes(const TensorInfo& a, const TensorInfo& b)
{
    return a.typeId == b.typeId && a.nbytes == b.nbytes && a.bigEndian == b.bigEndian;
}

// Which of `pairs` hold the same bytes, compared in chunks on the caller's executor.
std::vector<bool> identicalBytes(const std::vector<std::pair<const TensorInfo*, const TensorInfo*>>& pairs, const DiffOptions& options,
                                 std::uint64_t& bytesDone, std::uint64_t total)
{
    struct Chunk {
        std::size_t pair;
        std::uint64_t begin;
        std::uint64_t end;
    };
    std::vector<Chunk> chunks;
    for (std::size_t p = 0; p < pairs.size(); ++p)
        for (std::uint64_t at = 0; at < pairs[p].first->nbytes; at += kByteChunk)
            chunks.push_back({p, at, std::min(pairs[p].first->nbytes, at + kByteChunk)});
    std::vector<std::atomic<bool>> differs(pairs.size());
    std::atomic<std::size_t> next{0};
    std::mutex progressMutex;
    const auto work = [&] {
        for (std::size_t c; (c = next.fetch_add(1)) < chunks.size();) {
            if (options.cancel && options.cancel->load())
                return;
            const Chunk& chunk = chunks[c];
            if (differs[chunk.pair].load(std::memory_order_relaxed))
                continue;
            const auto* a = pairs[chunk.pair].first->data + chunk.begin;
            const auto* b = pairs[chunk.pair].second->data + chunk.begin;
            // A remote model's bytes are fetched first; one that cannot be fetched counts as
            // differing, so the values comparison that follows reports the fetch error.
            if (!ensureMappedBytes(a, chunk.end - chunk.begin) || !ensureMappedBytes(b, chunk.end - chunk.begin)
                || std::memcmp(a, b, static_cast<std::size_t>(chunk.end - chunk.begin)) != 0)
                differs[chunk.pair].store(true, std::memory_order_relaxed);
            std::lock_guard lock(progressMutex);
            bytesDone += chunk.end - chunk.begin;
            if (options.progress)
                options.progress(bytesDone, total);
        }
    };
    const std::size_t workers = std::min<std::size_t>(executorThreads(options.executor), std::max<std::size_t>(1, chunks.size()));
    runTasks(options.executor, workers, [&](std::size_t) { work(); });
    std::vector<bool> same(pairs.size());
    for (std::size_t p = 0; p < pairs.size(); ++p)
        same[p] = !differs[p].load();
    return same;
}

bool sameShape(const TensorInfo& a, const TensorInfo& b)
{
    return a.ne == b.ne;  // dims past nDims are 1: [16] and [16,1] hold the same values
}

}  // namespace

const char* tensorContentName(TensorContent content)
{
    switch (content) {
    case TensorContent::IdenticalBytes: return "identical_bytes";
    case TensorContent::IdenticalValues: return "identical_values";
    case TensorContent::Different: return "different";
    case TensorContent::NotComparable: return "not_comparable";
    }
    return "?";
}

ArrayDifference diffArrays(const MetadataValue& a, bool aBigEndian, const MetadataValue& b, bool bBigEndian)
{
    ArrayDifference result;
    result.lengthA = a.arrayLength();
    result.lengthB = b.arrayLength();
    const std::uint64_t common = std::min(result.lengthA, result.lengthB);
    const auto noteDifference = [&](std::uint64_t i) {
        ++result.differingElements;
        if (!result.firstDifference)
            result.firstDifference = i;
    };
    if (a.elementType() != b.elementType()) {
        for (std::uint64_t i = 0; i < common; ++i)
            noteDifference(i);
        return result;
    }
    if (const std::uint32_t size = fixedValueSize(a.elementType())) {
        const std::uint8_t* pa = a.fixedElementsData();
        const std::uint8_t* pb = b.fixedElementsData();
        for (std::uint64_t i = 0; i < common; ++i)
            if (!sameFixedElement(pa + i * size, aBigEndian, pb + i * size, bBigEndian, size))
                noteDifference(i);
        return result;
    }
    // Strings and nested arrays: walk both in step (element(i) would restart from the front).
    MetadataValue ea = common > 0 ? a.element(0) : MetadataValue();
    MetadataValue eb = common > 0 ? b.element(0) : MetadataValue();
    for (std::uint64_t i = 0; i < common; ++i) {
        const bool same = a.elementType() == ValueType::String ? ea.toStringView() == eb.toStringView()
                                                               : sameValue(ea, aBigEndian, eb, bBigEndian);
        if (!same)
            noteDifference(i);
        if (i + 1 < common) {
            ea = a.elementAt(ea.offset() + ea.encodedSize());
            eb = b.elementAt(eb.offset() + eb.encodedSize());
        }
    }
    return result;
}

std::vector<MetadataDifference> diffMetadata(const Model& a, const Model& b)
{
    const bool aBig = a.primary().bigEndian();
    const bool bBig = b.primary().bigEndian();
    std::vector<MetadataDifference> out;
    for (const MetadataEntry& entry : a.metadata()) {
        const MetadataEntry* other = b.findMetadata(entry.key);
        if (!other) {
            out.push_back({MetadataDifference::Kind::Removed, std::string(entry.key), entry.value.typeName(), "", formatValue(entry.value), "", {}, {}});
            continue;
        }
        if (sameValue(entry.value, aBig, other->value, bBig))
            continue;
        MetadataDifference change{MetadataDifference::Kind::Changed, std::string(entry.key), entry.value.typeName(), other->value.typeName(),
                                  formatValue(entry.value), formatValue(other->value), {}, {}};
        if (entry.value.isArray() && other->value.isArray() && entry.value.elementType() == other->value.elementType())
            change.array = diffArrays(entry.value, aBig, other->value, bBig);
        if (entry.value.type() == ValueType::String && other->value.type() == ValueType::String
            && (isMultiLineOrLong(entry.value.toStringView()) || isMultiLineOrLong(other->value.toStringView())))
            change.textDiff = diffLines(entry.value.toStringView(), other->value.toStringView());
        out.push_back(std::move(change));
    }
    for (const MetadataEntry& entry : b.metadata())
        if (!a.findMetadata(entry.key))
            out.push_back({MetadataDifference::Kind::Added, std::string(entry.key), "", entry.value.typeName(), "", formatValue(entry.value), {}, {}});
    return out;
}

std::size_t ModelDiff::metadataCount(MetadataDifference::Kind kind) const
{
    return static_cast<std::size_t>(std::count_if(metadata.begin(), metadata.end(), [&](const auto& d) { return d.kind == kind; }));
}

std::size_t ModelDiff::tensorCount(TensorDifference::Kind kind) const
{
    return static_cast<std::size_t>(std::count_if(tensors.begin(), tensors.end(), [&](const auto& d) { return d.kind == kind; }));
}

std::size_t ModelDiff::contentCount(TensorContent content) const
{
    return static_cast<std::size_t>(std::count_if(tensors.begin(), tensors.end(),
                                                  [&](const auto& d) { return d.kind == TensorDifference::Kind::InBoth && d.content == content; }));
}

bool ModelDiff::identical() const
{
    return metadata.empty() && std::all_of(tensors.begin(), tensors.end(), [](const TensorDifference& d) {
               return d.kind == TensorDifference::Kind::InBoth && d.content == TensorContent::IdenticalBytes && d.a->typeId == d.b->typeId;
           });
}

Result<ModelDiff> diffModels(const std::shared_ptr<const Model>& a, const std::shared_ptr<const Model>& b, const DiffOptions& options)
{
    ModelDiff diff;
    diff.metadata = diffMetadata(*a, *b);
    const std::string archA = a->metadataString("general.architecture");
    const std::string archB = b->metadataString("general.architecture");
    if (archA != archB)
        diff.problems.push_back("the architectures differ: '" + archA + "' and '" + archB + "'");

    std::vector<std::pair<const TensorInfo*, const TensorInfo*>> bytePairs;
    std::vector<std::size_t> bytePairRows;
    std::uint64_t byteTotal = 0;
    for (const TensorInfo& tensor : a->tensors()) {
        TensorDifference d;
        d.name = std::string(tensor.name);
        d.a = &tensor;
        d.b = b->findTensor(tensor.name);
        d.layer = splitTensorName(tensor.name).layer;
        if (!d.b) {
            d.kind = TensorDifference::Kind::Removed;
        } else if (!sameShape(tensor, *d.b)) {
            d.kind = TensorDifference::Kind::ShapeChanged;
        } else if (canCompareBytes(tensor, *d.b)) {
            bytePairs.emplace_back(&tensor, d.b);
            bytePairRows.push_back(diff.tensors.size());
            byteTotal += tensor.nbytes;
        }
        diff.tensors.push_back(std::move(d));
    }
    for (const TensorInfo& tensor : b->tensors())
        if (!a->findTensor(tensor.name))
            diff.tensors.push_back({TensorDifference::Kind::Added, std::string(tensor.name), nullptr, &tensor,
                                    splitTensorName(tensor.name).layer, TensorContent::NotComparable, {}, {}});

    std::uint64_t done = 0;
    const std::vector<bool> same = identicalBytes(bytePairs, options, done, byteTotal);
    if (options.cancel && options.cancel->load())
        return Error{"diff cancelled", Error::kNoOffset, {}};
    for (std::size_t p = 0; p < bytePairs.size(); ++p)
        if (same[p])
            diff.tensors[bytePairRows[p]].content = TensorContent::IdenticalBytes;

    // Everything in both that is not byte-identical: dequantized and compared, B against A.
    std::set<std::string_view> toCompare;
    for (const TensorDifference& d : diff.tensors)
        if (d.kind == TensorDifference::Kind::InBoth && d.content != TensorContent::IdenticalBytes)
            toCompare.insert(d.a->name);
    if (!toCompare.empty()) {
        ComparisonOptions compareOptions;
        compareOptions.referenceIndex = 0;
        compareOptions.includeTensor = [&](std::string_view name) { return toCompare.count(name) > 0; };
        auto comparison = ModelComparison::create({a, b}, compareOptions);
        if (!comparison)
            return comparison.error();
        ComparisonRunOptions run;
        run.executor = options.executor;
        run.cancel = options.cancel;
        const std::uint64_t offset = done;
        if (options.progress)
            run.progress = [&](std::uint64_t elements, std::uint64_t total) { options.progress(offset + elements, offset + total); };
        auto results = runComparison(*comparison, run);
        if (!results)
            return results.error();
        std::map<std::string_view, std::size_t> rowOf;
        for (std::size_t r = 0; r < comparison->rows().size(); ++r)
            rowOf.emplace(comparison->rows()[r].reference->name, r);
        for (TensorDifference& d : diff.tensors) {
            if (d.kind != TensorDifference::Kind::InBoth || d.content == TensorContent::IdenticalBytes)
                continue;
            const auto row = rowOf.find(d.a->name);
            if (row == rowOf.end()) {
                d.problem = "not paired by the comparison";
                continue;
            }
            const ComparisonCell& cell = comparison->rows()[row->second].cells[0];
            const auto& metrics = results->cells[row->second][0];
            if (!cell.ok() || !metrics) {
                d.problem = cell.problem.empty() ? "its values cannot be decoded" : cell.problem;
                continue;
            }
            d.metrics = *metrics;
            const bool valuesEqual = metrics->nonFiniteCount == 0 && metrics->count == d.a->elementCount()
                                  && (metrics->count == 0 || metrics->maxAbsError == 0.0);
            d.content = valuesEqual ? TensorContent::IdenticalValues : TensorContent::Different;
        }
    }
    if (Status s = a->checkUnchanged(); !s)
        return s.error();
    if (Status s = b->checkUnchanged(); !s)
        return s.error();

    // Per layer, then the tensors outside the layers.
    std::map<std::uint32_t, LayerDifference> layers;
    LayerDifference outside;
    std::map<std::uint32_t, std::vector<const ErrorMetrics*>> layerParts;
    std::vector<const ErrorMetrics*> outsideParts;
    for (const TensorDifference& d : diff.tensors) {
        if (d.kind != TensorDifference::Kind::InBoth)
            continue;
        LayerDifference& layer = d.layer ? layers[*d.layer] : outside;
        layer.layer = d.layer;
        ++layer.tensors;
        switch (d.content) {
        case TensorContent::IdenticalBytes: ++layer.identicalBytes; break;
        case TensorContent::IdenticalValues: ++layer.identicalValues; break;
        case TensorContent::Different: ++layer.different; break;
        case TensorContent::NotComparable: ++layer.notComparable; break;
        }
        if (d.metrics)
            (d.layer ? layerParts[*d.layer] : outsideParts).push_back(&*d.metrics);
    }
    for (auto& [index, layer] : layers) {
        layer.metrics = combineErrorMetrics(layerParts[index]);
        diff.layers.push_back(layer);
    }
    if (outside.tensors > 0) {
        outside.metrics = combineErrorMetrics(outsideParts);
        diff.layers.push_back(outside);
    }
    return diff;
}

namespace {
void writeShape(JsonWriter& json, const TensorInfo& tensor)
{
    json.beginArray();
    for (std::uint32_t d = 0; d < tensor.nDims; ++d)
        json.value(tensor.ne[d]);
    json.endArray();
}

void writeTensorSide(JsonWriter& json, const char* suffix, const TensorInfo* tensor)
{
    if (!tensor)
        return;
    json.key(std::string("type") + suffix);
    json.value(typeName(tensor->typeId));
    json.key(std::string("shape") + suffix);
    writeShape(json, *tensor);
}

const char* metadataKindName(MetadataDifference::Kind kind)
{
    return kind == MetadataDifference::Kind::Added ? "added" : kind == MetadataDifference::Kind::Removed ? "removed" : "changed";
}

const char* tensorKindName(TensorDifference::Kind kind)
{
    switch (kind) {
    case TensorDifference::Kind::Added: return "added";
    case TensorDifference::Kind::Removed: return "removed";
    case TensorDifference::Kind::ShapeChanged: return "shape_changed";
    case TensorDifference::Kind::InBoth: return "in_both";
    }
    return "?";
}
}  // namespace

void writeModelDiffJson(JsonWriter& json, const ModelDiff& diff)
{
    json.beginObject();
    json.key("identical");
    json.value(diff.identical());
    json.key("problems");
    json.beginArray();
    for (const std::string& problem : diff.problems)
        json.value(problem);
    json.endArray();
    json.key("metadata");
    json.beginArray();
    for (const MetadataDifference& d : diff.metadata) {
        json.beginObject();
        json.key("key");
        json.value(d.key);
        json.key("change");
        json.value(metadataKindName(d.kind));
        if (!d.typeA.empty()) {
            json.key("type_a");
            json.value(d.typeA);
            json.key("value_a");
            json.value(d.valueA);
        }
        if (!d.typeB.empty()) {
            json.key("type_b");
            json.value(d.typeB);
            json.key("value_b");
            json.value(d.valueB);
        }
        if (d.array) {
            json.key("array");
            json.beginObject();
            json.key("length_a");
            json.value(d.array->lengthA);
            json.key("length_b");
            json.value(d.array->lengthB);
            json.key("differing_elements");
            json.value(d.array->differingElements);
            json.key("first_difference");
            if (d.array->firstDifference)
                json.value(*d.array->firstDifference);
            else
                json.null();
            json.endObject();
        }
        if (!d.textDiff.empty()) {
            json.key("text_diff");
            json.beginArray();
            for (const TextDiffLine& line : d.textDiff)
                json.value(line.op == TextDiffLine::Op::Gap ? line.text : std::string(1, static_cast<char>(line.op)) + line.text);
            json.endArray();
        }
        json.endObject();
    }
    json.endArray();
    json.key("tensors");
    json.beginArray();
    for (const TensorDifference& d : diff.tensors) {
        json.beginObject();
        json.key("name");
        json.value(d.name);
        json.key("change");
        json.value(tensorKindName(d.kind));
        writeTensorSide(json, "_a", d.a);
        writeTensorSide(json, "_b", d.b);
        if (d.kind == TensorDifference::Kind::InBoth) {
            json.key("content");
            json.value(tensorContentName(d.content));
            if (!d.problem.empty()) {
                json.key("problem");
                json.value(d.problem);
            }
            if (d.metrics) {
                json.key("metrics");
                json.beginObject();
                writeErrorMetricsJson(json, *d.metrics);
                json.endObject();
            }
        }
        json.endObject();
    }
    json.endArray();
    json.key("layers");
    json.beginArray();
    for (const LayerDifference& layer : diff.layers) {
        json.beginObject();
        json.key("layer");
        if (layer.layer)
            json.value(static_cast<std::uint64_t>(*layer.layer));
        else
            json.null();
        json.key("tensors");
        json.value(static_cast<std::uint64_t>(layer.tensors));
        json.key("identical_bytes");
        json.value(static_cast<std::uint64_t>(layer.identicalBytes));
        json.key("identical_values");
        json.value(static_cast<std::uint64_t>(layer.identicalValues));
        json.key("different");
        json.value(static_cast<std::uint64_t>(layer.different));
        json.key("not_comparable");
        json.value(static_cast<std::uint64_t>(layer.notComparable));
        json.key("metrics");
        json.beginObject();
        writeErrorMetricsJson(json, layer.metrics);
        json.endObject();
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

}  // namespace gguf
