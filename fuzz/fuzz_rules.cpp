// Harness: rules files (--tensor-type-file, convert --recipe), which people share. Any byte
// string is offered as a rules file, through the real file path and as text. Whatever parses is
// used the way the app does: compiled, matched against typical tensor names and the input's own
// words, applied over a preset by computeRecipe, and written back as a rules file. Invariants:
// the file and the text parse alike; every parsed rule compiles; the written file parses back
// to rules that pick the same rule for every name; no pattern hangs or crashes (RE2 runs them
// in linear time; libFuzzer's -timeout catches a regression to a backtracking engine).

#include "FuzzSupport.h"
#include "core/gguf/TensorInfo.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/recipe/QuantPresets.h"
#include "core/recipe/TensorTypeRules.h"
#include "core/types/GgmlType.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::array<std::string_view, 12> kNames = {
    "token_embd.weight",          "output.weight",           "output_norm.weight",
    "blk.0.attn_q.weight",        "blk.0.attn_v.weight",     "blk.1.ffn_down.weight",
    "blk.1.ffn_gate_exps.weight", "blk.12.attn_v_b.weight",  "blk.3.ffn_up_shexp.weight",
    "blk.0.attn_qkv.weight",      "BLK.0.ATTN_K.WEIGHT",     "",
};

// Names a rule may have been written for: the fixed ones and the input's own words (bounded).
std::vector<std::string> candidateNames(std::string_view text)
{
    std::vector<std::string> names(kNames.begin(), kNames.end());
    std::size_t at = 0;
    while (at < text.size() && names.size() < kNames.size() + 16) {
        const std::size_t end = std::min(text.find_first_of(" \t\n\r\v\f=", at), text.size());
        if (end > at)
            names.emplace_back(text.substr(at, std::min<std::size_t>(end - at, 256)));
        at = end + 1;
    }
    return names;
}

// Index of the rule that matches `name`, or -1.
long matchIndex(const gguf::CompiledTensorTypeRules& compiled, const std::vector<gguf::TensorTypeRule>& rules, std::string_view name)
{
    const gguf::TensorTypeRule* rule = compiled.match(name);
    if (!rule)
        return -1;
    FUZZ_CHECK(rule >= compiled.rules().data() && rule < compiled.rules().data() + rules.size());
    return rule - compiled.rules().data();
}

// A small llama-like model the recipe can run on: the rules decide what the tensors become.
struct SmallModel {
    std::vector<std::string> names;
    std::vector<gguf::TensorInfo> tensors;

    SmallModel()
    {
        const std::pair<const char*, std::array<std::int64_t, 2>> layout[] = {
            {"token_embd.weight", {256, 64}},     {"blk.0.attn_q.weight", {256, 256}}, {"blk.0.attn_v.weight", {256, 64}},
            {"blk.0.ffn_down.weight", {96, 256}}, {"blk.0.attn_norm.weight", {256, 1}}, {"output.weight", {256, 64}},
        };
        for (const auto& [name, ne] : layout) {
            names.emplace_back(name);
            gguf::TensorInfo info;
            info.nDims = ne[1] > 1 ? 2 : 1;
            info.ne = {ne[0], ne[1], 1, 1};
            info.typeId = 0;
            info.traits = gguf::findType(0);
            info.nbytes = info.elementCount() * 4;
            tensors.push_back(info);
        }
        for (std::size_t i = 0; i < tensors.size(); ++i)
            tensors[i].name = names[i];
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static fuzz::MemoryFile input("rules-fuzz-input");
    const std::string& path = input.write(data, size);
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    auto parsed = gguf::parseTensorTypeRules(text);
    auto loaded = gguf::loadTensorTypeRules(path);
    if (size <= gguf::kMaxRulesFileBytes) {
        FUZZ_CHECK(bool(parsed) == bool(loaded));
        if (parsed)
            FUZZ_CHECK(parsed->size() == loaded->size());
    } else {
        FUZZ_CHECK(!loaded);
    }
    if (!parsed) {
        FUZZ_CHECK(!parsed.error().message.empty());
        return 0;
    }
    const std::vector<gguf::TensorTypeRule>& rules = *parsed;
    FUZZ_CHECK(rules.size() <= gguf::kMaxRules);
    for (const gguf::TensorTypeRule& rule : rules) {
        FUZZ_CHECK(!rule.pattern.empty());
        FUZZ_CHECK(gguf::findType(rule.typeId) != nullptr);
    }

    auto compiled = gguf::CompiledTensorTypeRules::compile(rules);
    FUZZ_CHECK(compiled);  // parsing compiled each pattern already
    const std::vector<std::string> names = candidateNames(text);

    // Written back as this tool writes rules files, the rules choose the same rule for every name.
    const std::string written = gguf::formatTensorTypeRulesFile(rules, "fuzz\n# a comment line");
    auto reread = gguf::parseTensorTypeRules(written);
    FUZZ_CHECK(reread);
    FUZZ_CHECK(reread->size() == rules.size());
    auto recompiled = gguf::CompiledTensorTypeRules::compile(*reread);
    FUZZ_CHECK(recompiled);
    for (std::size_t i = 0; i < rules.size(); ++i)
        FUZZ_CHECK((*reread)[i].typeId == rules[i].typeId);
    for (const std::string& name : names)
        FUZZ_CHECK(matchIndex(*compiled, rules, name) == matchIndex(*recompiled, *reread, name));
    (void)gguf::formatTensorTypeArguments(rules);

    // Over a preset: a recipe or an error with a message, never a crash.
    static const SmallModel model;
    gguf::RecipeOptions options;
    options.preset = gguf::findQuantPreset("Q4_K_M");
    options.rules = rules;
    const gguf::ModelShape shape{"llama", 1, 4, 4, 0, false};
    auto recipe = gguf::computeRecipe(shape, model.tensors, options);
    if (!recipe)
        FUZZ_CHECK(!recipe.error().message.empty());
    else
        FUZZ_CHECK(recipe->tensors.size() == model.tensors.size());
    return 0;
}
