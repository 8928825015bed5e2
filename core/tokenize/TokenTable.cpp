#include "core/tokenize/TokenTable.h"

#include "core/gguf/Vocabulary.h"

#include <functional>

namespace gguf {

namespace {
std::uint32_t attributesOfType(std::int64_t type)
{
    switch (type) {
    case 1: return AttrNormal;
    case 2: return AttrUnknown;
    case 3: return AttrControl;
    case 4: return AttrUserDefined;
    case 5: return AttrUnused;
    case 6: return AttrByte;
    default: return 0;  // undefined
    }
}
}  // namespace

std::size_t TokenTable::PairHash::operator()(const std::pair<std::string_view, std::string_view>& pair) const noexcept
{
    const std::size_t a = std::hash<std::string_view>()(pair.first);
    const std::size_t b = std::hash<std::string_view>()(pair.second);
    return a ^ (b + 0x9E3779B97F4A7C15ull + (a << 6) + (a >> 2));
}

Result<TokenTable> TokenTable::read(const Model& model, bool withMerges)
{
    // Vocabulary wants shared ownership; it is dropped before this returns.
    auto vocabulary = Vocabulary::build(std::shared_ptr<const Model>(&model, [](const Model*) {}));
    if (!vocabulary)
        return vocabulary.error();
    const Vocabulary& tokens = vocabulary.value();
    const std::string& path = model.primary().path();
    const std::size_t count = tokens.size();
    if (tokens.hasScores() && !tokens.score(count ? count - 1 : 0) && count > 0)
        return Error{"tokenizer.ggml.scores has fewer entries than the " + std::to_string(count) + " tokens", Error::kNoOffset, path};
    if (tokens.hasTokenTypes() && !tokens.tokenType(count ? count - 1 : 0) && count > 0)
        return Error{"tokenizer.ggml.token_type has fewer entries than the " + std::to_string(count) + " tokens", Error::kNoOffset, path};

    TokenTable table;
    table.m_offsets.reserve(count + 1);
    table.m_scores.reserve(count);
    table.m_attributes.reserve(count);
    for (std::size_t id = 0; id < count; ++id) {
        table.m_offsets.push_back(table.m_textArena->size());
        const std::string_view text = tokens.text(id);
        // llama.cpp renames empty tokens so that every token has a text to look up.
        *table.m_textArena += text.empty() ? "[EMPTY_" + std::to_string(id) + "]" : std::string(text);
        table.m_scores.push_back(tokens.hasScores() ? static_cast<float>(*tokens.score(id)) : 0.0f);
        table.m_attributes.push_back(tokens.hasTokenTypes() ? attributesOfType(*tokens.tokenType(id)) : AttrNormal);
    }
    table.m_offsets.push_back(table.m_textArena->size());
    table.m_ids.reserve(count);
    for (std::size_t id = 0; id < count; ++id) {
        const std::string_view text = table.text(static_cast<std::int32_t>(id));
        table.m_maxTokenLength = std::max(table.m_maxTokenLength, text.size());
        const auto [it, inserted] = table.m_ids.emplace(text, static_cast<std::int32_t>(id));
        if (!inserted)
            return Error{"duplicate token in the vocabulary: ids " + std::to_string(it->second) + " and " + std::to_string(id) + " are both '" +
                             tokenDisplayText(text) + "'",
                         Error::kNoOffset, path};
    }

    if (!withMerges)
        return table;
    const MetadataEntry* merges = model.findMetadata("tokenizer.ggml.merges");
    if (!merges)
        return Error{"the file has no tokenizer.ggml.merges, which a byte-level BPE tokenizer needs", Error::kNoOffset, path};
    if (!merges->value.isArray() || merges->value.elementType() != ValueType::String)
        return Error{"tokenizer.ggml.merges is " + merges->value.typeName() + ", not an array of strings", merges->value.offset(), path};
    const std::uint64_t mergeCount = merges->value.arrayLength();
    std::vector<std::size_t> mergeOffsets;
    mergeOffsets.reserve(static_cast<std::size_t>(mergeCount) + 1);  // bounded by the file, as the token array
    MetadataValue merge = mergeCount > 0 ? merges->value.element(0) : MetadataValue();
    for (std::uint64_t i = 0; i < mergeCount; ++i) {
        mergeOffsets.push_back(table.m_mergeArena->size());
        *table.m_mergeArena += merge.toStringView();
        if (i + 1 < mergeCount)
            merge = merges->value.elementAt(merge.offset() + merge.encodedSize());
    }
    mergeOffsets.push_back(table.m_mergeArena->size());
    table.m_ranks.reserve(static_cast<std::size_t>(mergeCount));
    const std::string_view arena = *table.m_mergeArena;
    for (std::size_t i = 0; i + 1 < mergeOffsets.size(); ++i) {
        const std::string_view line = arena.substr(mergeOffsets[i], mergeOffsets[i + 1] - mergeOffsets[i]);
        // As llama.cpp: split at the first space after the first byte; a line without one is
        // the pair ("", "") (harmless: no symbol is empty).
        const std::size_t space = line.size() > 1 ? line.find(' ', 1) : std::string_view::npos;
        std::pair<std::string_view, std::string_view> key;
        if (space != std::string_view::npos)
            key = {line.substr(0, space), line.substr(space + 1)};
        table.m_ranks.emplace(key, static_cast<int>(i));  // the first of duplicates keeps its rank
    }
    return table;
}

std::string_view TokenTable::text(std::int32_t id) const
{
    const auto i = static_cast<std::size_t>(id);
    return std::string_view(*m_textArena).substr(m_offsets[i], m_offsets[i + 1] - m_offsets[i]);
}

std::int32_t TokenTable::find(std::string_view text) const
{
    const auto it = m_ids.find(text);
    return it == m_ids.end() ? kNone : it->second;
}

int TokenTable::mergeRank(std::string_view left, std::string_view right) const
{
    const auto it = m_ranks.find({left, right});
    return it == m_ranks.end() ? -1 : it->second;
}

}  // namespace gguf
