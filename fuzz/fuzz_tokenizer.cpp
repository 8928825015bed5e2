// Harness 5: tokenizer text. The first byte picks a pre-tokenizer family or a real vocabulary,
// the second how to use it, the rest is the text (any bytes: invalid UTF-8, NULs, special-token
// spellings, long runs of one class, which libFuzzer's -max_len lets reach tens of thousands).
//  * A family alone: PreTokenizer::split, whose words must spell the text exactly (as UTF-8 with
//    invalid bytes read as U+FFFD, in GPT-2's byte alphabet unless the family keeps raw UTF-8).
//  * A vocabulary (the fixtures' ggml-vocab-*.gguf and the architecture models' F32 files, found
//    under GGUFX_FUZZ_VOCAB_DIR or the build's fixtures folder): Tokenizer::encode with or without
//    BOS/EOS and special-token parsing. Every id is inside the vocabulary, a second encode gives
//    the same ids, and a byte-level vocabulary's pieces spell the (U+FFFD-read) text when no
//    special token was parsed.

#include "FuzzSupport.h"
#include "core/gguf/Model.h"
#include "core/tokenize/PreTokenizer.h"
#include "core/tokenize/Tokenizer.h"
#include "core/tokenize/Unicode.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#ifndef GGUFX_FIXTURES_DIR
#define GGUFX_FIXTURES_DIR "../shared/fixtures"
#endif

namespace {
const char* const kFamilies[] = {"default", "llama3", "dbrx", "chatglm-bpe", "deepseek-llm", "deepseek-coder", "deepseek-v3", "falcon",
                                 "starcoder", "gpt-2", "qwen2", "qwen35", "poro-chat", "viking", "tekken", "gpt-4o", "bailingmoe",
                                 "seed-coder", "superbpe", "gemma4"};

struct Family {
    gguf::PreTokenizerRecipe recipe;
    gguf::PreTokenizer splitter;
};

std::vector<Family> loadFamilies()
{
    std::vector<Family> families;
    for (const char* name : kFamilies) {
        auto recipe = gguf::preTokenizerRecipe(name);
        FUZZ_CHECK(recipe);
        auto splitter = gguf::PreTokenizer::create(recipe->expressions, !recipe->spaceMarks);
        FUZZ_CHECK(splitter);
        families.push_back({*recipe, std::move(splitter.value())});
    }
    return families;
}

std::vector<gguf::Tokenizer> loadVocabularies()
{
    const char* overridden = std::getenv("GGUFX_FUZZ_VOCAB_DIR");
    const std::filesystem::path fixtures = overridden ? overridden : GGUFX_FIXTURES_DIR;
    std::vector<std::filesystem::path> paths;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(fixtures / "llama.cpp/vocab", error))
        if (entry.path().extension() == ".gguf")
            paths.push_back(entry.path());
    for (const auto& entry : std::filesystem::directory_iterator(fixtures / "llama.cpp/arch", error))
        if (entry.is_directory())
            paths.push_back(entry.path() / (entry.path().filename().string() + "-F32.gguf"));
    std::sort(paths.begin(), paths.end());  // byte 0 means the same vocabulary on every run
    std::vector<gguf::Tokenizer> tokenizers;
    for (const auto& path : paths) {
        auto model = gguf::Model::open(path.string());
        if (!model)
            continue;
        if (auto tokenizer = gguf::Tokenizer::fromModel(*model.value()))
            tokenizers.push_back(std::move(tokenizer.value()));
    }
    return tokenizers;
}

// The text as the pre-tokenizer reads it: UTF-8, each invalid byte as U+FFFD.
std::string normalizedUtf8(std::string_view text)
{
    std::string out;
    for (const char32_t c : gguf::unicode::decodeUtf8(text))
        gguf::unicode::appendUtf8(out, c);
    return out;
}

std::string byteLevel(std::string_view utf8)
{
    std::string out;
    for (const char byte : utf8)
        out += gguf::byteLevelCharacter(static_cast<unsigned char>(byte));
    return out;
}
}  // namespace

// Loading every fixture vocabulary takes seconds under ASan and coverage: it happens here, before
// the first input, so that libFuzzer's per-input timeout does not count it.
namespace {
const std::vector<Family>* gFamilies = nullptr;
const std::vector<gguf::Tokenizer>* gVocabularies = nullptr;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    gFamilies = new std::vector<Family>(loadFamilies());
    gVocabularies = new std::vector<gguf::Tokenizer>(loadVocabularies());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::vector<Family>& families = *gFamilies;
    const std::vector<gguf::Tokenizer>& vocabularies = *gVocabularies;
    if (size < 2)
        return 0;
    const std::size_t choice = data[0] % (families.size() + vocabularies.size());
    const bool addSpecial = data[1] & 1;
    const bool parseSpecial = data[1] & 2;
    const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

    if (choice < families.size()) {
        const Family& family = families[choice];
        std::string spelled;
        for (const std::string& word : family.splitter.split(text))
            spelled += word;
        const std::string utf8 = normalizedUtf8(text);
        FUZZ_CHECK(spelled == (family.recipe.spaceMarks ? utf8 : byteLevel(utf8)));
        return 0;
    }

    const gguf::Tokenizer& tokenizer = vocabularies[choice - families.size()];
    const std::vector<std::int32_t> ids = tokenizer.encode(text, addSpecial, parseSpecial);
    for (const std::int32_t id : ids)
        FUZZ_CHECK(id >= 0 && static_cast<std::size_t>(id) < tokenizer.vocabularySize());
    FUZZ_CHECK(tokenizer.encode(text, addSpecial, parseSpecial) == ids);
    if (tokenizer.family() == gguf::Tokenizer::Family::BytePairEncoding && !addSpecial && !parseSpecial &&
        tokenizer.description().rfind("byte-level", 0) == 0) {
        std::string spelled;
        for (const std::int32_t id : ids)
            spelled += tokenizer.piece(id);
        FUZZ_CHECK(spelled == normalizedUtf8(text));
    }
    return 0;
}
