// llama-quantize's per-tensor type choice against the real tool: every .recipe.json that
// llama-quantize (llama.cpp 80fb11ac) produced from the tiny fixtures, with and without an
// importance matrix, must come out type for type and in the tool's tensor order; the one
// quantization it refused (Q2_K_S without an imatrix) must be refused for the same tensor.
// Also the rule forms (--tensor-type), fallbacks for rows that fit no block, and the rules
// that only bigger models than the fixtures trigger (GQA, 8 experts, layer counts, 70B).

#include "Fixtures.h"
#include "OpenFixture.h"
#include "OrderedJson.h"
#include "core/recipe/LlamaQuantRecipe.h"
#include "core/recipe/QuantPresets.h"
#include "core/recipe/RecipeAudit.h"
#include "core/recipe/RecipeGrid.h"
#include "core/recipe/TensorTypeRules.h"

#include <QtTest>

#include <map>

using namespace gguf;
using testsupport::fixturePath;

namespace {

// A tensor with only what the rules look at.
struct FakeTensors {
    std::vector<std::string> names;
    std::vector<TensorInfo> infos;

    void add(const std::string& name, std::vector<std::int64_t> ne, std::uint32_t type = 0)
    {
        names.push_back(name);
        TensorInfo info;
        info.nDims = static_cast<std::uint32_t>(ne.size());
        for (std::size_t d = 0; d < ne.size(); ++d)
            info.ne[d] = ne[d];
        info.typeId = type;
        info.traits = findType(type);
        info.nbytes = info.elementCount() * 4;
        infos.push_back(info);
    }
    // TensorInfo holds a view: point them at the stored names once all are added.
    const std::vector<TensorInfo>& finish()
    {
        for (std::size_t i = 0; i < infos.size(); ++i)
            infos[i].name = names[i];
        return infos;
    }
};

// A llama-like layout with `layers` layers.
FakeTensors llamaLayout(int layers, std::int64_t embd = 256, std::int64_t ff = 768, bool withOutput = true)
{
    FakeTensors t;
    t.names.reserve(std::size_t(layers) * 9 + 3);
    t.add("token_embd.weight", {embd, 512});
    for (int l = 0; l < layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        t.add(p + "attn_norm.weight", {embd});
        for (const char* r : {"attn_q", "attn_k", "attn_v", "attn_output"})
            t.add(p + r + ".weight", {embd, embd});
        t.add(p + "ffn_norm.weight", {embd});
        t.add(p + "ffn_gate.weight", {embd, ff});
        t.add(p + "ffn_up.weight", {embd, ff});
        t.add(p + "ffn_down.weight", {ff, embd});
    }
    t.add("output_norm.weight", {embd});
    if (withOutput)
        t.add("output.weight", {embd, 512});
    return t;
}

std::map<std::string, std::string> typesOf(const Recipe& recipe)
{
    std::map<std::string, std::string> types;
    for (const RecipeTensor& tensor : recipe.tensors)
        types[std::string(tensor.source->name)] = typeName(tensor.typeId);
    return types;
}

Recipe recipeFor(const ModelShape& shape, const std::vector<TensorInfo>& tensors, const char* preset, bool imatrix = false,
                 std::vector<TensorTypeRule> rules = {})
{
    RecipeOptions options;
    options.preset = findQuantPreset(preset);
    options.hasImatrix = imatrix;
    options.rules = std::move(rules);
    auto recipe = computeRecipe(shape, tensors, options);
    if (!recipe) {
        qWarning("%s", recipe.error().toString().c_str());
        return {};
    }
    return std::move(*recipe);
}

}  // namespace

class TestRecipe : public QObject {
    Q_OBJECT

private slots:
    void reproducesLlamaQuantize_data()
    {
        QTest::addColumn<QString>("recipeFile");
        const QStringList files = testsupport::fixtureNames("llama.cpp", "*.recipe.json");
        QVERIFY2(files.size() >= 38, "the llama.cpp fixtures are missing");
        for (const QString& file : files)
            QTest::newRow(file.toUtf8().constData()) << file;
    }

