#include "core/sensitivity/ScanFile.h"

#include "core/base/JsonWriter.h"
#include "core/tokenize/Unicode.h"
#include "core/types/GgmlType.h"
#include "core/write/ByteSink.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace gguf {

namespace {

// ---- a small JSON reader for what scanRecordJson writes ----------------------------------

struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool flag = false;
    double number = 0.0;
    std::string text;
    std::vector<Json> items;
    // An object's keys and values side by side: a std::pair of an incomplete Json would not
    // compile with clang's checks of libstdc++.
    std::vector<std::string> memberKeys;
    std::vector<Json> memberValues;

    const Json* member(std::string_view name) const
    {
        for (std::size_t i = 0; i < memberKeys.size(); ++i)
            if (memberKeys[i] == name)
                return &memberValues[i];
        return nullptr;
    }
};

constexpr int kMaxDepth = 16;

class JsonReader {
public:
    JsonReader(std::string_view text, const std::string& where) : m_text(text), m_where(where) {}

    Result<Json> document()
    {
        Json value;
        if (Status s = parse(value, 0); !s)
            return s.error();
        skipSpace();
        if (m_at != m_text.size())
            return fail("text after the end of the document");
        return value;
    }

private:
    Error fail(const std::string& what) const
    {
        return Error{m_where + ": not a scan file: " + what + " at byte " + std::to_string(m_at), Error::kNoOffset, {}};
    }
    void skipSpace()
    {
        while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\n' || m_text[m_at] == '\r' || m_text[m_at] == '\t'))
            ++m_at;
    }
    bool take(char c)
    {
        skipSpace();
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }
    bool word(std::string_view w)
    {
        if (m_text.substr(m_at, w.size()) != w)
            return false;
        m_at += w.size();
        return true;
    }
    Status string(std::string& out)
    {
        if (!take('"'))
            return fail("a string expected");
        while (m_at < m_text.size() && m_text[m_at] != '"') {
            const char c = m_text[m_at++];
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_at >= m_text.size())
                break;
            const char e = m_text[m_at++];
            switch (e) {
            case '"': case '\\': case '/': out += e; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                if (m_at + 4 > m_text.size())
                    return fail("a short \\u escape");
                unsigned code = 0;
                for (int i = 0; i < 4; ++i) {
                    const char h = m_text[m_at++];
                    code <<= 4;
                    if (h >= '0' && h <= '9') code |= unsigned(h - '0');
                    else if (h >= 'a' && h <= 'f') code |= unsigned(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') code |= unsigned(h - 'A' + 10);
                    else return fail("a bad \\u escape");
                }
                if (code >= 0xDC80 && code <= 0xDCFF)  // JsonWriter's escape of a byte that is not UTF-8
                    out += static_cast<char>(code - 0xDC00);
                else
                    unicode::appendUtf8(out, code);
                break;
            }
            default:
                return fail("a bad escape");
            }
        }
        if (m_at >= m_text.size())
            return fail("an unterminated string");
        ++m_at;
        return Ok{};
    }
    Status parse(Json& value, int depth)
    {
        if (depth > kMaxDepth)
            return fail("nesting deeper than " + std::to_string(kMaxDepth));
        skipSpace();
        if (m_at >= m_text.size())
            return fail("a value expected");
        const char c = m_text[m_at];
        if (c == '{') {
            ++m_at;
            value.kind = Json::Kind::Object;
            if (take('}'))
                return Ok{};
            do {
                std::string key;
                if (Status s = string(key); !s)
                    return s;
                if (!take(':'))
                    return fail("':' expected");
                Json member;
                if (Status s = parse(member, depth + 1); !s)
                    return s;
                value.memberKeys.push_back(std::move(key));
                value.memberValues.push_back(std::move(member));
            } while (take(','));
            return take('}') ? Status(Ok{}) : Status(fail("'}' expected"));
        }
        if (c == '[') {
            ++m_at;
            value.kind = Json::Kind::Array;
            if (take(']'))
                return Ok{};
            do {
                Json item;
                if (Status s = parse(item, depth + 1); !s)
                    return s;
                value.items.push_back(std::move(item));
            } while (take(','));
            return take(']') ? Status(Ok{}) : Status(fail("']' expected"));
        }
        if (c == '"') {
            value.kind = Json::Kind::String;
            return string(value.text);
        }
        if (word("true") || word("false")) {
            value.kind = Json::Kind::Bool;
            value.flag = m_text[m_at - 1] == 'e' && m_text[m_at - 2] == 'u';
            return Ok{};
        }
        if (word("null"))
            return Ok{};
        std::size_t end = m_at;
        while (end < m_text.size() && std::strchr("+-0123456789.eE", m_text[end]) && end - m_at < 40)
            ++end;
        const std::string number(m_text.substr(m_at, end - m_at));
        char* stop = nullptr;
        errno = 0;
        value.number = std::strtod(number.c_str(), &stop);
        if (number.empty() || *stop != '\0' || errno == ERANGE)
            return fail("a value expected");
        value.kind = Json::Kind::Number;
        m_at = end;
        return Ok{};
    }

    std::string_view m_text;
    const std::string& m_where;
    std::size_t m_at = 0;
};

