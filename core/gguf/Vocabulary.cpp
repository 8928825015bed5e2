#include "core/gguf/Vocabulary.h"

#include "core/gguf/MetadataFormat.h"
#include "core/base/Utf8.h"

#include <cstdio>
#include <limits>

namespace gguf {

namespace {
// Characters that take no room or change the text around them, so a token made of them would look
// empty or misleading in a table cell.
bool isInvisibleFormatCharacter(char32_t c)
{
    return (c >= 0x80 && c <= 0x9F) || c == 0xA0 || c == 0xAD || c == 0x34F || c == 0x61C || c == 0x180E
        || (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) || (c >= 0x2060 && c <= 0x206F)
        || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) || (c >= 0xE0000 && c <= 0xE007F);
}

bool isNumericFixedArray(const MetadataValue& value)
{
    if (!value.isArray())
        return false;
    switch (value.elementType()) {
    case ValueType::String: case ValueType::Array: case ValueType::Bool: return false;
    default: return isValidValueType(static_cast<std::uint32_t>(value.elementType()));
    }
}

std::optional<MetadataValue> numericArray(const Model& model, std::string_view key)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry || !isNumericFixedArray(entry->value))
        return std::nullopt;
    return entry->value;
}

struct SpecialTokenKey {
    const char* role;
    const char* key;
};
constexpr SpecialTokenKey kSpecialTokenKeys[] = {
    {"bos", "tokenizer.ggml.bos_token_id"},
    {"eos", "tokenizer.ggml.eos_token_id"},
    {"eot", "tokenizer.ggml.eot_token_id"},
    {"eom", "tokenizer.ggml.eom_token_id"},
    {"unk", "tokenizer.ggml.unknown_token_id"},
    {"pad", "tokenizer.ggml.padding_token_id"},
    {"sep", "tokenizer.ggml.seperator_token_id"},  // sic: the spelling llama.cpp writes and reads
    {"cls", "tokenizer.ggml.cls_token_id"},
    {"mask", "tokenizer.ggml.mask_token_id"},
};
}  // namespace

std::string tokenTypeName(std::int64_t type)
{
    switch (type) {
    case 0: return "undefined";
    case 1: return "normal";
    case 2: return "unknown";
    case 3: return "control";
    case 4: return "user-defined";
    case 5: return "unused";
    case 6: return "byte";
    default: return "type " + std::to_string(type);
    }
}

std::string tokenDisplayText(std::string_view text)
{
    // escapeForDisplay leaves valid UTF-8 behind, so a second pass can walk it by code point.
    const std::string escaped = escapeForDisplay(text);
    std::string out;
    out.reserve(escaped.size());
    forEachCodePoint(escaped, [&](char32_t codePoint, std::string_view bytes) {
        if (!isInvisibleFormatCharacter(codePoint)) {
            out += bytes;
            return;
        }
        char buffer[16];
        std::snprintf(buffer, sizeof buffer, "\\u{%x}", static_cast<unsigned>(codePoint));
        out += buffer;
    });
    return out;
}

bool Vocabulary::hasTokens(const Model& model)
{
    return model.findMetadata(kTokensKey) != nullptr;
}

Result<Vocabulary> Vocabulary::build(std::shared_ptr<const Model> model, const std::atomic<bool>* cancelled)
{
    const MetadataEntry* entry = model->findMetadata(kTokensKey);
    if (!entry)
        return Error{"the file has no " + std::string(kTokensKey), Error::kNoOffset, model->primary().path()};
    if (!entry->value.isArray() || entry->value.elementType() != ValueType::String)
        return Error{std::string(kTokensKey) + " is " + entry->value.typeName() + ", not an array of strings", entry->value.offset(),
                     model->primary().path()};
    const std::uint64_t length = entry->value.arrayLength();
    if (length > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
        return Error{std::string(kTokensKey) + " has " + std::to_string(length) + " tokens, more than a token id can name",
                     entry->value.offset(), model->primary().path()};

    Vocabulary vocabulary;
    vocabulary.m_tokens = entry->value;
    // The array was checked against the file size when the file was opened (each string takes at
    // least its length field), so this allocation is bounded by the file.
    vocabulary.m_offsets.reserve(static_cast<std::size_t>(length));
    MetadataValue token = length > 0 ? entry->value.element(0) : MetadataValue();
    for (std::uint64_t i = 0; i < length; ++i) {
        if ((i & 0xFFF) == 0 && cancelled && cancelled->load(std::memory_order_relaxed))
            return Error{"cancelled", Error::kNoOffset, model->primary().path()};
        vocabulary.m_offsets.push_back(token.offset());
        if (i + 1 < length)
            token = entry->value.elementAt(token.offset() + token.encodedSize());
    }
    vocabulary.m_scores = numericArray(*model, kScoresKey);
    vocabulary.m_types = numericArray(*model, kTokenTypesKey);
    vocabulary.m_model = std::move(model);
    return vocabulary;
}

std::string_view Vocabulary::text(std::size_t id) const
{
    return m_tokens.elementAt(m_offsets[id]).toStringView();
}

std::optional<double> Vocabulary::score(std::size_t id) const
{
    if (!m_scores || id >= m_scores->arrayLength())
        return std::nullopt;
    return m_scores->element(id).toDouble();
}

std::optional<std::int64_t> Vocabulary::tokenType(std::size_t id) const
{
    if (!m_types || id >= m_types->arrayLength())
        return std::nullopt;
    return m_types->element(id).toInt();
}

std::vector<std::uint32_t> Vocabulary::matchingIds(const std::function<bool(std::string_view)>& matches,
                                                   const std::atomic<bool>* cancelled) const
{
    std::vector<std::uint32_t> ids;
    std::string display;
    for (std::size_t id = 0; id < m_offsets.size(); ++id) {
        if ((id & 0xFFF) == 0 && cancelled && cancelled->load(std::memory_order_relaxed))
            break;
        display = tokenDisplayText(text(id));
        if (matches(display))
            ids.push_back(static_cast<std::uint32_t>(id));
    }
    return ids;
}

std::vector<std::uint32_t> Vocabulary::matchingTextIds(const std::function<bool(std::string_view)>& matches,
                                                       const std::atomic<bool>* cancelled) const
{
    std::vector<std::uint32_t> ids;
    for (std::size_t id = 0; id < m_offsets.size(); ++id) {
        if ((id & 0xFFF) == 0 && cancelled && cancelled->load(std::memory_order_relaxed))
            break;
        if (matches(text(id)))
            ids.push_back(static_cast<std::uint32_t>(id));
    }
    return ids;
}

std::vector<SpecialToken> Vocabulary::specialTokens(const Model& model)
{
    std::vector<SpecialToken> tokens;
    for (const SpecialTokenKey& special : kSpecialTokenKeys) {
        const MetadataEntry* entry = model.findMetadata(special.key);
        if (!entry)
            continue;
        if (const auto id = entry->value.toInt())
            tokens.push_back(SpecialToken{special.role, special.key, *id});
    }
    return tokens;
}

}  // namespace gguf