    void reproducesLlamaQuantize()
    {
        QFETCH(QString, recipeFile);
        QString error;
        const auto json = testsupport::parseOrderedJson(testsupport::readWholeFile(fixturePath("llama.cpp/" + recipeFile)), &error);
        QVERIFY2(json, qPrintable(error));
        const QByteArray source = json->member("source")->text;  // "fixtures/tiny-llama-F32.gguf"
        const QByteArray ftype = json->member("ftype")->text;
        const bool imatrix = json->member("imatrix")->kind != testsupport::JsonNode::Kind::Null;
        const auto model = testsupport::openModelAt(fixturePath(QString::fromUtf8(source.mid(source.indexOf('/') + 1))));
        QVERIFY(model);

        RecipeOptions options;
        options.preset = findQuantPreset(ftype.toStdString());
        QVERIFY2(options.preset, ftype.constData());
        options.hasImatrix = imatrix;
        auto recipe = computeRecipe(readModelShape(*model), model->tensors(), options);
        QVERIFY2(recipe, recipe ? "" : recipe.error().toString().c_str());
        QVERIFY2(recipe->refusal.empty(), recipe->refusal.c_str());
        QCOMPARE(qint64(recipe->preset->fileType), json->member("general.file_type")->text.toLongLong());

        // The recipe's members are in the output file's tensor order.
        const testsupport::JsonNode* expected = json->member("tensors");
        QCOMPARE(recipe->tensors.size(), expected->members.size());
        for (std::size_t i = 0; i < expected->members.size(); ++i) {
            const RecipeTensor& ours = recipe->tensors[i];
            QCOMPARE(QByteArray(ours.source->name.data(), qsizetype(ours.source->name.size())), expected->members[i].first);
            QCOMPARE(QByteArray::fromStdString(typeName(ours.typeId)), expected->members[i].second.text);
        }
        // And the sizes are the output file's tensor sizes.
        const auto output = testsupport::openModelAt(fixturePath("llama.cpp/" + recipeFile.chopped(int(strlen(".recipe.json")))));
        QVERIFY(output);
        for (const RecipeTensor& ours : recipe->tensors)
            QCOMPARE(ours.bytes, output->findTensor(ours.source->name)->nbytes);
    }

    void recipesTableAgrees()
    {
        // recipes.tsv lists the same (file, tensor, type) triples; every row is one of ours.
        const QList<QByteArray> lines = testsupport::readWholeFile(fixturePath("llama.cpp/recipes.tsv")).split('\n');
        QVERIFY(lines.size() > 800);
        std::map<QByteArray, std::shared_ptr<const Model>> sources;
        std::map<QByteArray, std::map<std::string, std::string>> computed;
        int rows = 0;
        for (const QByteArray& line : lines.mid(1)) {
            const QList<QByteArray> cells = line.split('\t');
            if (cells.size() != 3)
                continue;
            const QByteArray file = cells[0];
            if (!computed.count(file)) {
                const bool moe = file.startsWith("tiny-moe");
                const bool imatrix = !file.contains("-mix-");
                const QByteArray preset = file.mid(file.lastIndexOf('-') + 1).chopped(5);
                const QString sourceName = moe ? "tiny-moe-F16.gguf" : "tiny-llama-F32.gguf";
                if (!sources.count(sourceName.toUtf8()))
                    sources[sourceName.toUtf8()] = testsupport::openModelAt(fixturePath(sourceName));
                const auto& model = sources[sourceName.toUtf8()];
                QVERIFY(model);
                computed[file] = typesOf(recipeFor(readModelShape(*model), model->tensors(), preset.constData(), imatrix));
            }
            QCOMPARE(QString::fromStdString(computed[file][cells[1].toStdString()]), QString::fromUtf8(cells[2]));
            ++rows;
        }
        QVERIFY(rows > 800);
    }

