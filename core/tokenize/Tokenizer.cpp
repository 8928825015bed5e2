#include "core/tokenize/Tokenizer.h"

#include "core/gguf/ByteLevelText.h"
#include "core/gguf/Vocabulary.h"
#include "core/tokenize/BpeEncoder.h"
#include "core/tokenize/BpeWordEncoder.h"
#include "core/tokenize/PreTokenizer.h"
#include "core/tokenize/SpecialTokenAttributes.h"
#include "core/tokenize/SpecialTokenSplit.h"
#include "core/tokenize/SpmEncoder.h"
#include "core/tokenize/TokenTable.h"
#include "core/tokenize/Unicode.h"
#include "core/tokenize/WordPieceEncoder.h"

#include <cstdlib>
#include <optional>
#include <unordered_map>

namespace gguf {

struct Tokenizer::State {
    Family family = Family::SentencePiece;
    std::string preName;
    std::string preFamily;
    TokenTable table;
    std::vector<std::int32_t> specialOrder;
    std::optional<PreTokenizer> preTokenizer;
    PreTokenizerRecipe recipe;
    WordPieceOptions wordPiece;
    std::int32_t bos = TokenTable::kNone;
    std::int32_t eos = TokenTable::kNone;
    std::int32_t unknown = TokenTable::kNone;
    std::int32_t separator = TokenTable::kNone;
    bool addBos = false;
    bool addEos = false;
    bool addSpacePrefix = false;
    // SentencePiece: no token has "▁" right after another character than "▁", so no merge can
    // cross the start of a "▁" that follows something else, and the text can be encoded in
    // pieces cut there (same ids, and a priority queue per word instead of one for the text).
    bool spmCutsAtSpaces = false;
    SpaceMarkJoins spaceMarkJoins;  // gemma4
};

namespace {
std::optional<bool> metadataBool(const Model& model, std::string_view key)
{
    const MetadataEntry* entry = model.findMetadata(key);
    if (!entry || entry->value.type() != ValueType::Bool)
        return std::nullopt;
    return entry->value.toBool();
}

// A special token id: the family default, replaced by the file's key when that names a token
// (llama.cpp ignores, with a warning, an id past the vocabulary).
std::int32_t specialId(const Model& model, std::string_view key, std::int32_t fallback, std::size_t vocabularySize)
{
    std::int32_t id = fallback >= 0 && static_cast<std::size_t>(fallback) < vocabularySize ? fallback : TokenTable::kNone;
    if (const auto value = model.metadataUInt(key); value && *value < vocabularySize)
        id = static_cast<std::int32_t>(*value);
    return id;
}

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";

bool noTokenHasSpaceMarkAfterOtherText(const TokenTable& table)
{
    for (std::size_t id = 0; id < table.size(); ++id) {
        const std::string_view text = table.text(static_cast<std::int32_t>(id));
        for (std::size_t at = text.find(kSpaceMark, 1); at != std::string_view::npos; at = text.find(kSpaceMark, at + 1))
            if (at < kSpaceMark.size() || text.substr(at - kSpaceMark.size(), kSpaceMark.size()) != kSpaceMark)
                return false;
    }
    return true;
}

// Encodes `text` (spaces already "▁") in pieces cut where a "▁" symbol follows a symbol that is
// not one; symbols are found as the encoder finds them (by lead byte), so invalid UTF-8 that
// swallows a "▁" is never cut.
void encodeSentencePieceInWords(const TokenTable& table, std::string_view text, std::int32_t unknownId, std::vector<std::int32_t>& out)
{
    std::size_t wordStart = 0;
    bool previousIsMark = false;
    for (std::size_t offset = 0; offset < text.size();) {
        const std::size_t length = std::min(unicode::sequenceLength(static_cast<unsigned char>(text[offset])), text.size() - offset);
        const bool isMark = text.substr(offset, length) == kSpaceMark;
        if (isMark && !previousIsMark && offset > wordStart) {
            encodeSentencePiece(table, text.substr(wordStart, offset - wordStart), unknownId, out);
            wordStart = offset;
        }
        previousIsMark = isMark;
        offset += length;
    }
    encodeSentencePiece(table, text.substr(wordStart), unknownId, out);
}

void replaceSpaces(std::string& text)
{
    std::string out;
    out.reserve(text.size() + text.size() / 2);
    for (const char c : text) {
        if (c == ' ')
            out += "\xE2\x96\x81";
        else
            out += c;
    }
    text.swap(out);
}
}  // namespace

Result<Tokenizer> Tokenizer::fromModel(const Model& model)
{
    const std::string& path = model.primary().path();
    const MetadataEntry* modelEntry = model.findMetadata("tokenizer.ggml.model");
    if (!modelEntry)
        return Error{"the file has no tokenizer (tokenizer.ggml.model is not set)", Error::kNoOffset, path};
    const std::string kind = model.metadataString("tokenizer.ggml.model");

    auto state = std::make_shared<State>();
    std::int32_t bosDefault = TokenTable::kNone, eosDefault = TokenTable::kNone, unknownDefault = TokenTable::kNone,
                 separatorDefault = TokenTable::kNone;
    if (kind == "llama") {
        state->family = Family::SentencePiece;
        bosDefault = 1, eosDefault = 2, unknownDefault = 0;
        state->addBos = true;
        state->addSpacePrefix = true;
    } else if (kind == "gpt2" || kind == "gemma4") {
        state->family = Family::BytePairEncoding;
        if (kind == "gpt2")
            bosDefault = 11, eosDefault = 11;  // gemma4 has no defaults: the file names them
        // llama.cpp's gemma4 tokenizer model ignores tokenizer.ggml.pre.
        state->preName = kind == "gemma4" ? std::string("gemma4") : model.metadataString("tokenizer.ggml.pre");
        const auto recipe = preTokenizerRecipe(state->preName);
        if (!recipe)
            return Error{"unsupported pre-tokenizer '" + tokenDisplayText(state->preName) + "' (tokenizer.ggml.pre)", Error::kNoOffset, path};
        state->recipe = *recipe;
        state->preFamily = recipe->family;
        state->addBos = recipe->addBosByDefault;
        if (recipe->noBosToken)
            bosDefault = TokenTable::kNone;
        auto pre = PreTokenizer::create(recipe->expressions, !recipe->spaceMarks);
        if (!pre)
            return Error{pre.error().message, Error::kNoOffset, path};
        state->preTokenizer = std::move(pre.value());
    } else if (kind == "bert") {
        state->family = Family::WordPiece;
        bosDefault = 101, unknownDefault = 100, separatorDefault = 102;
        state->addBos = true;
        // BertNormalizer options; stripping accents follows lowercasing unless set on its own.
        state->wordPiece.lowercase = metadataBool(model, "tokenizer.ggml.normalizer.lowercase").value_or(true);
        state->wordPiece.stripAccents =
            metadataBool(model, "tokenizer.ggml.normalizer.strip_accents").value_or(state->wordPiece.lowercase);
    } else {
        return Error{"unsupported tokenizer model '" + tokenDisplayText(kind) + "' (tokenizer.ggml.model; supported: llama, gpt2, gemma4, bert)",
                     Error::kNoOffset, path};
    }

    auto table = TokenTable::read(model, state->family == Family::BytePairEncoding);
    if (!table)
        return table.error();
    state->table = std::move(table.value());
    const std::size_t size = state->table.size();
    state->bos = specialId(model, "tokenizer.ggml.bos_token_id", bosDefault, size);
    state->eos = specialId(model, "tokenizer.ggml.eos_token_id", eosDefault, size);
    state->unknown = specialId(model, "tokenizer.ggml.unknown_token_id", unknownDefault, size);
    state->separator = specialId(model, "tokenizer.ggml.seperator_token_id", separatorDefault, size);
    if (const auto value = metadataBool(model, "tokenizer.ggml.add_bos_token"))
        state->addBos = *value;
    if (const auto value = metadataBool(model, "tokenizer.ggml.add_eos_token"))
        state->addEos = *value;
    if (const auto value = metadataBool(model, "tokenizer.ggml.add_space_prefix"); value && state->family == Family::SentencePiece)
        state->addSpacePrefix = *value;
    if (state->recipe.spaceMarks)
        state->addBos = true;  // llama.cpp overrides the key for gemma4
    if (state->addBos && state->bos == TokenTable::kNone && state->family != Family::WordPiece)
        return Error{"tokenizer.ggml.add_bos_token is true, but the file names no BOS token", Error::kNoOffset, path};
    if (state->addEos && state->eos == TokenTable::kNone)
        return Error{"tokenizer.ggml.add_eos_token is true, but the file names no EOS token", Error::kNoOffset, path};

    if (state->family == Family::SentencePiece)
        state->spmCutsAtSpaces = noTokenHasSpaceMarkAfterOtherText(state->table);
    if (state->recipe.spaceMarks)
        state->spaceMarkJoins = SpaceMarkJoins::fromMerges(state->table);
    markControlLookingTokens(state->table, model);
    state->specialOrder = specialTokenOrder(state->table);
    applyStripAttributes(state->table, state->specialOrder, model);
    return Tokenizer(std::move(state));
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text, bool addSpecial, bool parseSpecial) const
{
    const State& s = *m_state;
    std::vector<std::int32_t> out;
    const std::vector<TextFragment> fragments = splitSpecialTokens(s.table, s.specialOrder, text, parseSpecial);
    switch (s.family) {
    case Family::SentencePiece: {
        if (addSpecial && s.addBos)
            out.push_back(s.bos);
        bool afterSpecial = true;  // the text's start counts as one, for the leading space
        for (const TextFragment& fragment : fragments) {
            if (fragment.isToken()) {
                out.push_back(fragment.token);
                afterSpecial = true;
                continue;
            }
            std::string piece = s.addSpacePrefix && afterSpecial ? " " : "";
            piece += text.substr(fragment.offset, fragment.length);
            replaceSpaces(piece);
            if (s.spmCutsAtSpaces)
                encodeSentencePieceInWords(s.table, piece, s.unknown, out);
            else
                encodeSentencePiece(s.table, piece, s.unknown, out);
            afterSpecial = false;
        }
        if (addSpecial && s.addEos)
            out.push_back(s.eos);
        break;
    }
    case Family::BytePairEncoding: {
        if (addSpecial && s.addBos)
            out.push_back(s.bos);
        BpeWordEncoder encoder(s.table, s.recipe.ignoreMerges, s.recipe.spaceMarks ? ByteFallback::HexTokens : ByteFallback::ByteLevelCharacters);
        for (const TextFragment& fragment : fragments) {
            if (fragment.isToken()) {
                out.push_back(fragment.token);
                continue;
            }
            std::string spaceMarked;
            std::string_view raw = text.substr(fragment.offset, fragment.length);
            if (s.recipe.spaceMarks) {
                spaceMarked = raw;
                replaceSpaces(spaceMarked);
                raw = spaceMarked;
            }
            for (std::string& word : s.preTokenizer->split(raw)) {
                // gemma4: a run of newlines that is a token stays whole (llama.cpp's fix there).
                if (s.recipe.spaceMarks && word.find_first_not_of('\n') == std::string::npos) {
                    if (const std::int32_t id = s.table.find(word); id != TokenTable::kNone) {
                        out.push_back(id);
                        continue;
                    }
                }
                if (s.recipe.spaceMarks)
                    encoder.encodeLine(word, s.spaceMarkJoins, out);  // a line of gemma4 text
                else
                    encoder.encode(word, out);
            }
        }
        if (addSpecial && s.addEos)
            out.push_back(s.eos);
        break;
    }
    case Family::WordPiece:
        if (addSpecial && s.bos != TokenTable::kNone)
            out.push_back(s.bos);
        for (const TextFragment& fragment : fragments) {
            if (fragment.isToken())
                out.push_back(fragment.token);
            else
                encodeWordPiece(s.table, text.substr(fragment.offset, fragment.length), s.wordPiece, s.unknown, out);
        }
        if (addSpecial && s.separator != TokenTable::kNone)
            out.push_back(s.separator);
        break;
    }
    return out;
}

Tokenizer::Family Tokenizer::family() const
{
    return m_state->family;
}

std::string Tokenizer::description() const
{
    switch (m_state->family) {
    case Family::SentencePiece: return "SentencePiece BPE (llama)";
    case Family::BytePairEncoding:
        if (m_state->recipe.spaceMarks)
            return "SentencePiece-style BPE (" + m_state->preName + ")";
        return "byte-level BPE (pre-tokenizer " + (m_state->preName.empty() ? std::string("default") : m_state->preName) +
               (m_state->preFamily != m_state->preName ? ", as " + m_state->preFamily : std::string()) + ")";
    case Family::WordPiece: return "WordPiece (bert)";
    }
    return {};
}

std::size_t Tokenizer::vocabularySize() const
{
    return m_state->table.size();
}

std::string Tokenizer::piece(std::int32_t id) const
{
    const TokenTable& table = m_state->table;
    if (id < 0 || static_cast<std::size_t>(id) >= table.size())
        return {};
    const std::string_view text = table.text(id);
    const std::uint32_t attributes = table.attributes(id);
    if (attributes & (AttrControl | AttrUnknown | AttrUserDefined))
        return std::string(text);
    if ((attributes & AttrByte) && text.size() == 6 && text.substr(0, 3) == "<0x")
        return std::string(1, static_cast<char>(std::strtol(std::string(text.substr(3, 2)).c_str(), nullptr, 16)));
    if (m_state->family == Family::BytePairEncoding && !m_state->recipe.spaceMarks)
        return decodeByteLevelToken(text).value_or(std::string(text));
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "\xE2\x96\x81") == 0) {
            out += ' ';
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

}  // namespace gguf