// ---- reading the record out of the document ---------------------------------------------

struct Fields {
    const std::string& where;

    Error bad(const std::string& what) const { return Error{where + ": not a scan file: " + what, Error::kNoOffset, {}}; }

    Result<double> number(const Json& object, const char* name) const
    {
        const Json* v = object.member(name);
        if (v && v->kind == Json::Kind::Number)
            return v->number;
        if (v && v->kind == Json::Kind::String && (v->text == "nan" || v->text == "inf" || v->text == "-inf"))
            return v->text == "nan" ? NAN : v->text == "inf" ? INFINITY : -INFINITY;
        return bad(std::string("no number \"") + name + "\"");
    }
    Result<std::int64_t> integer(const Json& object, const char* name, std::int64_t low, std::int64_t high) const
    {
        auto v = number(object, name);
        if (!v)
            return v.error();
        if (!(*v >= double(low) && *v <= double(high)) || std::floor(*v) != *v)
            return bad(std::string("\"") + name + "\" must be a whole number from " + std::to_string(low) + " to " + std::to_string(high));
        return static_cast<std::int64_t>(*v);
    }
    Result<std::string> text(const Json& object, const char* name) const
    {
        const Json* v = object.member(name);
        if (!v || v->kind != Json::Kind::String)
            return bad(std::string("no string \"") + name + "\"");
        return v->text;
    }
    Result<const Json*> array(const Json& object, const char* name) const
    {
        const Json* v = object.member(name);
        if (!v || v->kind != Json::Kind::Array)
            return bad(std::string("no array \"") + name + "\"");
        return v;
    }
};

Result<std::uint32_t> typeNamed(const Fields& f, const std::string& name)
{
    const TypeTraits* type = findTypeByName(name);
    if (!type)
        return f.bad("unknown type '" + name + "'");
    return type->id;
}

void writeFigures(JsonWriter& json, const ProbeFigures& p)
{
    json.key("kld");
    json.value(p.meanKld);
    json.key("kld_error");
    json.value(p.kldStandardError);
    json.key("same_top");
    json.value(p.sameTopFraction);
    json.key("delta_p");
    json.value(p.meanDeltaTopProbability);
    json.key("positions");
    json.value(p.positions);
    json.key("layers_rerun");
    json.value(p.layersRerun);
}

template <typename R>
Status statusOf(const R& result)
{
    return result ? Status(Ok{}) : Status(result.error());
}

bool sameFigures(const ProbeFigures& a, const ProbeFigures& b)
{
    return std::memcmp(&a.meanKld, &b.meanKld, sizeof(double)) == 0 && std::memcmp(&a.kldStandardError, &b.kldStandardError, sizeof(double)) == 0
        && std::memcmp(&a.sameTopFraction, &b.sameTopFraction, sizeof(double)) == 0
        && std::memcmp(&a.meanDeltaTopProbability, &b.meanDeltaTopProbability, sizeof(double)) == 0 && a.positions == b.positions
        && a.layersRerun == b.layersRerun;
}

}  // namespace