    void refusesQ2KSWithoutImatrix()
    {
        // llama-quantize's log: "this quantization requires an importance matrix! - offending
        // tensor: blk.0.attn_k.weight - target type: q2_K".
        const QByteArray log = testsupport::readWholeFile(fixturePath("llama.cpp/tiny-llama-mix-Q2_K_S.gguf.log"));
        QVERIFY(log.contains("offending tensor: blk.0.attn_k.weight"));
        QVERIFY(log.contains("target type: q2_K"));
        const auto model = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(model);
        RecipeOptions options;
        options.preset = findQuantPreset("Q2_K_S");
        auto recipe = computeRecipe(readModelShape(*model), model->tensors(), options);
        QVERIFY(recipe);
        QVERIFY(recipe->refusal.find("requires an importance matrix") != std::string::npos);
        QVERIFY2(recipe->refusal.find("offending tensor: blk.0.attn_k.weight, target type: q2_K") != std::string::npos,
                 recipe->refusal.c_str());
        options.hasImatrix = true;
        QVERIFY(computeRecipe(readModelShape(*model), model->tensors(), options)->refusal.empty());
        // The IQ1/IQ2 presets need one too, and IQ3_XS/IQ3_XXS (their attn_q/attn_k are iq3_xxs/iq2_s);
        // the k-quants, IQ3_S/IQ3_M and IQ4 do not.
        for (const char* needs : {"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ3_XXS", "IQ3_XS"}) {
            options = {findQuantPreset(needs), false, {}, false};
            QVERIFY2(!computeRecipe(readModelShape(*model), model->tensors(), options)->refusal.empty(), needs);
        }
        for (const char* free : {"Q2_K", "Q3_K_S", "Q4_K_M", "IQ4_XS", "IQ3_S", "IQ3_M", "TQ1_0", "Q8_0", "F16"}) {
            options = {findQuantPreset(free), false, {}, false};
            QVERIFY2(computeRecipe(readModelShape(*model), model->tensors(), options)->refusal.empty(), free);
        }
    }

    void everyPresetOfTheIssueIsKnown()
    {
        for (const char* name : {"Q2_K", "Q2_K_S", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K",
                                 "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S",
                                 "IQ2_M", "IQ3_XXS", "IQ3_XS", "IQ3_S", "IQ3_M", "IQ4_NL", "IQ4_XS", "TQ1_0", "TQ2_0",
                                 "MXFP4_MOE", "F16", "BF16"}) {
            const QuantPreset* preset = findQuantPreset(name);
            QVERIFY2(preset, name);
            QCOMPARE(QString::fromUtf8(preset->name.data(), int(preset->name.size())), QString::fromLatin1(name));
            QCOMPARE(presetForFileType(preset->fileType), preset);
        }
        QCOMPARE(findQuantPreset("q4_k_m")->fileType, 15u);
        QCOMPARE(findQuantPreset("Q4_K")->fileType, 15u);  // llama-quantize's alias
        QCOMPARE(findQuantPreset("15")->name, std::string_view("Q4_K_M"));
        QVERIFY(!findQuantPreset("Q4_K_X"));
        QVERIFY(!findQuantPreset(""));
    }

    void orderIsLlamaCpps()
    {
        QVERIFY(llamaTensorOrderLess("output.weight", "blk.0.attn_k.weight"));
        QVERIFY(llamaTensorOrderLess("blk.2.ffn_up.weight", "blk.10.attn_k.weight"));  // by number, not text
        QVERIFY(llamaTensorOrderLess("blk.0.attn_v.weight", "blk.0.ffn_down.weight"));
        QVERIFY(!llamaTensorOrderLess("blk.1.a", "blk.1.a"));
    }

