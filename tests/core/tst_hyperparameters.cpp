// The forward pass's hyper-parameters (core/forward/ModelHyperparameters, through
// core/gguf/HyperparameterReader) taken as llama.cpp's loader takes them: for every architecture
// the pass runs (its fixture folders) and every `<arch>.*` key of the fixture, a copy with that key
// of another type, out of range, NaN or an array of the wrong length is refused, naming the key
// and its stored type; never read as absent (a default would run another network). Then keys
// llama.cpp does not read for an architecture change nothing, and the hostile values llama.cpp
// refuses with an assert are refused by name. The copies are written by the project's own
// writer with the metadata editor's edits (core/write, core/edit), and only their
// hyper-parameters are read: the pass is not run (tst_cli_hyperparameters runs it end to end).

#include "core/edit/MetadataEdits.h"
#include "core/edit/ValueText.h"
#include "core/estimate/EstimateShape.h"
#include "core/forward/ModelHyperparameters.h"
#include "HeaderCopy.h"
#include "OpenFixture.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

using namespace testsupport;

namespace {

QString archDir()
{
    return fixturePath(QStringLiteral("llama.cpp/arch"));
}

// The folders whose architecture the pass runs (README's table), with the architecture's name.
std::vector<std::pair<QString, std::string>> runnableFolders()
{
    std::vector<std::pair<QString, std::string>> out;
    for (const QString& folder : QDir(archDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString manifestPath = archDir() + QLatin1Char('/') + folder + QStringLiteral("/manifest.json");
        const QJsonObject manifest = QJsonDocument::fromJson(readWholeFile(manifestPath)).object();
        const std::string arch = manifest.value(QStringLiteral("architecture")).toString().toStdString();
        if (gguf::findBlockDescription(arch))
            out.emplace_back(folder, arch);
    }
    return out;
}

// Each folder's F32 model, opened once for all rows.
std::shared_ptr<const gguf::Model> folderModel(const QString& folder)
{
    static std::map<QString, std::shared_ptr<const gguf::Model>> opened;
    auto& model = opened[folder];
    if (!model)
        model = openModelAt(archDir() + QLatin1Char('/') + folder + QLatin1Char('/') + folder + QStringLiteral("-F32.gguf"));
    return model;
}

// The model's header with one key set (nullopt: removed), written into `dir` by the project's
// writer with the editor's edits (HeaderCopy.h: zeros for tensor data, which is not read here).
std::shared_ptr<const gguf::Model> editedCopy(const gguf::Model& original, const std::string& key, const std::optional<gguf::EncodedValue>& value,
                                              const QTemporaryDir& dir)
{
    gguf::MetadataEdits edits;
    if (value)
        edits.set(key, *value);
    else
        edits.remove(key);
    const std::string path = dir.filePath(QStringLiteral("edited.gguf")).toStdString();
    if (const std::string error = writeHeaderCopy(original, edits, path); !error.empty()) {
        QTest::qFail(error.c_str(), __FILE__, __LINE__);
        return nullptr;
    }
    return openModelAt(QString::fromStdString(path));
}

// The hyper-parameters of `folder`'s model with `key` set to `value` (nullopt: removed); nullopt
// when the copy could not be made (the running test has failed then).
std::optional<gguf::Result<gguf::ModelHyperparameters>> readEdited(const QString& folder, const QString& key,
                                                                   const std::optional<gguf::EncodedValue>& value)
{
    const auto original = folderModel(folder);
    if (!original)
        return std::nullopt;
    QTemporaryDir dir;
    const auto model = editedCopy(*original, key.toStdString(), value, dir);
    if (!model)
        return std::nullopt;
    return gguf::readHyperparameters(*model);
}

// `folder`'s model with `key` set, as the memory estimate reads it.
std::optional<gguf::Result<gguf::EstimateShape>> estimateEdited(const QString& folder, const QString& key,
                                                                const std::optional<gguf::EncodedValue>& value)
{
    const auto original = folderModel(folder);
    if (!original)
        return std::nullopt;
    QTemporaryDir dir;
    const auto model = editedCopy(*original, key.toStdString(), value, dir);
    if (!model)
        return std::nullopt;
    return gguf::readEstimateShape(*model);
}

// Keys the converter writes into a fixture that llama.cpp does not read for its architecture
// (keysLlamaCppIgnoresChangeNothing checks them instead).
bool keyLlamaCppIgnores(std::string_view key)
{
    static const std::set<std::string, std::less<>> ignored{"ernie4_5-moe.expert_shared_count", "mistral3.vocab_size", "llama4.vocab_size", "lfm2.vocab_size",
                                                            "step35.leading_dense_block_count", "step35.moe_every_n_layers"};
    return ignored.find(key) != ignored.end();
}

// The changes a stored value gets, each with the type its refusal must name.
struct Change {
    std::string label;
    gguf::EncodedValue value;
    std::string storedType;
};

std::vector<Change> hostileChanges(const gguf::MetadataValue& value)
{
    using gguf::EncodedValue;
    using gguf::ValueType;
    std::vector<Change> changes;
    switch (value.type()) {
    case ValueType::U32:
        changes.push_back({"as a string", EncodedValue::string(std::to_string(*value.toUInt())), "string"});
        changes.push_back({"above 2^31", EncodedValue::u32(0xFFFFFFFFu), "u32"});
        break;
    case ValueType::F32:
        changes.push_back({"as a u32", EncodedValue::u32(static_cast<std::uint32_t>(std::max(0.0, std::min(*value.toDouble(), 4e9)))), "u32"});
        changes.push_back({"NaN", EncodedValue::f32(std::nanf("")), "f32"});
        break;
    case ValueType::Bool:
        changes.push_back({"as a u32", EncodedValue::u32(*value.toBool() ? 1 : 0), "u32"});
        break;
    case ValueType::String:
        changes.push_back({"as a u32", EncodedValue::u32(1), "u32"});
        break;
    case ValueType::Array: {
        // Integer arrays get f32 elements, f32 arrays (step35's clamps) i32 ones.
        const bool floats = value.elementType() == ValueType::F32;
        std::vector<EncodedValue> retyped, longer;
        for (std::uint64_t i = 0; i < value.arrayLength(); ++i) {
            const double element = *value.element(i).toDouble();
            retyped.push_back(floats ? EncodedValue::i32(static_cast<std::int32_t>(element)) : EncodedValue::f32(static_cast<float>(element)));
            longer.push_back(*EncodedValue::copyOf(value.element(i), false));
        }
        longer.push_back(longer.front());
        if (floats)
            changes.push_back({"elements as i32", *EncodedValue::array(ValueType::I32, retyped), "arr[i32]"});
        else
            changes.push_back({"elements as f32", *EncodedValue::array(ValueType::F32, retyped), "arr[f32]"});
        changes.push_back({"one value too many", *EncodedValue::array(value.elementType(), longer), value.typeName()});
        break;
    }
    default:
        break;
    }
    return changes;
}

// The hyper-parameters as text, to see that a change changed nothing.
std::string describe(const gguf::ModelHyperparameters& h)
{
    std::ostringstream out;
    out << h.embeddingLength << ' ' << h.layerCount << ' ' << h.feedForwardLength << ' ' << h.headCount << ' ' << h.headCountKv << ' '
        << h.headDimension << ' ' << h.valueDimension << ' ' << h.ropeDimensions << ' ' << h.ropeFreqBase << ' ' << h.ropeFreqScale << ' '
        << h.ropeYarn << ' ' << h.ropeAttnFactor << ' ' << h.yarnLogMultiplier << ' ' << h.yarnOriginalContext << ' ' << h.rmsEpsilon << ' '
        << h.attentionScale << ' ' << h.attentionSoftcap << ' ' << h.finalSoftcap << ' ' << h.slidingWindow << ' ' << h.slidingPattern << ' '
        << h.ropeFreqBaseSliding << ' ' << h.ropeFreqScaleSliding << ' ' << h.fullAttentionInterval << ' ' << h.qLoraRank << ' '
        << h.kvLoraRank << ' ' << h.mlaKeyLength << ' ' << h.mlaValueLength << ' ' << h.leadingDenseLayers << ' ' << h.expertCount << ' '
        << h.expertUsedCount << ' ' << h.expertFeedForwardLength << ' ' << h.sharedExpertFeedForwardLength << ' ' << h.expertGroupCount << ' '
        << h.expertGroupUsedCount << ' ' << static_cast<int>(h.expertGating) << ' ' << h.normalizeExpertWeights << ' ' << h.expertWeightsScale
        << ' ' << h.perLayerInputLength << ' ' << h.sharedKvLayers << " |";
    for (std::size_t il = 0; il < h.layers.size(); ++il) {
        const gguf::LayerShape& s = h.layers[il];
        out << ' ' << s.headCount << '/' << s.headCountKv << '/' << s.keyLength << '/' << s.valueLength << '/' << s.ropeDimensions << '/'
            << s.feedForwardLength << '/' << s.sliding << '/' << s.kvSource << '/' << h.isRecurrentLayer(static_cast<std::int64_t>(il)) << '/'
            << h.isExpertLayer(static_cast<std::int64_t>(il));
    }
    return out.str();
}

// `text` as `type` ("u32", "arr[i32]", ...) by the editor's own parser; "delete" removes the key.
std::optional<gguf::EncodedValue> typedValue(const QString& text, const QString& type)
{
    if (type == QStringLiteral("delete"))
        return std::nullopt;
    auto value = gguf::parseValueText(text.toStdString(), type.toStdString());
    if (!value) {
        QTest::qFail(value.error().message.c_str(), __FILE__, __LINE__);
        return gguf::EncodedValue::u32(0);
    }
    return *value;
}

}  // namespace

class HyperparametersTest : public QObject {
    Q_OBJECT

private slots:
    // Every key of every runnable fixture, each hostile change of its stored type.
    void everyKeyOfEveryArchitectureIsTyped_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("change");
        const auto folders = runnableFolders();
        QVERIFY(folders.size() >= 13);
        for (const auto& [folder, arch] : folders) {
            const auto model = folderModel(folder);
            QVERIFY(model);
            for (const gguf::MetadataEntry& entry : model->metadata()) {
                if (entry.key.rfind(arch + ".", 0) != 0 || keyLlamaCppIgnores(entry.key))
                    continue;
                const auto changes = hostileChanges(entry.value);
                for (std::size_t i = 0; i < changes.size(); ++i)
                    QTest::newRow(qPrintable(folder + QLatin1Char(' ') + QString::fromUtf8(entry.key.data(), static_cast<qsizetype>(entry.key.size()))
                                             + QStringLiteral(": ") + QString::fromStdString(changes[i].label)))
                        << folder << QString::fromUtf8(entry.key.data(), static_cast<qsizetype>(entry.key.size())) << static_cast<int>(i);
            }
        }
    }

