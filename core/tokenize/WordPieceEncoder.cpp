#include "core/tokenize/WordPieceEncoder.h"

#include "core/tokenize/Unicode.h"

#include <algorithm>

namespace gguf {

namespace {
// The ranges BERT's tokenizer isolates (as Hugging Face's code has them, 0x2B920 included).
bool isChineseCharacter(char32_t c)
{
    return (c >= 0x04E00 && c <= 0x09FFF) || (c >= 0x03400 && c <= 0x04DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0x0F900 && c <= 0x0FAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}
}  // namespace

std::vector<std::string> wordPieceWords(std::string_view text, const WordPieceOptions& options)
{
    std::vector<std::string> words(1);
    for (char32_t c : unicode::decodeUtf8(text)) {
        if (options.stripAccents)
            c = unicode::nfdFirst(c);
        if (unicode::isWhitespace(c)) {
            if (!words.back().empty())
                words.emplace_back();
            continue;
        }
        const std::uint8_t category = unicode::category(c);
        if (c == 0 || c == unicode::kReplacementCharacter || (category & unicode::Control))
            continue;
        if (options.stripAccents && (category & unicode::Mark))
            continue;
        std::string character;
        unicode::appendUtf8(character, options.lowercase ? unicode::toLower(c) : c);
        if ((category & unicode::Punctuation) || (c < 0x7F && (category & unicode::Symbol)) || isChineseCharacter(c)) {
            if (!words.back().empty())
                words.emplace_back();
            words.back() = std::move(character);
            words.emplace_back();
        } else {
            words.back() += character;
        }
    }
    if (words.back().empty())
        words.pop_back();
    return words;
}

void encodeWordPiece(const TokenTable& table, std::string_view text, const WordPieceOptions& options, std::int32_t unknownId,
                     std::vector<std::int32_t>& out)
{
    const std::size_t longest = table.maxTokenLength();
    for (const std::string& word : wordPieceWords(text, options)) {
        if (word.empty())
            continue;
        const std::string marked = "\xE2\x96\x81" + word;
        const std::size_t before = out.size();
        // Byte positions, as llama.cpp: a cut inside a character matches no token.
        for (std::size_t i = 0; i < marked.size(); ++i) {
            bool matched = false;
            for (std::size_t j = std::min(marked.size(), i + longest + 1); j > i; --j) {
                const std::int32_t id = table.find(std::string_view(marked).substr(i, j - i));
                if (id != TokenTable::kNone) {
                    out.push_back(id);
                    matched = true;
                    i = j - 1;
                    break;
                }
            }
            if (!matched) {
                out.resize(before);
                break;
            }
        }
        if (out.size() == before && unknownId != TokenTable::kNone)
            out.push_back(unknownId);
    }
}

}  // namespace gguf