    void tensorTypeRules()
    {
        auto rule = parseTensorTypeRule("ATTN_V=Q8_0");
        QVERIFY(rule);
        QCOMPARE(rule->pattern, std::string("attn_v"));  // lower-cased as llama-quantize does
        QCOMPARE(rule->typeId, typeIdValue(GgmlTypeId::Q8_0));
        QVERIFY(!parseTensorTypeRule("attn_v"));
        QVERIFY(!parseTensorTypeRule("=q8_0"));
        QVERIFY(!parseTensorTypeRule("attn_v="));
        QVERIFY(!parseTensorTypeRule("attn_v=q9_9"));
        QVERIFY(!parseTensorTypeRule("attn_(v=q8_0"));
        auto rules = parseTensorTypeRules("# made by a planner\nblk\\.0\\.ffn_down=q6_K  attn_v=q8_0\n\nffn_up=f16\n");
        QVERIFY(rules);
        QCOMPARE(rules->size(), std::size_t(3));
        auto reparsed = parseTensorTypeRules(formatTensorTypeRulesFile(*rules, "a comment\nover two lines"));
        QVERIFY(reparsed);
        QCOMPARE(reparsed->size(), std::size_t(3));
        for (std::size_t i = 0; i < rules->size(); ++i)
            QCOMPARE(formatTensorTypeRule((*reparsed)[i]), formatTensorTypeRule((*rules)[i]));
        // A rule whose pattern starts with '#' (legal mid-line) must not read back as a comment.
        auto hashed = parseTensorTypeRules("attn_v=q8_0 #x=q4_0");
        QVERIFY(hashed);
        QCOMPARE(hashed->size(), std::size_t(2));
        auto hashedBack = parseTensorTypeRules(formatTensorTypeRulesFile(*hashed, "c"));
        QVERIFY(hashedBack);
        QCOMPARE(hashedBack->size(), std::size_t(2));
        auto hashedRules = CompiledTensorTypeRules::compile(*hashedBack);
        QVERIFY(hashedRules);
        QCOMPARE(hashedRules->match("blk.0.#x"), &hashedRules->rules()[1]);
        // Patterns run in linear time and compile without recursion: what std::regex could not survive.
        auto deep = parseTensorTypeRule(std::string(50000, '(') + "attn" + std::string(50000, ')') + "=q8_0");
        QVERIFY2(deep, deep ? "" : deep.error().message.c_str());
        auto backtracking = CompiledTensorTypeRules::compile({{"(.*)*z", typeIdValue(GgmlTypeId::Q8_0)}});
        QVERIFY(backtracking);
        QVERIFY(!backtracking->match(std::string(100000, 'a')));
        QVERIFY(backtracking->match(std::string(100000, 'a') + "z"));
        auto backReference = parseTensorTypeRule("(attn)\\1=q8_0");
        QVERIFY(!backReference);
        QVERIFY(backReference.error().message.find("not supported") != std::string::npos);
        QCOMPARE(formatTensorTypeArguments({*rule}), std::string("--tensor-type 'attn_v=q8_0'"));
        QCOMPARE(exactNamePattern("blk.0.attn_v.weight"), std::string("^blk\\.0\\.attn_v\\.weight$"));

        // Over a preset: the first match wins, output and token_embd included, then the fallback.
        FakeTensors t = llamaLayout(2);
        const auto& tensors = t.finish();
        const ModelShape shape{"llama", 2, 8, 8, 0, false};
        auto parsed = parseTensorTypeRules("blk\\.1\\.attn_v=q4_0 attn_v=q8_0 output=q4_K token_embd=iq4_nl");
        QVERIFY(parsed);
        Recipe r = recipeFor(shape, tensors, "Q4_K_M", false, *parsed);
        QCOMPARE(typeName(r.find("blk.1.attn_v.weight")->typeId), std::string("q4_0"));
        QCOMPARE(typeName(r.find("blk.0.attn_v.weight")->typeId), std::string("q8_0"));
        QVERIFY(r.find("blk.0.attn_v.weight")->manual);
        QCOMPARE(typeName(r.find("output.weight")->typeId), std::string("q4_K"));
        QCOMPARE(typeName(r.find("token_embd.weight")->typeId), std::string("iq4_nl"));
        QCOMPARE(typeName(r.find("blk.1.ffn_down.weight")->typeId), std::string("q6_K"));  // untouched rules still apply
        QCOMPARE(typeName(r.find("blk.1.attn_norm.weight")->typeId), std::string("f32"));  // 1-D never quantized
        // Rules do nothing over a float preset (llama-quantize applies them only to quantized defaults).
        r = recipeFor(shape, tensors, "F16", false, *parsed);
        QCOMPARE(typeName(r.find("blk.0.attn_v.weight")->typeId), std::string("f16"));
    }