std::string scanRecordJson(const ScanRecord& record)
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
    return out;
}

Result<ScanRecord> parseScanRecord(std::string_view text, const std::string& where)
{
    auto document = JsonReader(text, where).document();
    if (!document)
        return document.error();
    const Json& d = *document;
    const Fields f{where};
    if (d.kind != Json::Kind::Object)
        return f.bad("the document is not an object");
    auto format = f.text(d, "format");
    if (!format || *format != kScanFormat)
        return f.bad(std::string("\"format\" is not \"") + kScanFormat + "\"");
    auto version = f.integer(d, "version", 1, 1);
    if (!version)
        return f.bad("only version 1 is known");
    ScanRecord record;
    ScanIdentity& id = record.identity;
    constexpr std::int64_t kBig = std::int64_t{1} << 52;
    auto model = f.text(d, "model");
    auto fingerprint = f.text(d, "fingerprint");
    auto chunk = f.integer(d, "chunk_size", 4, kMaxForwardTokens);
    auto tokens = f.integer(d, "tokens", 1, kBig);
    auto scored = f.integer(d, "scored_per_chunk", 0, kMaxForwardTokens);
    auto stride = f.integer(d, "layer_stride", 1, kBig);
    for (const Status& s : {statusOf(model), statusOf(fingerprint), statusOf(chunk), statusOf(tokens), statusOf(scored), statusOf(stride)})
        if (!s)
            return s.error();
    id.model = *model;
    id.fingerprint = *fingerprint;
    id.chunkSize = *chunk;
    id.tokens = *tokens;
    id.scoredPerChunk = *scored;
    id.layerStride = *stride;
    if (const Json* im = d.member("imatrix"); im && im->kind == Json::Kind::String)
        id.importance = im->text;
    if (const Json* activations = d.member("activations"); activations && activations->kind == Json::Kind::String)
        id.activations = activations->text;
    else if (!activations)
        id.activations = activationArithmeticName(ActivationArithmetic::Float32);
    else
        return f.bad("activations that is not a string");
    if (const Json* attention = d.member("attention"); attention && attention->kind == Json::Kind::String)
        id.attention = attention->text;
    else if (!attention)
        id.attention = id.activations == activationArithmeticName(ActivationArithmetic::LlamaCpp)
                         ? kvCacheSettingsName({0, 0, FlashAttention::Off})
                         : std::string("K f32, V f32, plain f32 attention");
    else
        return f.bad("attention that is not a string");
    auto types = f.array(d, "types");
    if (!types)
        return types.error();
    for (const Json& t : (*types)->items) {
        if (t.kind != Json::Kind::String)
            return f.bad("a type that is not a string");
        auto type = typeNamed(f, t.text);
        if (!type)
            return type.error();
        id.types.push_back(*type);
    }
    if (auto layers = f.array(d, "layers"); layers) {
        for (const Json& l : (*layers)->items) {
            if (l.kind != Json::Kind::Number || l.number < 0 || l.number > 1e9 || std::floor(l.number) != l.number)
                return f.bad("a layer that is not a whole number");
            id.layers.push_back(static_cast<std::int64_t>(l.number));
        }
    }
    if (const Json* shard = d.member("shard"); shard && shard->kind == Json::Kind::String)
        record.shard = shard->text;

    auto groups = f.array(d, "groups");
    if (!groups)
        return groups.error();
    for (const Json& g : (*groups)->items) {
        ScanGroup group;
        auto tensor = f.text(g, "tensor");
        auto role = f.text(g, "role");
        auto layer = f.integer(g, "layer", -1, 1 << 20);
        auto first = f.integer(g, "first_layer", 0, 1 << 20);
        auto elements = f.integer(g, "elements", 0, kBig);
        auto row = f.integer(g, "row_length", 0, kBig);
        for (const Status& s : {statusOf(tensor), statusOf(role), statusOf(layer), statusOf(first), statusOf(elements), statusOf(row)})
            if (!s)
                return s.error();
        group.tensor = *tensor;
        group.role = *role;
        group.layer = *layer;
        group.firstLayer = *first;
        group.elements = static_cast<std::uint64_t>(*elements);
        group.rowLength = *row;
        const Json* importance = g.member("importance");
        group.hasImportance = importance && importance->kind == Json::Kind::Bool && importance->flag;
        record.groups.push_back(std::move(group));
    }
    auto probes = f.array(d, "probes");
    if (!probes)
        return probes.error();
    for (const Json& p : (*probes)->items) {
        auto group = f.integer(p, "group", 0, static_cast<std::int64_t>(record.groups.size()) - 1);
        if (!group)
            return f.bad("a probe names no group of the file");
        auto typeText = f.text(p, "type");
        if (!typeText)
            return typeText.error();
        auto type = typeNamed(f, *typeText);
        if (!type)
            return type.error();
        record.probes.push_back({static_cast<std::size_t>(*group), *type});
        if (!p.member("kld")) {
            record.figures.emplace_back();
            continue;
        }
        ProbeFigures figures;
        auto kld = f.number(p, "kld");
        auto error = f.number(p, "kld_error");
        auto top = f.number(p, "same_top");
        auto delta = f.number(p, "delta_p");
        auto positions = f.integer(p, "positions", 0, kBig);
        auto rerun = f.integer(p, "layers_rerun", 0, 1 << 20);
        for (const Status& s : {statusOf(kld), statusOf(error), statusOf(top), statusOf(delta), statusOf(positions), statusOf(rerun)})
            if (!s)
                return s.error();
        figures.meanKld = *kld;
        figures.kldStandardError = *error;
        figures.sameTopFraction = *top;
        figures.meanDeltaTopProbability = *delta;
        figures.positions = *positions;
        figures.layersRerun = *rerun;
        record.figures.push_back(figures);
    }
    return record;
}