    void everyKeyOfEveryArchitectureIsTyped()
    {
        QFETCH(QString, folder);
        QFETCH(QString, key);
        QFETCH(int, change);
        const auto original = folderModel(folder);
        QVERIFY(original);
        QVERIFY(gguf::readHyperparameters(*original));
        const gguf::MetadataEntry* entry = original->findMetadata(key.toStdString());
        QVERIFY(entry);
        const Change chosen = hostileChanges(entry->value).at(static_cast<std::size_t>(change));
        const auto read = readEdited(folder, key, chosen.value);
        QVERIFY(read);
        QVERIFY2(!*read, qPrintable(key + QStringLiteral(" read as ") + QString::fromStdString(*read ? describe(**read) : std::string())));
        const std::string& message = read->error().message;
        QVERIFY2(message.find(key.toStdString() + " has type " + chosen.storedType) != std::string::npos, message.c_str());
    }

    // Keys llama.cpp does not read for the architecture: the pass does not read them either, so
    // the network stays the one llama.cpp runs.
    void keysLlamaCppIgnoresChangeNothing_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("type");
        // gemma4 routes the layers that have a router; it reads no leading_dense_block_count.
        QTest::newRow("gemma4 leading dense layers") << "gemma4" << "gemma4.leading_dense_block_count" << "1" << "u32";
        QTest::newRow("Mixtral-style llama weights scale") << "llama" << "llama.expert_weights_scale" << "2" << "f32";
        QTest::newRow("llama attention scale") << "llama" << "llama.attention.scale" << "0.5" << "f32";
        QTest::newRow("llama sliding window") << "llama" << "llama.attention.sliding_window" << "4" << "u32";
        QTest::newRow("gemma2 attention scale") << "gemma2" << "gemma2.attention.scale" << "0.5" << "f32";
        QTest::newRow("gpt-oss log multiplier") << "gpt-oss" << "gpt-oss.rope.scaling.yarn_log_multiplier" << "0.5" << "f32";
        QTest::newRow("gpt-oss YaRN beta") << "gpt-oss" << "gpt-oss.rope.scaling.yarn_beta_fast" << "8" << "f32";
        QTest::newRow("qwen3moe gating") << "qwen3moe" << "qwen3moe.expert_gating_func" << "2" << "u32";
        QTest::newRow("qwen3moe weights norm") << "qwen3moe" << "qwen3moe.expert_weights_norm" << "false" << "bool";
        QTest::newRow("qwen3moe leading dense layers") << "qwen3moe" << "qwen3moe.leading_dense_block_count" << "1" << "u32";
        QTest::newRow("qwen2 final softcap") << "qwen2" << "qwen2.final_logit_softcapping" << "2" << "f32";
        QTest::newRow("phi3 sliding window (disabled)") << "phi3" << "phi3.attention.sliding_window" << "4" << "u32";
        QTest::newRow("mistral3 vocab size") << "mistral3" << "mistral3.vocab_size" << "7" << "str";
        QTest::newRow("ernie4_5-moe shared count") << "ernie4_5-moe" << "ernie4_5-moe.expert_shared_count" << "7" << "str";
        QTest::newRow("deepseek2 shared width key") << "deepseek2" << "deepseek2.expert_shared_feed_forward_length" << "64" << "u32";
        // get_key_or_arr: an array of the same value for every layer is the same network.
        QTest::newRow("llama kv heads per layer") << "llama" << "llama.attention.head_count_kv" << "[2, 2, 2]" << "arr[u32]";
        QTest::newRow("gemma4-e pattern as i32") << "gemma4-e" << "gemma4.attention.sliding_window_pattern" << "[1, 1, 0, 1, 1, 0]" << "arr[i32]";
    }

    void keysLlamaCppIgnoresChangeNothing()
    {
        QFETCH(QString, folder);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, type);
        const auto original = folderModel(folder);
        QVERIFY(original);
        const auto before = gguf::readHyperparameters(*original);
        QVERIFY2(before, before ? "" : before.error().message.c_str());
        const auto after = readEdited(folder, key, typedValue(value, type));
        QVERIFY(after);
        QVERIFY2(*after, *after ? "" : after->error().message.c_str());
        QCOMPARE(QString::fromStdString(describe(**after)), QString::fromStdString(describe(*before)));
    }

    // Values llama.cpp refuses (wrong type, an assert, a missing required key) or that the pass
    // cannot run as llama.cpp does: refused, naming the key.
    void hostileValuesAreRefusedByName_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("expected");
        // The findings that ran another network with exit code 0.
        QTest::newRow("experts above LLAMA_MAX_EXPERTS") << "gemma4" << "gemma4.expert_count" << "4294967295" << "u32"
                                                         << "gemma4.expert_count has type u32 (4294967295)";
        QTest::newRow("rope dims as a string") << "qwen35" << "qwen35.rope.dimension_count" << "16" << "str"
                                               << "qwen35.rope.dimension_count has type string (\"16\"); the forward pass needs a u32";
        QTest::newRow("per-layer input width as f32") << "gemma4-e" << "gemma4.embedding_length_per_layer_input" << "16" << "f32"
                                                      << "gemma4.embedding_length_per_layer_input has type f32 (16)";
        QTest::newRow("final softcap NaN") << "gemma2" << "gemma2.final_logit_softcapping" << "nan" << "f32"
                                           << "gemma2.final_logit_softcapping has type f32 (nan)";
        // minimax-m2 has no default router (build_moe_ffn aborts without one).
        QTest::newRow("minimax-m2 without a router") << "minimax-m2" << "minimax-m2.expert_gating_func" << "" << "delete"
                                                     << "minimax-m2.expert_gating_func: llama.cpp has no default router";
        QTest::newRow("llama4 without chunks") << "llama4" << "llama4.attention.sliding_window" << "0" << "u32"
                                               << "0 turns llama4's chunks off";
        QTest::newRow("llama4 without experts") << "llama4" << "llama4.expert_count" << "0" << "u32" << "llama4.expert_used_count";
        QTest::newRow("ernie4_5-moe every other layer routed") << "ernie4_5-moe" << "ernie4_5-moe.interleave_moe_layer_step" << "2" << "u32"
                                                               << "ernie4_5-moe.interleave_moe_layer_step";
        // get_key<uint32_t> takes a u32 only.
        QTest::newRow("heads as i32") << "qwen3" << "qwen3.attention.head_count" << "4" << "i32" << "qwen3.attention.head_count has type i32";
        QTest::newRow("heads as u64") << "qwen3" << "qwen3.attention.head_count" << "4" << "u64" << "qwen3.attention.head_count has type u64";
        QTest::newRow("heads as bool") << "qwen3" << "qwen3.attention.head_count" << "true" << "bool" << "qwen3.attention.head_count has type bool";
        QTest::newRow("epsilon as f64") << "qwen3" << "qwen3.attention.layer_norm_rms_epsilon" << "1e-6" << "f64" << "has type f64";
        QTest::newRow("negative epsilon") << "llama" << "llama.attention.layer_norm_rms_epsilon" << "-1e-5" << "f32" << "layer_norm_rms_epsilon";
        QTest::newRow("context length as i32") << "deepseek2" << "deepseek2.context_length" << "16384" << "i32" << "deepseek2.context_length";
        // Required keys.
        QTest::newRow("no context length") << "llama" << "llama.context_length" << "" << "delete" << "needs metadata key llama.context_length";
        QTest::newRow("no gemma4 window") << "gemma4" << "gemma4.attention.sliding_window" << "" << "delete" << "gemma4.attention.sliding_window";
        QTest::newRow("no gpt-oss expert width") << "gpt-oss" << "gpt-oss.expert_feed_forward_length" << "" << "delete"
                                                 << "gpt-oss.expert_feed_forward_length";
        QTest::newRow("no gemma4 per-layer input width") << "gemma4" << "gemma4.embedding_length_per_layer_input" << "" << "delete"
                                                         << "gemma4.embedding_length_per_layer_input";
        // llama.cpp's asserts and checks.
        QTest::newRow("llama rope must cover the head") << "llama" << "llama.rope.dimension_count" << "16" << "u32" << "llama.rope.dimension_count";
        QTest::newRow("non-causal attention") << "llama" << "llama.attention.causal" << "false" << "bool" << "llama.attention.causal";
        QTest::newRow("routed experts without experts") << "llama" << "llama.expert_used_count" << "2" << "u32" << "llama.expert_used_count";
        QTest::newRow("more used experts than experts") << "qwen3moe" << "qwen3moe.expert_used_count" << "9" << "u32" << "qwen3moe.expert_used_count";
        QTest::newRow("every group used") << "deepseek2" << "deepseek2.expert_group_used_count" << "4" << "u32" << "deepseek2.expert_group_count";
        QTest::newRow("gating beyond the kinds run") << "deepseek2" << "deepseek2.expert_gating_func" << "4" << "u32"
                                                     << "deepseek2.expert_gating_func";
        QTest::newRow("attention temperature") << "deepseek2" << "deepseek2.attention.temperature_scale" << "0.1" << "f32"
                                               << "deepseek2.attention.temperature_scale";
        QTest::newRow("window of 0") << "gemma2" << "gemma2.attention.sliding_window" << "0" << "u32" << "gemma2.attention.sliding_window";
        QTest::newRow("attention softcap of 0") << "gemma2" << "gemma2.attn_logit_softcapping" << "0" << "f32" << "gemma2.attn_logit_softcapping";
        QTest::newRow("rope base of 0") << "qwen2" << "qwen2.rope.freq_base" << "0" << "f32" << "qwen2.rope.freq_base";
        QTest::newRow("unknown rope scaling") << "gemma3" << "gemma3.rope.scaling.type" << "longrope" << "str" << "gemma3.rope.scaling.type";
        QTest::newRow("interval of 0") << "qwen35" << "qwen35.full_attention_interval" << "0" << "u32" << "qwen35.full_attention_interval";
        QTest::newRow("three rope sections") << "qwen35" << "qwen35.rope.dimension_sections" << "[3, 3, 2]" << "arr[i32]"
                                             << "qwen35.rope.dimension_sections";
        QTest::newRow("GLM multimodal rope") << "glm4moe" << "glm4moe.rope.dimension_sections" << "[4, 4, 4, 0]" << "arr[i32]"
                                             << "glm4moe.rope.dimension_sections";
        QTest::newRow("kv heads differing per layer") << "qwen3" << "qwen3.attention.head_count_kv" << "[1, 2]" << "arr[u32]"
                                                      << "qwen3.attention.head_count_kv";
        QTest::newRow("pattern one layer short") << "gemma4-e" << "gemma4.attention.sliding_window_pattern" << "[true, true, false, true, true]"
                                                 << "arr[bool]" << "gemma4.attention.sliding_window_pattern";
        QTest::newRow("per-layer pattern for gemma2") << "gemma2" << "gemma2.attention.sliding_window_pattern" << "[true, false, true, false]"
                                                      << "arr[bool]" << "gemma2.attention.sliding_window_pattern";
        QTest::newRow("sliding head of another size") << "gemma3" << "gemma3.attention.key_length_swa" << "32" << "u32"
                                                      << "gemma3.attention.key_length_swa";
        QTest::newRow("all of the layers NextN") << "glm4moe" << "glm4moe.nextn_predict_layers" << "4" << "u32" << "glm4moe.nextn_predict_layers";
        // Tensors that are not what the keys say: llama.cpp refuses the file.
        QTest::newRow("NextN for an architecture without") << "llama" << "llama.nextn_predict_layers" << "1" << "u32"
                                                          << "llama.nextn_predict_layers";
        QTest::newRow("NextN block left in the trunk") << "glm4moe" << "glm4moe.nextn_predict_layers" << "" << "delete"
                                                       << "block 3 holds NextN tensors";
        QTest::newRow("per-layer inputs left unused") << "gemma4-e" << "gemma4.embedding_length_per_layer_input" << "0" << "u32"
                                                      << "gemma4.embedding_length_per_layer_input";
        QTest::newRow("general.name as a number") << "qwen2" << "general.name" << "1" << "u32" << "general.name has type u32";
    }

    void hostileValuesAreRefusedByName()
    {
        QFETCH(QString, folder);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, type);
        QFETCH(QString, expected);
        const auto read = readEdited(folder, key, typedValue(value, type));
        QVERIFY(read);
        QVERIFY2(!*read, qPrintable(QString::fromStdString(*read ? describe(**read) : std::string())));
        QVERIFY2(read->error().message.find(expected.toStdString()) != std::string::npos, read->error().message.c_str());
    }

    // NextN blocks declared without their tensors (no blk.<n_layer>.nextn.eh_proj): the trunk
    // alone, which llama.cpp loads where its loader has trunk_only (hy_v3, step35, mimo2, glm4moe,
    // deepseek2), and refuses elsewhere (qwen3next: a missing tensor). 0 layers: refused.
    void nextnWithoutTensors_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("layers");
        QTest::newRow("hy_v3, one more NextN block than stored") << "hy_v3" << "hy_v3.nextn_predict_layers" << "2" << 5;
        QTest::newRow("step35, declared without any") << "step35" << "step35.nextn_predict_layers" << "1" << 5;
        QTest::newRow("qwen3next refuses") << "qwen3next" << "qwen3next.nextn_predict_layers" << "1" << 0;
    }

    void nextnWithoutTensors()
    {
        QFETCH(QString, folder);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(int, layers);
        const auto read = readEdited(folder, key, typedValue(value, QStringLiteral("u32")));
        QVERIFY(read);
        if (layers == 0) {
            QVERIFY(!*read);
            QVERIFY2(read->error().message.find("has no NextN tensors") != std::string::npos, read->error().message.c_str());
            return;
        }
        QVERIFY2(*read, *read ? "" : read->error().message.c_str());
        QCOMPARE((*read)->layerCount, std::int64_t{layers});
    }

    // The memory estimate reads the keys it shares with the pass through the same reader: the
    // same refusal, the same sliding layers.
    void estimateReadsKeysAsThePass_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("refusal");  // empty: both accept it
        QTest::newRow("key length as a string") << "qwen35" << "qwen35.attention.key_length" << "64" << "str"
                                                << "qwen35.attention.key_length has type string";
        QTest::newRow("kv heads as i32") << "gemma3" << "gemma3.attention.head_count_kv" << "1" << "i32"
                                         << "gemma3.attention.head_count_kv has type i32";
        QTest::newRow("window as f32") << "gemma2" << "gemma2.attention.sliding_window" << "16" << "f32"
                                       << "gemma2.attention.sliding_window has type f32";
        QTest::newRow("block count above 512") << "llama" << "llama.block_count" << "513" << "u32" << "llama.block_count has type u32 (513)";
        QTest::newRow("interval of 0") << "qwen35" << "qwen35.full_attention_interval" << "0" << "u32" << "qwen35.full_attention_interval";
        QTest::newRow("gemma4 pattern as one flag") << "gemma4" << "gemma4.attention.sliding_window_pattern" << "1" << "u32" << "";
        QTest::newRow("gemma2 period 0") << "gemma2" << "gemma2.attention.sliding_window_pattern" << "0" << "u32" << "";
    }

    void estimateReadsKeysAsThePass()
    {
        QFETCH(QString, folder);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, type);
        QFETCH(QString, refusal);
        const auto pass = readEdited(folder, key, typedValue(value, type));
        const auto estimate = estimateEdited(folder, key, typedValue(value, type));
        QVERIFY(pass && estimate);
        if (!refusal.isEmpty()) {
            QVERIFY(!*pass && !*estimate);
            QVERIFY2(pass->error().message.find(refusal.toStdString()) != std::string::npos, pass->error().message.c_str());
            QVERIFY2(estimate->error().message.find(refusal.toStdString()) != std::string::npos, estimate->error().message.c_str());
            return;
        }
        QVERIFY2(*pass, *pass ? "" : pass->error().message.c_str());
        QVERIFY2(*estimate, *estimate ? "" : estimate->error().message.c_str());
        QCOMPARE((**estimate).layers.size(), static_cast<std::size_t>((**pass).layerCount));
        for (std::int64_t il = 0; il < (**pass).layerCount; ++il)
            QCOMPARE((**estimate).layers[static_cast<std::size_t>(il)].slidingWindow, (**pass).isSlidingLayer(il));
    }

    // Keys llama.cpp reads that change the network as llama.cpp changes it.
    void keysLlamaCppReadsAreRead_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("field");
        QTest::addColumn<double>("expected");
        // rope.scaling.attn_factor scales rope's cos and sin with or without YaRN.
        QTest::newRow("attention factor without YaRN") << "llama" << "llama.rope.scaling.attn_factor" << "2" << "f32" << "ropeAttnFactor" << 2.0;
        // gemma4 without the key softcaps at 30, llama.cpp's default.
        QTest::newRow("gemma4 default final softcap") << "gemma4" << "gemma4.final_logit_softcapping" << "" << "delete" << "finalSoftcap" << 30.0;
        // sliding_window_pattern 0: every layer slides (llama_hparams::set_swa_pattern).
        QTest::newRow("period 0") << "gemma2" << "gemma2.attention.sliding_window_pattern" << "0" << "u32" << "slidingLayers" << 4.0;
        // gemma4's pattern as one value: that flag for every layer, not a period.
        QTest::newRow("gemma4 pattern as one flag") << "gemma4" << "gemma4.attention.sliding_window_pattern" << "1" << "u32" << "slidingLayers"
                                                    << 5.0;
    }

    void keysLlamaCppReadsAreRead()
    {
        QFETCH(QString, folder);
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, type);
        QFETCH(QString, field);
        QFETCH(double, expected);
        const auto edited = readEdited(folder, key, typedValue(value, type));
        QVERIFY(edited);
        QVERIFY2(*edited, *edited ? "" : edited->error().message.c_str());
        const gguf::ModelHyperparameters& read = **edited;
        double slidingLayers = 0.0;
        for (std::int64_t il = 0; il < read.layerCount; ++il)
            slidingLayers += read.isSlidingLayer(il) ? 1.0 : 0.0;
        const std::map<QString, double> fields{
            {QStringLiteral("ropeAttnFactor"), read.ropeAttnFactor},
            {QStringLiteral("finalSoftcap"), read.finalSoftcap},
            {QStringLiteral("slidingLayers"), slidingLayers},
        };
        QVERIFY(fields.count(field) == 1);
        QCOMPARE(fields.at(field), expected);
    }
};

QTEST_GUILESS_MAIN(HyperparametersTest)
#include "tst_hyperparameters.moc"