    void fallbacks()
    {
        FakeTensors t;
        t.add("blk.0.attn_q.weight", {320, 64});   // 32 | 320, 256 does not
        t.add("blk.0.attn_k.weight", {48, 64});    // 16 | 48: even q5_0 does not fit
        t.add("blk.0.attn_output.weight", {256, 64});
        t.add("output.weight", {320, 512});
        const ModelShape shape{"llama", 1, 8, 8, 0, false};
        Recipe r = recipeFor(shape, t.finish(), "Q4_K_S");
        QCOMPARE(typeName(r.find("blk.0.attn_q.weight")->typeId), std::string("q5_0"));
        QVERIFY(r.find("blk.0.attn_q.weight")->fellBack);
        QCOMPARE(typeName(r.find("blk.0.attn_k.weight")->typeId), std::string("f16"));
        QCOMPARE(typeName(r.find("blk.0.attn_output.weight")->typeId), std::string("q4_K"));
        QCOMPARE(typeName(r.find("output.weight")->typeId), std::string("q8_0"));  // the output's own rule
        QCOMPARE(r.fallbackCount, std::size_t(2));
        QCOMPARE(r.find("blk.0.attn_q.weight")->bytes, std::uint64_t(64 * 10 * 22));
        r = recipeFor(shape, t.infos, "Q3_K_S");
        QCOMPARE(typeName(r.find("blk.0.attn_q.weight")->typeId), std::string("q4_0"));
        r = recipeFor(shape, t.infos, "IQ4_XS");
        QCOMPARE(typeName(r.find("blk.0.attn_q.weight")->typeId), std::string("iq4_nl"));
        // Types of 32 or fewer elements a block have nothing smaller to go to: a row of 48 is F16
        // (llama-quantize writes DeepSeek's attn_v_b, 48 wide, as F16 in a Q8_0 file).
        for (const char* preset : {"Q4_0", "Q8_0", "Q5_1", "IQ4_NL"}) {
            r = recipeFor(shape, t.infos, preset);
            QVERIFY2(r.find("blk.0.attn_k.weight"), preset);
            QCOMPARE(typeName(r.find("blk.0.attn_k.weight")->typeId), std::string("f16"));
            QVERIFY(r.find("blk.0.attn_k.weight")->fellBack);
            QCOMPARE(r.find("blk.0.attn_k.weight")->bytes, std::uint64_t(48 * 64 * 2));
            QCOMPARE(typeName(r.find("blk.0.attn_q.weight")->typeId), typeName(findQuantPreset(preset)->defaultType));
        }
        // The same through a rule (mxfp4, block 32), and a rule's block-256 type falls back as a preset's does.
        auto rules = parseTensorTypeRules("attn_k=mxfp4 attn_q=q6_k");
        QVERIFY(rules);
        r = recipeFor(shape, t.infos, "Q8_0", false, *rules);
        QCOMPARE(typeName(r.find("blk.0.attn_k.weight")->typeId), std::string("f16"));
        QCOMPARE(typeName(r.find("blk.0.attn_q.weight")->typeId), std::string("q8_0"));
        // A block-256 type llama-quantize maps to nothing (q8_K): it gives up, and so do we.
        rules = parseTensorTypeRules("attn_q=q8_k");
        QVERIFY(rules);
        RecipeOptions options;
        options.preset = findQuantPreset("Q8_0");
        options.rules = *rules;
        auto refused = computeRecipe(shape, t.infos, options);
        QVERIFY(!refused);
        QVERIFY(refused.error().message.find("blk.0.attn_q.weight") != std::string::npos);
        QVERIFY(refused.error().message.find("q8_K") != std::string::npos);
    }

