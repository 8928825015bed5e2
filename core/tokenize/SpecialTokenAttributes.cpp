#include "core/tokenize/SpecialTokenAttributes.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace gguf {

namespace {
struct Detection {
    const char* idKey;  // the search runs only when the file does not set this id
    std::vector<std::string_view> texts;
};

const std::vector<Detection>& detections()
{
    static const std::vector<Detection> table = {
        {"tokenizer.ggml.eot_token_id",
         {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]",
          "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>", "<end_of_utterance>"}},
        {"tokenizer.ggml.eom_token_id", {"<|eom_id|>"}},
        {"tokenizer.ggml.fim_pre_token_id",
         {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "begin\xEF\xBD\x9C>", "<PRE>",
          "\xE2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>"}},
        {"tokenizer.ggml.fim_suf_token_id",
         {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81hole\xEF\xBD\x9C>", "<SUF>",
          "\xE2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>"}},
        {"tokenizer.ggml.fim_mid_token_id",
         {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "end\xEF\xBD\x9C>", "<MID>",
          "\xE2\x96\x81<MID>", "<|code_middle|>", "<|middle|>"}},
        {"tokenizer.ggml.fim_pad_token_id", {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}},
        {"tokenizer.ggml.fim_rep_token_id", {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}},
        {"tokenizer.ggml.fim_sep_token_id", {"<|file_sep|>"}},
    };
    return table;
}

// Texts that end generation; llama.cpp makes each of them a control token.
constexpr std::array<std::string_view, 22> kEndOfGeneration = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>",
    "<eos>", "<turn|>", "<|tool_response>", "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>", "[e~[",
};

void addAttribute(TokenTable& table, std::int32_t id, std::uint32_t attribute)
{
    if (id != TokenTable::kNone)
        table.setAttributes(id, table.attributes(id) | attribute);
}

std::string lowercaseAscii(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}
}  // namespace

void markControlLookingTokens(TokenTable& table, const Model& model)
{
    for (const Detection& detection : detections()) {
        if (model.findMetadata(detection.idKey))
            continue;
        for (const std::string_view text : detection.texts)
            addAttribute(table, table.find(text), AttrControl);
    }
    for (const std::string_view text : kEndOfGeneration)
        addAttribute(table, table.find(text), AttrControl);
    // Control tokens named "unused" are also unused.
    for (std::size_t id = 0; id < table.size(); ++id) {
        const auto token = static_cast<std::int32_t>(id);
        if ((table.attributes(token) & AttrControl) && table.text(token).find("unused") != std::string_view::npos)
            addAttribute(table, token, AttrUnused);
    }
    // gpt-oss: these are always rendered, i.e. user-defined.
    for (const std::string_view text : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"})
        if (const std::int32_t id = table.find(text); id != TokenTable::kNone)
            table.setAttributes(id, AttrUserDefined);
    // o200k_harmony and solar-open: "<|end|>" is not an end of generation there.
    const bool harmony = table.find("<|return|>") != TokenTable::kNone && table.find("<|call|>") != TokenTable::kNone;
    const bool solar = table.find("<|calls|>") != TokenTable::kNone && table.find("<|flush|>") != TokenTable::kNone;
    if (const std::int32_t end = table.find("<|end|>"); end != TokenTable::kNone && (harmony || solar))
        table.setAttributes(end, AttrUserDefined);
}

void applyStripAttributes(TokenTable& table, const std::vector<std::int32_t>& specialOrder, const Model& model)
{
    const std::string name = lowercaseAscii(model.metadataString("general.name"));
    const std::string pre = model.metadataString("tokenizer.ggml.pre");
    const std::string architecture = model.metadataString("general.architecture");
    const auto containsAny = [](const std::string& text, std::initializer_list<std::string_view> parts) {
        return std::any_of(parts.begin(), parts.end(), [&](std::string_view part) { return text.find(part) != std::string::npos; });
    };
    if (containsAny(pre, {"jina-v2-de", "jina-v2-es", "jina-v2-code"}) || containsAny(architecture, {"nomic-bert-moe", "jina-bert-v3"})) {
        addAttribute(table, table.find("<mask>"), AttrLstrip);
    } else if (containsAny(name, {"phi-3", "phi3"})) {
        for (const std::int32_t id : specialOrder)
            addAttribute(table, id, AttrRstrip);
        addAttribute(table, table.find("</s>"), AttrRstrip);
        for (const std::string_view text : {"<unk>", "<s>", "<|endoftext|>"})
            if (const std::int32_t id = table.find(text); id != TokenTable::kNone)
                table.setAttributes(id, table.attributes(id) & ~AttrRstrip);
    } else if (containsAny(name, {"modern-bert"})) {
        addAttribute(table, table.find("[MASK]"), AttrLstrip);
    }
}

}  // namespace gguf
