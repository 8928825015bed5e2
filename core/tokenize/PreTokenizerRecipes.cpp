// Which expressions each `tokenizer.ggml.pre` name stands for: the table of llama.cpp's
// llm_tokenizer_bpe constructor and llama_vocab::load (src/llama-vocab.cpp), as data. Names map
// to a family; a family to its expressions (already rewritten by llama.cpp into what ECMAScript
// accepts) and its quirks. Non-ASCII characters are written as \u escapes so no editor or tool
// can normalise them (U+2126 OHM SIGN is not U+03A9 here).

#include "core/tokenize/PreTokenizer.h"

#include <array>

namespace gguf {

namespace {
#define GGUFX_GPT2 R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))"
#define GGUFX_CONTRACTIONS R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]))"
#define GGUFX_LLAMA3 GGUFX_CONTRACTIONS R"(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"
#define GGUFX_QWEN2 GGUFX_CONTRACTIONS R"(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"
#define GGUFX_PORO " ?[^(\\s|.,!?\u2026\u3002\uFF0C\u3001\u0964\u06D4\u060C)]+"
#define GGUFX_CJK "[\u4E00-\u9FA5\u0800-\u4E00\uAC00-\uD7FF]+"
#define GGUFX_GPT4O_TAIL R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)"
#define GGUFX_DEEPSEEK3_MAIN \
    R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"

struct Family {
    const char* name;
    std::vector<std::string> expressions;
    bool ignoreMerges;
    bool addBos;
    bool noBos;
    bool spaceMarks = false;
};

const std::vector<Family>& families()
{
    static const std::vector<Family> table = {
        {"default", {R"([\p{P}\$\+<=>\^~\|]+)", GGUFX_GPT2, R"(\p{N}+)", "[0-9][0-9][0-9]"}, false, false, false},
        {"llama3", {GGUFX_LLAMA3}, true, true, false},
        {"dbrx", {GGUFX_LLAMA3}, false, false, false},
        {"chatglm4", {GGUFX_LLAMA3}, false, false, true},
        {"deepseek-llm",
         {"[\\r\\n]",
          "\\s?["
          "A-Za-z\u00B5\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u01BA\u01BC-\u01BF\u01C4-\u0293\u0295-\u02AF"
          "\u0370-\u0373\u0376\u0377\u037B-\u037D\u037F\u0386\u0388-\u038A\u038C\u038E-\u03A1\u03A3-\u03F5"
          "\u03F7-\u0481\u048A-\u052F\u0531-\u0556\u10A0-\u10C5\u13A0-\u13F5\u13F8-\u13FD\u1C90-\u1CBA"
          "\u1CBD-\u1CBF\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45"
          "\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE"
          "\u1FC2-\u1FC4\u1FC6-\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC"
          "\u2102\u2107\u210A-\u2113\u2115\u2119-\u211D\u2124\u2126\u2128\u212A-\u212D\u212F-\u2134\u2139"
          "\u213C-\u213F\u2145-\u2149\u214E\u2183\u2184\u2C00-\u2C7B\u2C7E-\u2CE4\u2CEB-\u2CEE\u2CF2\u2CF3"
          "\uA640-\uA66D\uA680-\uA69B\uA722-\uA76F\uA771-\uA787\uA78B-\uA78E\uAB70-\uABBF\uFB00-\uFB06"
          "\uFB13-\uFB17\uFF21-\uFF3A\uFF41-\uFF5A\U00010400-\U0001044F\U000104B0-\U000104D3"
          "\U000104D8-\U000104FB\U00010C80-\U00010CB2\U00010CC0-\U00010CF2\U000118A0-\U000118DF"
          "\U0001E900-\U0001E943"
          "]+",
          "\\s?[!-/:-~\uFF01-\uFF0F\uFF1A-\uFF5E\u2018-\u201F\u3000-\u3002]+", "\\s+$", GGUFX_CJK, R"(\p{N}+)"},
         false, false, false},
        {"deepseek-coder", {"[\\r\\n]", R"(\s?\p{L}+)", R"(\s?\p{P}+)", GGUFX_CJK, R"(\p{N})"}, false, false, false},
        {"deepseek-v3", {R"(\p{N}{1,3})", "[\u4E00-\u9FA5\u3040-\u309F\u30A0-\u30FF]+", GGUFX_DEEPSEEK3_MAIN}, false, false, false},
        {"falcon", {R"([\p{P}\$\+<=>\^~\|`]+)", GGUFX_GPT2, "[0-9][0-9][0-9]"}, false, false, false},
        {"starcoder", {R"(\p{N})", GGUFX_GPT2}, false, false, false},
        {"gpt2", {GGUFX_GPT2}, false, false, false},
        {"qwen2", {GGUFX_QWEN2}, false, false, false},
        {"qwen35",
         {GGUFX_CONTRACTIONS R"(|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
         false, false, false},
        {"poro", {GGUFX_PORO}, false, false, false},
        {"viking", {GGUFX_PORO, R"(\p{N})"}, false, false, false},
        {"tekken",
         {R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
         true, true, false},
        {"gpt-4o",
         {R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+)" GGUFX_CONTRACTIONS
          R"(?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*)" GGUFX_CONTRACTIONS "?" GGUFX_GPT4O_TAIL},
         false, false, false},
        {"bailingmoe",
         {R"('(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)"},
         false, false, false},
        {"seed-coder",
         {GGUFX_CONTRACTIONS R"(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+)"}, false, false, false},
        {"superbpe", {R"(\p{N}+)", R"((?=(\d{3})+(?!\d)))"}, false, false, false},
        {"gemma4", {R"([^\n]+|[\n]+)"}, false, false, false, true},
    };
    return table;
}

struct NameToFamily {
    const char* name;
    const char* family;
};
// tokenizer.ggml.pre values, as llama_vocab::load maps them.
constexpr std::array<NameToFamily, 63> kNames = {{
    {"default", "default"},
    {"llama3", "llama3"}, {"llama-v3", "llama3"}, {"llama-bpe", "llama3"}, {"falcon3", "llama3"}, {"falcon-h1", "llama3"},
    {"pixtral", "llama3"}, {"midm-2.0", "llama3"}, {"lfm2", "llama3"}, {"jina-v5-nano", "llama3"},
    {"dbrx", "dbrx"}, {"smaug-bpe", "dbrx"},
    {"glm4", "chatglm4"}, {"chatglm-bpe", "chatglm4"},
    {"deepseek-llm", "deepseek-llm"}, {"deepseek-coder", "deepseek-coder"},
    {"deepseek-v3", "deepseek-v3"}, {"hunyuan-dense", "deepseek-v3"}, {"joyai-llm", "deepseek-v3"}, {"hy_v4", "deepseek-v3"},
    {"falcon", "falcon"},
    {"starcoder", "starcoder"}, {"refact", "starcoder"}, {"command-r", "starcoder"}, {"smollm", "starcoder"},
    {"codeshell", "starcoder"}, {"exaone", "starcoder"}, {"minerva-7b", "starcoder"}, {"mellum2", "starcoder"},
    {"gpt-2", "gpt2"}, {"phi-2", "gpt2"}, {"jina-es", "gpt2"}, {"jina-de", "gpt2"}, {"gigachat", "gpt2"},
    {"jina-v2-es", "gpt2"}, {"jina-v2-de", "gpt2"}, {"a.x-4.0", "gpt2"}, {"mellum", "gpt2"}, {"modern-bert", "gpt2"},
    {"jina-v1-en", "gpt2"}, {"jina-v2-code", "gpt2"}, {"roberta-bpe", "gpt2"}, {"exaone4", "gpt2"}, {"mpt", "gpt2"},
    {"olmo", "gpt2"}, {"jais", "gpt2"}, {"trillion", "gpt2"}, {"granite-docling", "gpt2"},
    {"qwen2", "qwen2"}, {"deepseek-r1-qwen", "qwen2"}, {"kormo", "qwen2"}, {"f2llmv2", "qwen2"}, {"megrez", "qwen2"},
    {"stablelm2", "qwen2"}, {"hunyuan", "qwen2"}, {"solar-open", "qwen2"},
    {"qwen35", "qwen35"},
    {"poro-chat", "poro"}, {"bloom", "poro"}, {"gpt3-finnish", "poro"},
    {"viking", "viking"},
    {"tekken", "tekken"},
    {"gpt-4o", "gpt-4o"},
}};
constexpr std::array<NameToFamily, 10> kMoreNames = {{
    {"llama4", "gpt-4o"}, {"kanana2", "gpt-4o"}, {"talkie", "gpt-4o"}, {"minimax-m2", "gpt-4o"},
    {"bailingmoe", "bailingmoe"}, {"bailingmoe2", "bailingmoe"}, {"llada-moe", "bailingmoe"},
    {"seed-coder", "seed-coder"},
    {"gemma4", "gemma4"}, {"granite-embed-multi-311m", "gemma4"},
}};
}  // namespace

std::optional<PreTokenizerRecipe> preTokenizerRecipe(std::string_view name)
{
    if (name.empty())
        name = "default";  // llama.cpp warns and uses its default expressions
    const char* familyName = nullptr;
    for (const NameToFamily& entry : kNames)
        if (name == entry.name)
            familyName = entry.family;
    for (const NameToFamily& entry : kMoreNames)
        if (name == entry.name)
            familyName = entry.family;
    if (name == "superbpe")
        familyName = "superbpe";
    if (!familyName)
        return std::nullopt;
    for (const Family& family : families()) {
        if (std::string_view(family.name) != familyName)
            continue;
        return PreTokenizerRecipe{family.name, family.expressions, family.ignoreMerges, family.addBos, family.noBos, family.spaceMarks};
    }
    return std::nullopt;
}

}  // namespace gguf