    void typeOptionsOfTokenEmbeddingAndOutput()
    {
        FakeTensors t = llamaLayout(1, 256, 512);
        const std::vector<TensorInfo>& tensors = t.finish();
        const ModelShape shape{"llama", 1, 8, 8, 0, false};
        RecipeOptions options;
        options.preset = findQuantPreset("Q4_K_M");
        options.tokenEmbeddingType = typeIdValue(GgmlTypeId::F32);
        options.outputTensorType = typeIdValue(GgmlTypeId::Q8_0);
        // A rule naming them does not win over the options (llama-quantize reads them first).
        auto rules = parseTensorTypeRules("token_embd=q4_0 output=q4_0");
        QVERIFY(rules);
        options.rules = *rules;
        auto r = computeRecipe(shape, tensors, options);
        QVERIFY(r);
        QCOMPARE(typeName(r->find("token_embd.weight")->typeId), std::string("f32"));
        QCOMPARE(typeName(r->find("output.weight")->typeId), std::string("q8_0"));
        QCOMPARE(typeName(r->find("blk.0.attn_q.weight")->typeId), std::string("q4_K"));
        // Tied embeddings: token_embd follows --output-tensor-type when it has no type of its own.
        FakeTensors tied = llamaLayout(1, 256, 512, false);
        options.tokenEmbeddingType.reset();
        options.rules.clear();
        r = computeRecipe(shape, tied.finish(), options);
        QVERIFY(r);
        QCOMPARE(typeName(r->find("token_embd.weight")->typeId), std::string("q8_0"));
        // No fallback for a forced type: a row it does not fit is an error, not a silent change.
        options.outputTensorType = typeIdValue(GgmlTypeId::Q8_K);
        FakeTensors narrow;
        narrow.add("output.weight", {96, 512});
        QVERIFY(!computeRecipe(shape, narrow.finish(), options));
    }

    void rulesBeyondTheFixtures()
    {
        // 32 layers, GQA 4 (a Llama-3-8B layout, smaller matrices): Q4_K_M bumps attn_v and
        // ffn_down in the first 4, the last 4 and every third layer between.
        FakeTensors t = llamaLayout(32);
        const auto& tensors = t.finish();
        const ModelShape gqa{"llama", 32, 32, 8, 0, false};
        Recipe r = recipeFor(gqa, tensors, "Q4_K_M");
        QString bumped;
        for (int l = 0; l < 32; ++l)
            if (r.find("blk." + std::to_string(l) + ".ffn_down.weight")->typeId == typeIdValue(GgmlTypeId::Q6_K))
                bumped += QString::number(l) + ' ';
        QCOMPARE(bumped, QStringLiteral("0 1 2 3 6 9 12 15 18 21 24 27 28 29 30 31 "));
        QCOMPARE(typeName(r.find("blk.6.attn_v.weight")->typeId), std::string("q6_K"));
        QCOMPARE(typeName(r.find("blk.7.attn_v.weight")->typeId), std::string("q4_K"));
        // Q2_K: attn_v q4_K with GQA >= 4, q3_K without; Q3_K_M: q5_K for the first two attn_v.
        QCOMPARE(typeName(recipeFor(gqa, tensors, "Q2_K").find("blk.5.attn_v.weight")->typeId), std::string("q4_K"));
        const ModelShape mha{"llama", 32, 32, 32, 0, false};
        QCOMPARE(typeName(recipeFor(mha, tensors, "Q2_K").find("blk.5.attn_v.weight")->typeId), std::string("q3_K"));
        r = recipeFor(mha, tensors, "Q3_K_M");
        QCOMPARE(typeName(r.find("blk.1.attn_v.weight")->typeId), std::string("q5_K"));
        QCOMPARE(typeName(r.find("blk.2.attn_v.weight")->typeId), std::string("q4_K"));
        QCOMPARE(typeName(r.find("blk.1.ffn_down.weight")->typeId), std::string("q5_K"));  // i < n/16
        QCOMPARE(typeName(r.find("blk.2.ffn_down.weight")->typeId), std::string("q4_K"));
        // With an imatrix IQ4_XS keeps the first ffn_down layers; without, they get q5_K.
        QCOMPARE(typeName(recipeFor(mha, tensors, "IQ4_XS").find("blk.0.ffn_down.weight")->typeId), std::string("q5_K"));
        QCOMPARE(typeName(recipeFor(mha, tensors, "IQ4_XS", true).find("blk.0.ffn_down.weight")->typeId), std::string("iq4_xs"));
        QCOMPARE(typeName(recipeFor(mha, tensors, "Q4_0", true).find("blk.0.ffn_down.weight")->typeId), std::string("q4_1"));
        QCOMPARE(typeName(recipeFor(mha, tensors, "Q4_0").find("blk.0.ffn_down.weight")->typeId), std::string("q4_0"));
        QCOMPARE(typeName(recipeFor(mha, tensors, "IQ3_XXS", true).find("blk.9.attn_v.weight")->typeId), std::string("iq3_xxs"));
        QCOMPARE(typeName(recipeFor(mha, tensors, "IQ3_XXS").find("blk.9.attn_v.weight")->typeId), std::string("iq3_s"));
        // A 70B: attn_v at q3_K/q4_K goes to q5_K.
        FakeTensors big = llamaLayout(80, 256, 768);
        const ModelShape seventy{"llama", 80, 64, 8, 0, true};
        QCOMPARE(typeName(recipeFor(seventy, big.finish(), "Q3_K_S").find("blk.40.attn_v.weight")->typeId), std::string("q5_K"));
        // Tied embeddings: no output.weight, so token_embd is treated as the output.
        FakeTensors tied = llamaLayout(2, 256, 768, false);
        const ModelShape small{"llama", 2, 8, 8, 0, false};
        QCOMPARE(typeName(recipeFor(small, tied.finish(), "Q4_K_M").find("token_embd.weight")->typeId), std::string("q6_K"));
        QCOMPARE(typeName(recipeFor(small, tied.infos, "IQ2_XXS", true).find("token_embd.weight")->typeId), std::string("q5_K"));
    }

