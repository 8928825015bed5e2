// Reading a scan file: the core's JSON reader pulls one event at a time from the file, and the
// record keeps only what it holds, so a file costs the memory of its record, whatever its size
// or shape. Each field is checked as it arrives, and the first thing wrong stops the read with
// its byte offset: the counts (groups by the limits, probes by groups x types, in their order),
// the lengths of names, and the figures (a mean KLD is a finite number >= 0).

#include "core/sensitivity/ScanFile.h"

#include "core/base/JsonReader.h"
#include "core/base/JsonWriter.h"
#include "core/types/GgmlType.h"
#include "core/types/KvCacheSettings.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>

namespace gguf {

namespace {

constexpr std::int64_t kBig = std::int64_t{1} << 52;
constexpr std::int64_t kMaxLayer = std::int64_t{1} << 20;
constexpr std::size_t kMaxNameBytes = 64;    // the GGUF reader's limit for a tensor name
constexpr std::size_t kMaxPathBytes = 4096;  // the model's and the imatrix's paths
constexpr std::size_t kMaxShardBytes = 32;   // "I/N"

// The index of `key` in `names`, or names.size().
template <std::size_t N>
std::size_t indexOf(const std::array<const char*, N>& names, const std::string& key)
{
    for (std::size_t i = 0; i < N; ++i)
        if (key == names[i])
            return i;
    return N;
}

bool isSha256Hex(const std::string& text)
{
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

class ScanFileParser {
public:
    ScanFileParser(JsonReader& json, const ScanFileLimits& limits) : m_json(json), m_limits(limits) {}

    Result<ScanRecord> parse();

private:
    // The top-level keys, in the order scanRecordJson writes them.
    enum Key : std::size_t {
        Format, Version, ModelPath, Fingerprint, Fingerprints, ChunkSize, Tokens, Scored, Types, Imatrix, Activations, Attention,
        LayerStride, Layers, Shard, ProbesTotal, ProbesMeasured, Groups, Probes, KeyCount
    };
    static constexpr std::array<const char*, KeyCount> kKeys = {
        "format", "version", "model", "fingerprint", "fingerprints", "chunk_size", "tokens", "scored_per_chunk", "types",
        "imatrix", "activations", "attention", "layer_stride", "layers", "shard", "probes_total", "probes_measured", "groups", "probes"};

    Error bad(const std::string& what) const { return m_json.error("not a scan file: " + what); }
    Error badAt(std::uint64_t offset, const std::string& what) const { return m_json.errorAt(offset, "not a scan file: " + what); }
    Result<JsonEvent> next()
    {
        auto event = m_json.next();
        if (!event)
            return Error{"not a scan file: " + event.error().message, event.error().offset, event.error().path};
        return event;
    }
    // A key this version does not know (a later version's): its value is read and not kept.
    Status skipValue()
    {
        Status s = m_json.skip();
        if (!s)
            return Error{"not a scan file: " + s.error().message, s.error().offset, s.error().path};
        return s;
    }
    Status expect(JsonEvent wanted, const std::string& what);
    // The members of the object just opened: read(i) reads the value of fields[i], each field at
    // most once (`which` names the object in that error); a key this version does not know is
    // skipped. `seen` says which fields came.
    template <std::size_t N, typename Read>
    Status members(const std::array<const char*, N>& fields, const std::string& which, std::array<bool, N>& seen, Read&& read);
    Result<std::string> text(const std::string& name, std::size_t maxBytes);
    Result<double> number(const std::string& name);
    Result<std::int64_t> integer(const std::string& name, std::int64_t low, std::int64_t high);
    Result<std::string> hash(const std::string& name);

    Status member(Key key);
    Status types();
    Status layers();
    Status fingerprints();
    Status groups();
    Status group();
    Status probes();
    Status probe();
    Status finish() const;

    JsonReader& m_json;
    const ScanFileLimits& m_limits;
    ScanRecord m_record;
    std::array<bool, KeyCount> m_seen{};
    std::int64_t m_probesTotal = -1, m_probesMeasured = -1;
    std::uint64_t m_lastProbeKey = 0;  // group * types + the type's index, plus one
};

Status ScanFileParser::expect(JsonEvent wanted, const std::string& what)
{
    auto event = next();
    if (!event)
        return event.error();
    return *event == wanted ? Status(Ok{}) : Status(bad(what));
}

template <std::size_t N, typename Read>
Status ScanFileParser::members(const std::array<const char*, N>& fields, const std::string& which, std::array<bool, N>& seen, Read&& read)
{
    for (;;) {
        auto event = next();
        if (!event)
            return event.error();
        if (*event == JsonEvent::EndObject)
            return Ok{};
        const std::size_t field = indexOf(fields, m_json.text());
        if (field == N) {
            if (Status s = skipValue(); !s)
                return s;
            continue;
        }
        if (seen[field])
            return bad("\"" + m_json.text() + "\" twice in " + which);
        seen[field] = true;
        if (Status s = read(field); !s)
            return s;
    }
}

Result<std::string> ScanFileParser::text(const std::string& name, std::size_t maxBytes)
{
    auto event = next();
    if (!event)
        return event.error();
    if (*event != JsonEvent::String)
        return bad("\"" + name + "\" is not a string");
    if (m_json.text().size() > maxBytes)
        return bad("\"" + name + "\" is longer than " + std::to_string(maxBytes) + " bytes");
    return m_json.text();
}

// A number, or the strings JsonWriter writes for the values JSON has no number for.
Result<double> ScanFileParser::number(const std::string& name)
{
    auto event = next();
    if (!event)
        return event.error();
    if (*event == JsonEvent::Number) {
        auto value = m_json.number();
        if (!value)
            return bad(value.error().message);
        return *value;
    }
    if (*event == JsonEvent::String && (m_json.text() == "nan" || m_json.text() == "inf" || m_json.text() == "-inf"))
        return m_json.text() == "nan" ? NAN : m_json.text() == "inf" ? INFINITY : -INFINITY;
    return bad("\"" + name + "\" is not a number");
}

Result<std::int64_t> ScanFileParser::integer(const std::string& name, std::int64_t low, std::int64_t high)
{
    auto value = number(name);
    if (!value)
        return value.error();
    if (!(*value >= double(low) && *value <= double(high)) || std::floor(*value) != *value)
        return bad("\"" + name + "\" must be a whole number from " + std::to_string(low) + " to " + std::to_string(high));
    return static_cast<std::int64_t>(*value);
}

Result<std::string> ScanFileParser::hash(const std::string& name)
{
    auto value = text(name, 64);
    if (value && !isSha256Hex(*value))
        return bad("\"" + name + "\" is not a SHA-256 in hex");
    return value;
}

Result<ScanRecord> ScanFileParser::parse()
{
    if (Status s = expect(JsonEvent::BeginObject, "the document is not an object"); !s)
        return s.error();
    for (bool first = true;; first = false) {
        auto event = next();
        if (!event)
            return event.error();
        if (*event == JsonEvent::EndObject && !first)
            break;
        // Anything else (another JSON file) is refused at its first key, not after its last.
        if (first && (*event != JsonEvent::Key || m_json.text() != kKeys[Format]))
            return bad(std::string("it does not begin with \"format\": \"") + kScanFormat + "\"");
        const std::size_t key = indexOf(kKeys, m_json.text());
        if (key == KeyCount) {
            if (Status s = skipValue(); !s)
                return s.error();
            continue;
        }
        if (m_seen[key])
            return bad("\"" + m_json.text() + "\" twice");
        m_seen[key] = true;
        if (Status s = member(static_cast<Key>(key)); !s)
            return s.error();
    }
    if (Status s = expect(JsonEvent::End, "text after the end of the document"); !s)
        return s.error();
    if (!m_seen[Activations])  // written before the default became q8 activations: f32 ones
        m_record.identity.activations = activationArithmeticName(ActivationArithmetic::Float32);
    if (!m_seen[Attention])  // written before the KV cache was a setting: f32 K and V, no flash attention
        m_record.identity.attention = m_record.identity.activations == activationArithmeticName(ActivationArithmetic::LlamaCpp)
                                          ? kvCacheSettingsName({0, 0, FlashAttention::Off})
                                          : std::string("K f32, V f32, plain f32 attention");
    if (Status s = finish(); !s)
        return s.error();
    return std::move(m_record);
}

Status ScanFileParser::member(Key key)
{
    ScanIdentity& id = m_record.identity;
    const std::string name = kKeys[key];
    const auto store = [](auto result, auto& target) -> Status {
        if (!result)
            return result.error();
        target = *result;
        return Ok{};
    };
    switch (key) {
    case Format: {
        auto format = text(name, kMaxPathBytes);
        if (format && *format != kScanFormat)
            return bad(std::string("\"format\" is not \"") + kScanFormat + "\"");
        return format ? Status(Ok{}) : Status(format.error());
    }
    case Version: {
        auto version = integer(name, 1, 1);
        return version ? Status(Ok{}) : Status(bad("only version 1 is known"));
    }
    case ModelPath: return store(text(name, kMaxPathBytes), id.model);
    case Fingerprint: return store(hash(name), id.fingerprint);
    case Fingerprints: return fingerprints();
    case ChunkSize: return store(integer(name, 4, kMaxForwardTokens), id.chunkSize);
    case Tokens: return store(integer(name, 1, kBig), id.tokens);
    case Scored: return store(integer(name, 0, kMaxForwardTokens), id.scoredPerChunk);
    case Types: return types();
    case Imatrix: {
        auto event = next();
        if (!event)
            return event.error();
        if (*event == JsonEvent::Null)
            return Ok{};
        if (*event != JsonEvent::String || m_json.text().size() > kMaxPathBytes)
            return bad("\"imatrix\" is neither null nor a path");
        id.importance = m_json.text();
        return Ok{};
    }
    case Activations: {
        auto activations = text(name, kMaxPathBytes);
        if (!activations)
            return activations.error();
        for (const ActivationArithmetic a : {ActivationArithmetic::Float32, ActivationArithmetic::QuantizedAsLlamaCpp, ActivationArithmetic::LlamaCpp})
            if (*activations == activationArithmeticName(a)) {
                id.activations = *activations;
                return Ok{};
            }
        return bad("unknown activations '" + *activations + "'");
    }
    case Attention: return store(text(name, kMaxPathBytes), id.attention);
    case LayerStride: return store(integer(name, 1, kBig), id.layerStride);
    case Layers: return layers();
    case Shard: return store(text(name, kMaxShardBytes), m_record.shard);
    case ProbesTotal: return store(integer(name, 0, kBig), m_probesTotal);
    case ProbesMeasured: return store(integer(name, 0, kBig), m_probesMeasured);
    case Groups: return groups();
    case Probes:
        if (!m_seen[Types] || !m_seen[Groups])
            return bad("\"probes\" before \"types\" and \"groups\"");
        return probes();
    case KeyCount: break;
    }
    return Ok{};
}

Status ScanFileParser::types()
{
    if (Status s = expect(JsonEvent::BeginArray, "\"types\" is not an array"); !s)
        return s;
    for (;;) {
        auto event = next();
        if (!event)
            return event.error();
        if (*event == JsonEvent::EndArray)
            return Ok{};
        if (*event != JsonEvent::String)
            return bad("a type that is not a string");
        const TypeTraits* type = m_json.text().size() <= kMaxNameBytes ? findTypeByName(m_json.text()) : nullptr;
        if (!type)
            return bad("unknown type '" + m_json.text() + "'");
        std::vector<std::uint32_t>& types = m_record.identity.types;
        if (std::find(types.begin(), types.end(), type->id) != types.end())
            return bad("type " + m_json.text() + " twice in \"types\"");
        types.push_back(type->id);
    }
}

Status ScanFileParser::layers()
{
    if (Status s = expect(JsonEvent::BeginArray, "\"layers\" is not an array"); !s)
        return s;
    std::vector<std::int64_t>& layers = m_record.identity.layers;
    for (;;) {
        auto event = next();
        if (!event)
            return event.error();
        if (*event == JsonEvent::EndArray)
            return Ok{};
        auto value = *event == JsonEvent::Number ? m_json.number() : Result<double>(bad("a layer that is not a number"));
        if (!value)
            return value.error();
        // Ascending without repeats (as the scan keeps them), so at most one per block.
        if (!(*value >= 0 && *value < double(kMaxLayer)) || std::floor(*value) != *value || (!layers.empty() && *value <= double(layers.back())))
            return bad("a layer that is not a whole number from 0 to " + std::to_string(kMaxLayer - 1) + " above the one before");
        layers.push_back(static_cast<std::int64_t>(*value));
    }
}

Status ScanFileParser::fingerprints()
{
    static constexpr std::array<const char*, 5> kParts = {"tensors", "model", "text", "imatrix", "arithmetic"};
    ScanFingerprintParts& parts = m_record.identity.parts;
    std::string* targets[] = {&parts.tensors, &parts.model, &parts.text, &parts.imatrix, &parts.arithmetic};
    if (Status s = expect(JsonEvent::BeginObject, "\"fingerprints\" is not an object"); !s)
        return s;
    std::array<bool, kParts.size()> seen{};
    return members(kParts, "\"fingerprints\"", seen, [&](std::size_t part) -> Status {
        auto value = hash(kParts[part]);
        if (!value)
            return value.error();
        *targets[part] = *value;
        return Ok{};
    });
}

Status ScanFileParser::groups()
{
    if (Status s = expect(JsonEvent::BeginArray, "\"groups\" is not an array"); !s)
        return s;
    for (;;) {
        auto event = next();
        if (!event)
            return event.error();
        if (*event == JsonEvent::EndArray)
            return Ok{};
        if (*event != JsonEvent::BeginObject)
            return bad("a group that is not an object");
        if (m_record.groups.size() >= m_limits.maxGroups)
            return bad("more groups than " + m_limits.groupsBound);
        if (Status s = group(); !s)
            return s;
    }
}

Status ScanFileParser::group()
{
    enum : std::size_t { Tensor, Role, Layer, FirstLayer, Elements, RowLength, Importance, Count };
    static constexpr std::array<const char*, Count> kFields = {"tensor", "role", "layer", "first_layer", "elements", "row_length", "importance"};
    const std::string which = "group " + std::to_string(m_record.groups.size());
    ScanGroup group;
    std::array<bool, Count> seen{};
    const auto store = [](auto result, auto& target) -> Status {
        if (!result)
            return result.error();
        target = static_cast<std::remove_reference_t<decltype(target)>>(*result);
        return Ok{};
    };
    Status read = members(kFields, which, seen, [&](std::size_t field) -> Status {
        switch (field) {
        case Tensor: return store(text(kFields[field], kMaxNameBytes), group.tensor);
        case Role: return store(text(kFields[field], kMaxNameBytes), group.role);
        case Layer: return store(integer(kFields[field], -1, kMaxLayer), group.layer);
        case FirstLayer: return store(integer(kFields[field], 0, kMaxLayer), group.firstLayer);
        case Elements: return store(integer(kFields[field], 1, kBig), group.elements);
        case RowLength: return store(integer(kFields[field], 1, kBig), group.rowLength);
        default: break;
        }
        auto flag = next();
        if (!flag)
            return flag.error();
        if (*flag != JsonEvent::True && *flag != JsonEvent::False)
            return bad(which + ": \"importance\" is neither true nor false");
        group.hasImportance = *flag == JsonEvent::True;
        return Ok{};
    });
    if (!read)
        return read;
    for (std::size_t field = Tensor; field < Importance; ++field)
        if (!seen[field])
            return bad(which + " has no \"" + kFields[field] + "\"");
    m_record.groups.push_back(std::move(group));
    return Ok{};
}

Status ScanFileParser::probes()
{
    if (Status s = expect(JsonEvent::BeginArray, "\"probes\" is not an array"); !s)
        return s;
    const std::uint64_t most = std::uint64_t(m_record.groups.size()) * m_record.identity.types.size();
    for (;;) {
        auto event = next();
        if (!event)
            return event.error();
        if (*event == JsonEvent::EndArray)
            return Ok{};
        if (*event != JsonEvent::BeginObject)
            return bad("a probe that is not an object");
        if (m_record.probes.size() >= most)
            return bad("more probes than groups times types (" + std::to_string(most) + ")");
        if (Status s = probe(); !s)
            return s;
    }
}

Status ScanFileParser::probe()
{
    // kld_trimmed last: optional (files written before it was recorded lack it).
    enum : std::size_t { Group, Type, Kld, KldError, SameTop, DeltaP, Positions, LayersRerun, KldTrimmed, Count };
    static constexpr std::array<const char*, Count> kFields = {"group", "type", "kld", "kld_error", "same_top", "delta_p", "positions", "layers_rerun",
                                                               "kld_trimmed"};
    const std::size_t index = m_record.probes.size();
    std::string which = "probe " + std::to_string(index);
    ProbeKey key;
    std::size_t typeIndex = 0;
    double figures[4] = {};             // kld, kld_error, same_top, delta_p
    std::uint64_t figureOffsets[4] = {};
    std::int64_t counts[2] = {};        // positions, layers_rerun
    double trimmed = 0.0;
    std::uint64_t trimmedOffset = 0;
    std::array<bool, Count> seen{};
    Status read = members(kFields, which, seen, [&](std::size_t field) -> Status {
        if (field == Group) {
            auto group = integer(kFields[field], 0, std::max<std::int64_t>(std::int64_t(m_record.groups.size()) - 1, 0));
            if (!group || m_record.groups.empty())
                return bad(which + " names no group of the file");
            key.group = static_cast<std::size_t>(*group);
        } else if (field == Type) {
            auto name = text(kFields[field], kMaxNameBytes);
            if (!name)
                return name.error();
            const TypeTraits* type = findTypeByName(*name);
            if (!type)
                return bad(which + ": unknown type '" + *name + "'");
            const std::vector<std::uint32_t>& types = m_record.identity.types;
            typeIndex = static_cast<std::size_t>(std::find(types.begin(), types.end(), type->id) - types.begin());
            if (typeIndex == types.size())
                return bad(which + ": type " + *name + " is not one of \"types\"");
            key.type = type->id;
        } else if (field == KldTrimmed) {
            auto value = number(kFields[field]);
            if (!value)
                return value.error();
            trimmed = *value;
            trimmedOffset = m_json.offset();
        } else if (field <= DeltaP) {
            auto value = number(kFields[field]);
            if (!value)
                return value.error();
            figures[field - Kld] = *value;
            figureOffsets[field - Kld] = m_json.offset();
        } else {
            auto value = integer(kFields[field], 0, field == Positions ? kBig : kMaxLayer);
            if (!value)
                return value.error();
            counts[field - Positions] = *value;
        }
        return Ok{};
    });
    if (!read)
        return read;
    if (!seen[Group] || !seen[Type])
        return bad(which + " has no \"" + (seen[Group] ? "type" : "group") + "\"");
    which += " (" + m_record.groups[key.group].tensor + " as " + typeName(key.type) + ")";
    // The scan's order: groups in turn, each with its types in the order of "types". So no probe
    // comes twice, and there are at most groups x types of them.
    const std::uint64_t order = std::uint64_t(key.group) * m_record.identity.types.size() + typeIndex + 1;
    if (order <= m_lastProbeKey)
        return bad(which + " comes twice, or after a later one (probes go by group, then in the order of \"types\")");
    m_lastProbeKey = order;
    m_record.probes.push_back(key);
    const std::size_t measured = static_cast<std::size_t>(std::count(seen.begin() + Kld, seen.begin() + KldTrimmed, true));
    if (measured == 0) {
        if (seen[KldTrimmed])
            return bad(which + " has figures but no \"kld\"");
        m_record.figures.emplace_back();
        return Ok{};
    }
    if (measured != KldTrimmed - Kld)
        for (std::size_t field = Kld; field < KldTrimmed; ++field)
            if (!seen[field])
                return bad(which + " has figures but no \"" + kFields[field] + "\"");
    // A mean KL divergence and its standard error are >= 0; the top-1 agreement is a fraction;
    // the change of a probability lies in [-1, 1]. Anything else (NaN from a broken run, an
    // edited file) would steer the planner, so it is refused here, naming the probe.
    const struct {
        double low, high;
        const char* what;
    } ranges[4] = {{0.0, INFINITY, "a mean KL divergence (a finite number, at least 0)"},
                   {0.0, INFINITY, "a standard error (a finite number, at least 0)"},
                   {0.0, 1.0, "a fraction from 0 to 1"},
                   {-1.0, 1.0, "a change of probability, from -1 to 1"}};
    for (std::size_t f = 0; f < 4; ++f)
        if (!(std::isfinite(figures[f]) && figures[f] >= ranges[f].low && figures[f] <= ranges[f].high))
            return badAt(figureOffsets[f], which + ": \"" + kFields[Kld + f] + "\" is " + JsonWriter::numberText(figures[f]) + ", not " + ranges[f].what);
    if (seen[KldTrimmed] && !(std::isfinite(trimmed) && trimmed >= 0.0))
        return badAt(trimmedOffset, which + ": \"kld_trimmed\" is " + JsonWriter::numberText(trimmed) + ", not a trimmed mean KL divergence (a finite number, at least 0)");
    ProbeFigures parsed{figures[0], figures[1], figures[2], figures[3], counts[0], counts[1], std::nullopt};
    if (seen[KldTrimmed])
        parsed.trimmedKld = trimmed;
    m_record.figures.push_back(parsed);
    return Ok{};
}

Status ScanFileParser::finish() const
{
    for (const Key required : {Version, ModelPath, Fingerprint, ChunkSize, Tokens, Scored, Types, LayerStride, Groups, Probes})
        if (!m_seen[required])
            return bad(std::string("no \"") + kKeys[required] + "\"");
    const ScanIdentity& id = m_record.identity;
    if (id.tokens % id.chunkSize != 0)
        return bad("\"tokens\" (" + std::to_string(id.tokens) + ") is not a whole number of chunks of " + std::to_string(id.chunkSize));
    if (id.scoredPerChunk != id.chunkSize - 1 - id.chunkSize / 2)
        return bad("\"scored_per_chunk\" is not the second half of a chunk of " + std::to_string(id.chunkSize));
    if (m_probesTotal >= 0 && std::uint64_t(m_probesTotal) != m_record.probes.size())
        return bad("\"probes_total\" says " + std::to_string(m_probesTotal) + ", the file has " + std::to_string(m_record.probes.size()));
    if (m_probesMeasured >= 0 && std::uint64_t(m_probesMeasured) != m_record.measured())
        return bad("\"probes_measured\" says " + std::to_string(m_probesMeasured) + ", the file has " + std::to_string(m_record.measured()));
    // Each group is one tensor: two groups of one name would make its figures ambiguous.
    std::vector<const std::string*> names;
    names.reserve(m_record.groups.size());
    for (const ScanGroup& group : m_record.groups)
        names.push_back(&group.tensor);
    std::sort(names.begin(), names.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    for (std::size_t i = 1; i < names.size(); ++i)
        if (*names[i] == *names[i - 1])
            return bad("two groups of tensor " + *names[i]);
    return Ok{};
}

}  // namespace

ScanFileLimits ScanFileLimits::forModel(const Model& model)
{
    ScanFileLimits limits;
    limits.maxGroups = model.tensors().size();
    limits.groupsBound = "the model has tensors (" + std::to_string(limits.maxGroups) + ")";
    return limits;
}

Result<ScanRecord> parseScanRecord(std::string_view text, const std::string& where, const ScanFileLimits& limits)
{
    JsonReader json(text, where);
    return ScanFileParser(json, limits).parse();
}

Result<ScanRecord> readScanFile(const std::string& path, const ScanFileLimits& limits)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error{"cannot open " + path + ": " + std::strerror(errno), Error::kNoOffset, {}};
    std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* d) { ::close(*d); delete d; });
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
        return Error{path + " is not a regular file", Error::kNoOffset, {}};
    if (static_cast<std::uint64_t>(info.st_size) > kMaxScanFileBytes)
        return Error{path + " is larger than a scan file can be (" + std::to_string(kMaxScanFileBytes) + " bytes)", Error::kNoOffset, {}};
    std::uint64_t total = 0;
    JsonReader json(
        [fd, &path, &total](char* buffer, std::size_t capacity) -> Result<std::size_t> {
            for (;;) {
                const ssize_t n = ::read(fd, buffer, capacity);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n < 0)
                    return Error{"cannot read " + path + ": " + std::strerror(errno), Error::kNoOffset, {}};
                total += static_cast<std::uint64_t>(n);
                if (total > kMaxScanFileBytes)
                    return Error{path + " grew past " + std::to_string(kMaxScanFileBytes) + " bytes while read", Error::kNoOffset, {}};
                return static_cast<std::size_t>(n);
            }
        },
        path);
    return ScanFileParser(json, limits).parse();
}

}  // namespace gguf
