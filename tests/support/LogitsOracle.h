#pragma once
// llama.cpp's reference outputs in fixtures/llama.cpp/logits/ (fixtures README section 5):
// `<name>.logits.json` (tokens, sizes), `<name>.logits.f32` [n_tokens, n_vocab] and
// `<name>.hidden.f32` [n_layer, n_tokens, n_embd], float32 little-endian.

#include "Fixtures.h"
#include "core/types/KvCacheSettings.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace testsupport {

// The KV cache and attention of every llama.cpp oracle here and in fixtures/llama.cpp/arch
// (type_k = type_v = GGML_TYPE_F32, flash attention disabled): a pass compared with them uses
// it explicitly, since the pass's default is llama.cpp's own (f16, flash attention on).
inline constexpr gguf::KvCacheSettings kOracleKvCache{0, 0, gguf::FlashAttention::Off};

struct LogitsOracle {
    bool loaded = false;
    std::vector<std::int32_t> tokens;
    std::int64_t vocabulary = 0;
    std::int64_t layers = 0;
    std::int64_t embedding = 0;
    std::vector<float> logits;
    std::vector<float> hidden;
};

inline QString oraclePath(const QString& name, const char* suffix)
{
    return fixturePath(QStringLiteral("llama.cpp/logits/") + name + QString::fromLatin1(suffix));
}

inline std::vector<float> readFloats(const QString& path)
{
    const QByteArray bytes = readWholeFile(path);
    std::vector<float> values(static_cast<std::size_t>(bytes.size()) / sizeof(float));
    std::memcpy(values.data(), bytes.constData(), values.size() * sizeof(float));  // the test machines are little-endian
    return values;
}

// `name` like "tiny-llama-F32.P1".
inline LogitsOracle loadLogitsOracle(const QString& name)
{
    LogitsOracle oracle;
    const QJsonObject json = QJsonDocument::fromJson(readWholeFile(oraclePath(name, ".logits.json"))).object();
    if (json.isEmpty())
        return oracle;
    for (const auto& id : json.value(QStringLiteral("tokens")).toArray())
        oracle.tokens.push_back(static_cast<std::int32_t>(id.toInteger()));
    oracle.vocabulary = json.value(QStringLiteral("n_vocab")).toInteger();
    oracle.layers = json.value(QStringLiteral("n_layer")).toInteger();
    oracle.embedding = json.value(QStringLiteral("n_embd")).toInteger();
    oracle.logits = readFloats(oraclePath(name, ".logits.f32"));
    oracle.hidden = readFloats(oraclePath(name, ".hidden.f32"));
    const auto tokens = static_cast<std::int64_t>(oracle.tokens.size());
    oracle.loaded = !oracle.tokens.empty() && static_cast<std::int64_t>(oracle.logits.size()) == tokens * oracle.vocabulary
                 && static_cast<std::int64_t>(oracle.hidden.size()) == oracle.layers * tokens * oracle.embedding;
    return oracle;
}

// max |ours - ref| / max |ref| over one row (a position's logits or hidden state).
inline double relativeRowError(std::span<const float> ours, std::span<const float> reference)
{
    double worst = 0.0;
    double scale = 0.0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(ours[i]) - static_cast<double>(reference[i])));
        scale = std::max(scale, std::abs(static_cast<double>(reference[i])));
    }
    return scale > 0.0 ? worst / scale : worst;
}

// Whether values [from, end) of `ours` are those of `reference`: the same bits, or (`bits`
// false, for sums whose order depends on the product's shape) within 1e-5 of the largest
// reference value there.
inline bool sameValuesFrom(const std::vector<float>& ours, const std::vector<float>& reference, std::size_t from, bool bits)
{
    if (ours.size() != reference.size() || from > reference.size())
        return false;
    if (bits)
        return std::memcmp(ours.data() + from, reference.data() + from, (reference.size() - from) * sizeof(float)) == 0;
    float worst = 0.0f, largest = 0.0f;
    for (std::size_t i = from; i < reference.size(); ++i) {
        worst = std::max(worst, std::abs(ours[i] - reference[i]));
        largest = std::max(largest, std::abs(reference[i]));
    }
    return largest > 0.0f && worst <= 1e-5f * largest;
}

// The worst relativeRowError over the rows of width `width`.
inline double worstRowError(std::span<const float> ours, std::span<const float> reference, std::size_t width)
{
    double worst = 0.0;
    for (std::size_t first = 0; first + width <= reference.size(); first += width)
        worst = std::max(worst, relativeRowError(ours.subspan(first, width), reference.subspan(first, width)));
    return worst;
}

}  // namespace testsupport