    void moeNeedsLayerNumbers()
    {
        FakeTensors t;
        t.add("blk.0.ffn_down_exps.weight", {512, 256, 8});
        t.add("ffn_down_exps.weight", {512, 256, 8});
        const ModelShape moe{"llama", 2, 8, 8, 8, false};
        RecipeOptions options{findQuantPreset("Q4_K_M"), false, {}, false};
        auto recipe = computeRecipe(moe, t.finish(), options);
        QVERIFY(!recipe);
        QVERIFY(recipe.error().message.find("ffn_down_exps.weight") != std::string::npos);
        FakeTensors far;
        far.add("blk.7.ffn_down_exps.weight", {512, 256, 8});
        recipe = computeRecipe(moe, far.finish(), options);
        QVERIFY(!recipe);
        QVERIFY(recipe.error().message.find("bad layer 7") != std::string::npos);
    }

    void gridOfAMoeFile()
    {
        const auto model = testsupport::openModelAt(fixturePath("llama.cpp/tiny-moe-imat-Q4_K_M.gguf"));
        QVERIFY(model);
        const RecipeGrid grid = storedGrid(*model);
        QCOMPARE(grid.layers, (std::vector<int>{RecipeGrid::kNoLayer, 0, 1}));
        const auto column = [&](const char* role) {
            return std::size_t(std::find(grid.roles.begin(), grid.roles.end(), role) - grid.roles.begin());
        };
        for (const char* role : {"token_embd", "output", "attn_q", "ffn_gate_inp", "ffn_gate_exps", "ffn_down_exps", "attn_norm"})
            QVERIFY2(column(role) < grid.roles.size(), role);
        QVERIFY(column("attn_q") < column("ffn_gate_exps"));  // block order, not alphabetical
        QCOMPARE(typeName(grid.at(2, column("ffn_down_exps"))->typeId), std::string("q6_K"));
        QCOMPARE(typeName(grid.at(1, column("ffn_down_exps"))->typeId), std::string("q4_K"));
        QVERIFY(!grid.at(0, column("attn_q")));
        std::uint64_t bytes = 0, elements = 0;
        for (const TensorInfo& tensor : model->tensors()) {
            bytes += tensor.nbytes;
            elements += tensor.elementCount();
        }
        QCOMPARE(grid.total.bytes, bytes);
        QCOMPARE(grid.total.elements, elements);
        std::uint64_t roleSum = 0, layerSum = 0;
        for (const GridTotal& t : grid.roleTotals)
            roleSum += t.bytes;
        for (const GridTotal& t : grid.layerTotals)
            layerSum += t.bytes;
        QCOMPARE(roleSum, bytes);
        QCOMPARE(layerSum, bytes);
        QCOMPARE(grid.roleTotals[column("ffn_down_exps")].bitsPerWeight(), (4.5 + 6.5625) / 2);
        int layer = 0;
        QCOMPARE(tensorRole("blk.12.attn_q.bias", layer), std::string("attn_q.bias"));
        QCOMPARE(layer, 12);
        QCOMPARE(tensorRole("blk.x.attn_q.weight", layer), std::string("blk.x.attn_q"));
        QCOMPARE(layer, RecipeGrid::kNoLayer);
    }