Status writeScanFile(const std::string& path, const ScanRecord& record)
{
    auto sink = openOutputFile(path);
    if (!sink)
        return sink.error();
    const std::string text = scanRecordJson(record);
    if (Status s = (*sink)->write(text.data(), text.size()); !s)
        return s;
    return (*sink)->commit();
}

Result<ScanRecord> readScanFile(const std::string& path)
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
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return Error{"cannot read " + path + ": " + std::strerror(errno), Error::kNoOffset, {}};
        if (n == 0)
            break;
        text.append(buffer, static_cast<std::size_t>(n));
        if (text.size() > kMaxScanFileBytes)
            return Error{path + " grew past " + std::to_string(kMaxScanFileBytes) + " bytes while read", Error::kNoOffset, {}};
    }
    return parseScanRecord(text, path);
}

Result<ScanRecord> mergeScanRecords(const std::vector<ScanRecord>& parts)
{
    if (parts.empty())
        return Error{"nothing to merge", Error::kNoOffset, {}};
    ScanRecord merged = parts.front();
    merged.shard.clear();
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const ScanRecord& part = parts[k];
        if (part.identity.fingerprint != merged.identity.fingerprint || part.probes.size() != merged.probes.size())
            return Error{"part " + std::to_string(k + 1) + " is of another scan (its fingerprint or probes differ from the first's)",
                         Error::kNoOffset, {}};
        for (std::size_t i = 0; i < part.probes.size(); ++i) {
            if (!part.figures[i])
                continue;
            if (merged.figures[i] && !sameFigures(*merged.figures[i], *part.figures[i]))
                return Error{"probe " + std::to_string(i) + " (" + merged.groups[merged.probes[i].group].tensor + " as "
                                 + typeName(merged.probes[i].type) + ") has other figures in part " + std::to_string(k + 1),
                             Error::kNoOffset, {}};
            merged.figures[i] = part.figures[i];
        }
    }
    return merged;
}

const ProbeFigures* findFigures(const ScanRecord& record, std::string_view tensor, std::uint32_t type)
{
    for (std::size_t i = 0; i < record.probes.size(); ++i)
        if (record.probes[i].type == type && record.groups[record.probes[i].group].tensor == tensor && record.figures[i])
            return &*record.figures[i];
    return nullptr;
}

}  // namespace gguf
