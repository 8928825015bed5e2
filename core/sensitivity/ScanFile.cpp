#include "core/sensitivity/ScanFile.h"

#include "core/base/JsonWriter.h"
#include "core/types/GgmlType.h"
#include "core/write/ByteSink.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <utility>

namespace gguf {

namespace {

void writeFigures(JsonWriter& json, const ProbeFigures& p)
{
    json.key("kld");
    json.value(p.meanKld);
    json.key("kld_error");
    json.value(p.kldStandardError);
    if (p.trimmedKld) {  // optional: readers before it skip it
        json.key("kld_trimmed");
        json.value(*p.trimmedKld);
    }
    json.key("same_top");
    json.value(p.sameTopFraction);
    json.key("delta_p");
    json.value(p.meanDeltaTopProbability);
    json.key("positions");
    json.value(p.positions);
    json.key("layers_rerun");
    json.value(p.layersRerun);
}

// The JSON of `record`, handed to `flush` a piece at a time (about kFlushBytes each; `flush`
// takes the text and leaves the string empty), so a large scan is not held twice in memory.
constexpr std::size_t kFlushBytes = 1 << 20;

Status emitRecordJson(const ScanRecord& record, const std::function<Status(std::string&)>& flush)
{
    const ScanIdentity& id = record.identity;
    std::string out;
    JsonWriter json(out);
    json.beginObject();
    json.key("format");
    json.value(kScanFormat);
    json.key("version");
    json.value(1);
    json.key("model");
    json.value(id.model);
    json.key("fingerprint");
    json.value(id.fingerprint);
    const ScanFingerprintParts& parts = id.parts;
    const std::pair<const char*, const std::string*> named[] = {
        {"tensors", &parts.tensors}, {"model", &parts.model}, {"text", &parts.text}, {"imatrix", &parts.imatrix}, {"arithmetic", &parts.arithmetic}};
    if (std::any_of(std::begin(named), std::end(named), [](const auto& part) { return !part.second->empty(); })) {
        json.key("fingerprints");
        json.beginObject();
        for (const auto& [name, hash] : named)
            if (!hash->empty()) {
                json.key(name);
                json.value(*hash);
            }
        json.endObject();
    }
    json.key("chunk_size");
    json.value(id.chunkSize);
    json.key("tokens");
    json.value(id.tokens);
    json.key("scored_per_chunk");
    json.value(id.scoredPerChunk);
    json.key("types");
    json.beginArray();
    for (const std::uint32_t type : id.types)
        json.value(typeName(type));
    json.endArray();
    json.key("imatrix");
    id.importance.empty() ? json.null() : json.value(id.importance);
    json.key("activations");
    json.value(id.activations);
    json.key("attention");
    json.value(id.attention);
    json.key("layer_stride");
    json.value(id.layerStride);
    json.key("layers");
    json.beginArray();
    for (const std::int64_t layer : id.layers)
        json.value(layer);
    json.endArray();
    if (!record.shard.empty()) {
        json.key("shard");
        json.value(record.shard);
    }
    json.key("probes_total");
    json.value(static_cast<std::uint64_t>(record.probes.size()));
    json.key("probes_measured");
    json.value(static_cast<std::uint64_t>(record.measured()));
    json.key("groups");
    json.beginArray();
    for (const ScanGroup& g : record.groups) {
        if (out.size() >= kFlushBytes)
            if (Status s = flush(out); !s)
                return s;
        json.beginObject();
        json.key("tensor");
        json.value(g.tensor);
        json.key("role");
        json.value(g.role);
        json.key("layer");
        json.value(g.layer);
        json.key("first_layer");
        json.value(g.firstLayer);
        json.key("elements");
        json.value(g.elements);
        json.key("row_length");
        json.value(g.rowLength);
        json.key("importance");
        json.value(g.hasImportance);
        json.endObject();
    }
    json.endArray();
    json.key("probes");
    json.beginArray();
    for (std::size_t i = 0; i < record.probes.size(); ++i) {
        if (out.size() >= kFlushBytes)
            if (Status s = flush(out); !s)
                return s;
        json.beginObject();
        json.key("group");
        json.value(static_cast<std::uint64_t>(record.probes[i].group));
        json.key("type");
        json.value(typeName(record.probes[i].type));
        if (i < record.figures.size() && record.figures[i])
            writeFigures(json, *record.figures[i]);
        json.endObject();
    }
    json.endArray();
    json.endObject();
    out += '\n';
    return flush(out);
}

}  // namespace

std::string scanRecordJson(const ScanRecord& record)
{
    std::string text;
    emitRecordJson(record, [&text](std::string& piece) {
        text += piece;
        piece.clear();
        return Status(Ok{});
    });
    return text;
}

Status writeScanFile(const std::string& path, const ScanRecord& record)
{
    auto sink = openOutputFile(path);
    if (!sink)
        return sink.error();
    ByteSink& out = **sink;
    if (Status s = emitRecordJson(record, [&out](std::string& piece) {
            Status written = out.write(piece.data(), piece.size());
            piece.clear();
            return written;
        });
        !s)
        return s;
    return out.commit();
}

const ProbeFigures* findFigures(const ScanRecord& record, std::string_view tensor, std::uint32_t type)
{
    for (std::size_t i = 0; i < record.probes.size(); ++i)
        if (record.probes[i].type == type && record.groups[record.probes[i].group].tensor == tensor && record.figures[i])
            return &*record.figures[i];
    return nullptr;
}

}  // namespace gguf