    void auditOfLabels()
    {
        // The pure Q4_K fixture says Q4_K_M in general.file_type: three tensors are not what llama-quantize makes.
        auto model = testsupport::openModelAt(fixturePath("tiny-llama-Q4_K.gguf"));
        QVERIFY(model);
        RecipeAudit audit = auditRecipe(*model);
        QCOMPARE(audit.labelPreset, findQuantPreset("Q4_K_M"));
        QCOMPARE(audit.namePreset->name, std::string_view("Q4_K"));
        QCOMPARE(audit.dominantType, typeIdValue(GgmlTypeId::Q4_K));
        QCOMPARE(audit.dominantShare, 1.0);
        QVERIFY(!audit.matchesPreset());
        QCOMPARE(audit.differences.size(), std::size_t(3));
        QCOMPARE(audit.differences[0].tensor, std::string("output.weight"));
        QCOMPARE(audit.differences[0].expectedType, typeIdValue(GgmlTypeId::Q6_K));
        QVERIFY(audit.imatrixKeys.empty());
        // A real Q3_K_M from llama-quantize with an imatrix matches and shows its provenance.
        model = testsupport::openModelAt(fixturePath("llama.cpp/tiny-llama-imat-Q3_K_M.gguf"));
        QVERIFY(model);
        audit = auditRecipe(*model);
        QVERIFY(audit.matchesPreset());
        QVERIFY(audit.assumedImatrix);
        QCOMPARE(audit.imatrixKeys.size(), std::size_t(4));
        QCOMPARE(audit.imatrixKeys[0].first, std::string("quantize.imatrix.file"));
        // Every real output matches its own label.
        for (const QString& file : testsupport::fixtureNames("llama.cpp", "tiny-*-*-*.gguf")) {
            model = testsupport::openModelAt(fixturePath("llama.cpp/" + file));
            QVERIFY(model);
            QVERIFY2(auditRecipe(*model).matchesPreset(), qPrintable(file));
        }
        // IQ2_S files are mostly iq2_xs: the label is not the main type, and that is no finding.
        model = testsupport::openModelAt(fixturePath("llama.cpp/tiny-llama-imat-IQ2_S.gguf"));
        audit = auditRecipe(*model);
        QCOMPARE(audit.dominantType, typeIdValue(GgmlTypeId::IQ2_XS));
        for (const std::string& finding : audit.findings)
            QVERIFY2(finding.find("most weights") == std::string::npos, finding.c_str());

        QCOMPARE(presetInFileName("Llama-3-8B-Instruct-Q4_K_M.gguf")->name, std::string_view("Q4_K_M"));
        QCOMPARE(presetInFileName("model.iq2_xxs.gguf")->name, std::string_view("IQ2_XXS"));
        QCOMPARE(presetInFileName("mixtral-MXFP4_MOE-00001-of-00002.gguf")->name, std::string_view("MXFP4_MOE"));
        QVERIFY(!presetInFileName("xq4_k_m.gguf"));
        QVERIFY(!presetInFileName("model.gguf"));
    }
};

QTEST_GUILESS_MAIN(TestRecipe)
#include "tst_recipe.moc"
