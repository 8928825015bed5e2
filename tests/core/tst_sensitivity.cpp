// The sensitivity scan on the tiny fixtures. A pass resumed at layer L from a reference's
// residual stream gives the whole pass's logits bit for bit; a probe's figures are the `kld`
// workflow's for the model with only that tensor quantized; shards merged, a reversed executor
// and a scan stopped and resumed all give the one-process scan's file byte for byte; hostile scan
// files are refused with a reason; a plan chosen by the scan is at least as good, measured on
// held-out tokens, as the presets of its size and as the weight-error plan.

#include "Fixtures.h"
#include "OpenFixture.h"
#include "app/threads/ParallelRows.h"
#include "core/forward/OutputComparisonRun.h"
#include "core/forward/SimulatedQuantization.h"
#include "core/imatrix/ImportanceMatrix.h"
#include "core/recipe/MixPlanner.h"
#include "core/sensitivity/HeldOutCheck.h"
#include "core/sensitivity/ScanComparison.h"
#include "core/sensitivity/ScanCostCurve.h"
#include "core/sensitivity/ScanCosts.h"
#include "core/sensitivity/ScanFile.h"
#include "core/sensitivity/ScanGrid.h"
#include "core/sensitivity/ScanLayers.h"
#include "core/tokenize/Tokenizer.h"
#include "core/types/GgmlType.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <functional>
#include <fstream>
#include <sstream>

using namespace gguf;
using testsupport::fixturePath;

namespace {

constexpr std::int64_t kChunk = 64;

std::vector<std::int32_t> textTokens(const Model& model, std::size_t skipBytes, std::size_t bytes)
{
    std::ifstream in("/usr/share/common-licenses/GPL-3", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto tokenizer = Tokenizer::fromModel(model);
    if (!tokenizer)
        return {};
    return tokenizer.value().encode(text.str().substr(skipBytes, bytes), true, true);
}

std::int32_t bosOf(const Model& model)
{
    const auto bos = model.metadataUInt("tokenizer.ggml.bos_token_id");
    return bos ? static_cast<std::int32_t>(*bos) : -1;
}

ImportanceLookup lookupOf(std::shared_ptr<const ImportanceMatrix> matrix)
{
    return [matrix](std::string_view name, std::size_t expert) {
        const ImportanceEntry* entry = matrix->find(name);
        return entry ? entry->quantWeights(expert) : std::vector<float>{};
    };
}

using TypeMap = std::unordered_map<std::string, std::uint32_t>;

// Mean KLD of the reference with the tensors of `types` quantized, on `tokens` in chunks.
double measuredKld(const Model& model, const TypeMap& types, const ImportanceLookup& importance, std::span<const std::int32_t> tokens)
{
    OutputCandidate candidate;
    candidate.label = "mix";
    candidate.simulation.recipeTypes = std::make_shared<TypeMap>(types);
    candidate.simulation.importance = importance;
    OutputRunOptions options;
    options.executor = &gguf::ParallelRows::shared();
    options.chunkSize = kChunk;
    options.bosToken = bosOf(model);
    auto run = compareModelOutputs(model, {candidate}, tokens, options);
    return run ? run->comparisons[0].kld.mean : -1.0;
}

TypeMap typesOf(const ErrorTable& table, const Mix& mix)
{
    TypeMap types;
    for (std::size_t t = 0; t < table.tensors.size(); ++t)
        types[std::string(table.tensors[t].tensor->name)] = mix.types[t];
    return types;
}


// `text` with the value of the `occurrence`-th `"key":` replaced by `value`; `at` gets where the
// value starts.
std::string withValue(const std::string& text, const std::string& key, int occurrence, const std::string& value, std::size_t& at)
{
    std::size_t found = std::string::npos;
    for (int i = 0; i <= occurrence; ++i)
        found = text.find("\"" + key + "\":", found == std::string::npos ? 0 : found + 1);
    if (found == std::string::npos)
        return text;
    at = found + key.size() + 3;
    const std::size_t end = text.find_first_of(",}", at);
    return text.substr(0, at) + value + text.substr(end);
}

// A scan file edited one way, what the reader must say, and where.
struct EditedScanFile {
    const char* name;
    std::string key;      // the value of this key (empty: no edit)
    int occurrence;
    std::string value;
    std::string expected;
    bool checkOffset;     // the error is at the edited value's first byte
    std::size_t maxGroups;
};

const std::vector<EditedScanFile>& editedScanFiles()
{
    static const std::vector<EditedScanFile> cases = {
        {"kld nan", "kld", 0, "\"nan\"", "probe 0 (output.weight as q4_K): \"kld\" is nan", true, kMaxScanGroups},
        {"kld -inf", "kld", 1, "\"-inf\"", "probe 1 (output.weight as q8_0): \"kld\" is -inf", true, kMaxScanGroups},
        {"kld negative", "kld", 2, "-0.001", "\"kld\" is -0.001, not a mean KL divergence", true, kMaxScanGroups},
        {"kld_error inf", "kld_error", 0, "\"inf\"", "\"kld_error\" is inf", true, kMaxScanGroups},
        {"same_top above 1", "same_top", 3, "1.5", "\"same_top\" is 1.5", true, kMaxScanGroups},
        {"delta_p below -1", "delta_p", 0, "-2", "\"delta_p\" is -2", true, kMaxScanGroups},
        {"probe twice", "type", 1, "\"q4_K\"", "probe 1 (output.weight as q4_K) comes twice", false, kMaxScanGroups},
        {"type not scanned", "type", 0, "\"q6_K\"", "probe 0: type q6_K is not one of \"types\"", true, kMaxScanGroups},
        {"group not in the file", "group", 2, "99", "probe 2 names no group", true, kMaxScanGroups},
        {"two groups of a tensor", "tensor", 1, "\"output.weight\"", "two groups of tensor output.weight", false, kMaxScanGroups},
        {"tensor name too long", "tensor", 0, "\"" + std::string(65, 'a') + "\"", "\"tensor\" is longer than 64 bytes", true, kMaxScanGroups},
        {"probes_total", "probes_total", 0, "31", "\"probes_total\" says 31, the file has 32", false, kMaxScanGroups},
        {"chunk and scored", "chunk_size", 0, "32", "\"scored_per_chunk\" is not the second half", false, kMaxScanGroups},
        {"tokens not chunks", "tokens", 0, "100", "not a whole number of chunks", false, kMaxScanGroups},
        {"fingerprint", "fingerprint", 0, "\"abc\"", "\"fingerprint\" is not a SHA-256", true, kMaxScanGroups},
        {"duplicate key", "shard", 0, "", "\"types\" twice", false, kMaxScanGroups},
        {"more groups than the model has", "", 0, "", "more groups than the model has tensors (3)", false, 3},
    };
    return cases;
}

}  // namespace

class TestSensitivity : public QObject {
    Q_OBJECT

    std::shared_ptr<const Model> m_llama;
    std::vector<std::int32_t> m_calibration;
    std::vector<std::int32_t> m_heldOut;
    std::unique_ptr<SensitivityScan> m_small;  // q4_K and q8_0 over two chunks
    ScanRecord m_smallWhole;                    // m_small measured in one process, in order

    std::unique_ptr<SensitivityScan> smallScan()
    {
        ScanOptions options;
        options.executor = &gguf::ParallelRows::shared();
        options.types = {typeIdValue(GgmlTypeId::Q4_K), typeIdValue(GgmlTypeId::Q8_0)};
        options.chunkSize = kChunk;
        options.bosToken = bosOf(*m_llama);
        options.maxTokens = 2 * kChunk;
        auto scan = SensitivityScan::prepare(*m_llama, m_calibration, options);
        if (!scan)
            qWarning("%s", scan.error().toString().c_str());
        return scan ? std::move(*scan) : nullptr;
    }

private slots:
    void initTestCase()
    {
        m_llama = testsupport::openModelAt(fixturePath("tiny-llama-F32.gguf"));
        QVERIFY(m_llama);
        m_calibration = textTokens(*m_llama, 0, 17000);
        m_heldOut = textTokens(*m_llama, 17000, 4000);
        QVERIFY(m_calibration.size() > 4 * kChunk);
        QVERIFY(m_heldOut.size() > 4 * kChunk);
        m_small = smallScan();
        QVERIFY(m_small);
        m_smallWhole = emptyRecord(*m_small);
        QVERIFY(runScan(*m_small, m_smallWhole, {}));
        QCOMPARE(m_smallWhole.measured(), m_smallWhole.probes.size());
    }

    // Layers L.. from the residual entering L, with weights changed only there and later: the
    // logits of the whole pass, to the bit (dense and MoE; a block and the output alone).
    void resumedPassIsTheWholePass()
    {
        for (const char* file : {"tiny-llama-F32.gguf", "tiny-moe-F16.gguf"}) {
            const auto model = testsupport::openModelAt(fixturePath(file));
            QVERIFY(model);
            const std::vector<std::int32_t> tokens(m_calibration.begin(), m_calibration.begin() + 48);
            auto reference = runForward(*model, tokens);
            QVERIFY2(reference, reference ? "" : reference.error().toString().c_str());
            const std::int64_t layers = reference->hyperparameters.layerCount;
            const std::string blockTensor = model->findTensor("blk.1.ffn_down_exps.weight") ? "blk.1.ffn_down_exps.weight" : "blk.1.ffn_down.weight";
            for (const auto& [tensor, first] : {std::pair{blockTensor, std::int64_t{1}}, std::pair{std::string("output.weight"), layers}}) {
                SimulationSpec spec;
                spec.recipeTypes = std::make_shared<TypeMap>(TypeMap{{tensor, typeIdValue(GgmlTypeId::Q4_K)}});
                ForwardOptions whole;
                whole.executor = &gguf::ParallelRows::shared();
                whole.transform = simulatedQuantization(spec, &gguf::ParallelRows::shared());
                auto full = runForward(*model, tokens, whole);
                QVERIFY(full);
                ForwardOptions resumed = whole;
                resumed.firstLayer = first;
                resumed.startResidual = reference->hiddenAt(first - 1);
                auto part = runForward(*model, tokens, resumed);
                QVERIFY2(part, part ? "" : part.error().toString().c_str());
                QCOMPARE(part->logits.size(), full->logits.size());
                QVERIFY2(std::memcmp(part->logits.data(), full->logits.data(), full->logits.size() * sizeof(float)) == 0, file);
                QVERIFY(full->logits != reference->logits);  // the quantization did change them
            }
            ForwardOptions wrong;
            wrong.executor = &gguf::ParallelRows::shared();
            wrong.firstLayer = 1;
            wrong.startResidual = std::span<const float>(reference->hidden).first(10);
            auto refused = runForward(*model, tokens, wrong);
            QVERIFY(!refused);
            QVERIFY(refused.error().message.find("residual stream") != std::string::npos);
            wrong.firstLayer = layers + 1;
            QVERIFY(!runForward(*model, tokens, wrong));
        }
    }

    // A probe's figures are those of `kld` with only its tensor quantized.
    void probeIsTheKldWorkflow()
    {
        const auto& scan = m_small;
        QCOMPARE(scan->groups().size(), std::size_t(16));
        QCOMPARE(scan->probes().size(), std::size_t(32));
        QCOMPARE(scan->groups().front().tensor, std::string("output.weight"));
        QCOMPARE(scan->groups().front().firstLayer, std::int64_t(2));
        for (const std::size_t index : {std::size_t(0), std::size_t(9), std::size_t(31)}) {
            const ProbeKey& probe = scan->probes()[index];
            auto figures = scan->runProbe(index);
            QVERIFY2(figures, figures ? "" : figures.error().toString().c_str());
            const std::vector<std::int32_t> tokens(m_calibration.begin(), m_calibration.begin() + 2 * kChunk);
            const double kld = measuredKld(*m_llama, {{scan->groups()[probe.group].tensor, probe.type}}, {}, tokens);
            QCOMPARE(figures->meanKld, kld);
            QVERIFY(figures->meanKld > 0);
            QCOMPARE(figures->positions, std::int64_t(2 * (kChunk - 1 - kChunk / 2)));
            QVERIFY(figures->sameTopFraction > 0.5 && figures->sameTopFraction <= 1.0);
        }
    }

    // --shard I/N parts merged, and a reversed executor, give the one-process scan's file.
    void shardsMergeToTheWholeScan()
    {
        const auto& scan = m_small;
        const ScanRecord& whole = m_smallWhole;
        const std::string wholeJson = scanRecordJson(whole);

        QTemporaryDir dir;
        std::vector<ScanRecord> parts;
        std::size_t total = 0;
        for (std::size_t shard = 0; shard < 3; ++shard) {
            ScanRecord part = emptyRecord(*scan);
            part.shard = std::to_string(shard + 1) + "/3";
            ScanRunOptions options;
            options.shard = shard;
            options.shardCount = 3;
            QVERIFY(runScan(*scan, part, options));
            total += part.measured();
            QVERIFY(part.measured() < part.probes.size());
            const std::string path = dir.filePath(QStringLiteral("part%1.json").arg(shard)).toStdString();
            QVERIFY(writeScanFile(path, part));
            auto back = readScanFile(path);
            QVERIFY2(back, back ? "" : back.error().toString().c_str());
            QCOMPARE(scanRecordJson(*back), scanRecordJson(part));
            parts.push_back(std::move(*back));
        }
        QCOMPARE(total, whole.probes.size());
        auto merged = mergeScanRecords(parts);
        QVERIFY2(merged, merged ? "" : merged.error().toString().c_str());
        QCOMPARE(scanRecordJson(*merged), wholeJson);

        ScanRecord reversed = emptyRecord(*scan);
        ScanRunOptions backwards;
        backwards.executor = [](std::size_t count, const std::function<bool(std::size_t)>& run) {
            for (std::size_t i = count; i-- > 0;)
                run(i);
        };
        QVERIFY(runScan(*scan, reversed, backwards));
        QCOMPARE(scanRecordJson(reversed), wholeJson);

        // A part of another scan does not merge.
        ScanRecord other = parts[1];
        other.identity.fingerprint = "0";
        QVERIFY(!mergeScanRecords({parts[0], other}));
        ScanRecord changed = parts[0];
        for (auto& figures : changed.figures)
            if (figures)
                figures->meanKld += 1e-12;
        QVERIFY(!mergeScanRecords({parts[0], changed}));
    }

    // Stopped half way (as by a kill after the file was last written), the scan resumes from its
    // file and ends with the uninterrupted scan's figures.
    void resumesFromThePartialFile()
    {
        const auto& scan = m_small;
        const ScanRecord& whole = m_smallWhole;

        QTemporaryDir dir;
        const std::string path = dir.filePath("scan.json").toStdString();
        std::atomic<bool> cancel{false};
        ScanRecord first = emptyRecord(*scan);
        ScanRunOptions options;
        options.cancel = &cancel;
        std::size_t saved = 0;
        options.checkpoint = [&](const ScanRecord& partial) {
            if (++saved == 5)
                cancel = true;
            return writeScanFile(path, partial);
        };
        std::size_t lastDone = 0, lastTotal = 0;
        options.progress = [&](std::size_t done, std::size_t total, double) {
            lastDone = done;
            lastTotal = total;
        };
        Status stopped = runScan(*scan, first, options);
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().message, std::string(kForwardCancelled));
        QCOMPARE(lastDone, std::size_t(5));
        QCOMPARE(lastTotal, whole.probes.size());

        auto partial = readScanFile(path);
        QVERIFY(partial);
        QCOMPARE(partial->measured(), std::size_t(5));
        QVERIFY(!applyScanCosts(*std::make_unique<ErrorTable>(), *partial));  // a partial scan plans nothing
        ScanRecord resumed = *partial;
        std::size_t measuredNow = 0;
        ScanRunOptions again;
        again.progress = [&](std::size_t done, std::size_t, double) { measuredNow = done; };
        QVERIFY(runScan(*scan, resumed, again));
        QCOMPARE(measuredNow, whole.probes.size() - 5);  // only what the file lacked
        QCOMPARE(scanRecordJson(resumed), scanRecordJson(whole));
    }

    // The passes' arithmetic is a setting of the scan: its activations and its KV cache are in
    // its fingerprint (a file made with others is not resumed) and named in the file; a file
    // without the activations was made before the default became q8 activations, with f32
    // ones, and one without the attention with an f32 cache (flash attention off in llama.cpp's
    // arithmetic, else plain f32 attention).
    void activationArithmeticIsASetting()
    {
        QCOMPARE(m_small->identity().activations, std::string("llama.cpp"));
        QCOMPARE(m_small->identity().attention, std::string("K f16, V f16, flash attention on"));
        ScanOptions options;  // smallScan's, but for the arithmetic
        options.executor = &gguf::ParallelRows::shared();
        options.types = {typeIdValue(GgmlTypeId::Q4_K), typeIdValue(GgmlTypeId::Q8_0)};
        options.chunkSize = kChunk;
        options.bosToken = bosOf(*m_llama);
        options.maxTokens = 2 * kChunk;
        options.kvCache = {typeIdValue(GgmlTypeId::Q8_0), typeIdValue(GgmlTypeId::Q8_0), FlashAttention::Auto};
        auto q8Cache = SensitivityScan::prepare(*m_llama, m_calibration, options);
        QVERIFY(q8Cache);
        QCOMPARE((*q8Cache)->identity().attention, std::string("K q8_0, V q8_0, flash attention on"));
        QVERIFY((*q8Cache)->identity().fingerprint != m_small->identity().fingerprint);
        options.kvCache = {};
        options.activations = ActivationArithmetic::Float32;
        auto f32 = SensitivityScan::prepare(*m_llama, m_calibration, options);
        QVERIFY(f32);
        QCOMPARE((*f32)->identity().activations, std::string("f32"));
        QCOMPARE((*f32)->identity().attention, std::string("K f32, V f32, plain f32 attention"));
        QVERIFY((*f32)->identity().fingerprint != m_small->identity().fingerprint);

        const std::string text = scanRecordJson(emptyRecord(*m_small));
        const std::string key = "\"activations\":\"llama.cpp\",";
        const std::string attention = "\"attention\":\"K f16, V f16, flash attention on\",";
        QVERIFY(text.find(key) != std::string::npos && text.find(attention) != std::string::npos);
        auto parsed = parseScanRecord(text, "x");
        QVERIFY(parsed);
        QCOMPARE(parsed->identity.activations, std::string("llama.cpp"));
        QCOMPARE(parsed->identity.attention, std::string("K f16, V f16, flash attention on"));
        auto withoutAttention = parseScanRecord(std::string(text).erase(text.find(attention), attention.size()), "x");
        QVERIFY(withoutAttention);
        QCOMPARE(withoutAttention->identity.attention, std::string("K f32, V f32, flash attention off"));
        auto older = parseScanRecord(std::string(text).erase(text.find(attention), attention.size()).erase(text.find(key), key.size()), "x");
        QVERIFY(older);
        QCOMPARE(older->identity.activations, std::string("f32"));
        QCOMPARE(older->identity.attention, std::string("K f32, V f32, plain f32 attention"));
        QVERIFY(!parseScanRecord(std::string(text).replace(text.find(key), key.size(), "\"activations\":1,"), "x"));
        QVERIFY(!parseScanRecord(std::string(text).replace(text.find(attention), attention.size(), "\"attention\":1,"), "x"));
    }

    // Each thing wrong in a scan file is refused as it is read, naming it (the probe and the
    // value for a figure), at the byte of the value when the value is at fault; from a file as
    // from memory.
    void scanFilesRefusedAtTheFault_data()
    {
        QTest::addColumn<int>("row");
        for (std::size_t i = 0; i < editedScanFiles().size(); ++i)
            QTest::newRow(editedScanFiles()[i].name) << int(i);
    }

    void scanFilesRefusedAtTheFault()
    {
        QFETCH(int, row);
        const EditedScanFile& edit = editedScanFiles()[std::size_t(row)];
        const std::string good = scanRecordJson(m_smallWhole);
        QVERIFY(parseScanRecord(good, "x"));
        std::size_t at = 0;
        std::string text = good;
        if (std::string(edit.name) == "duplicate key")
            text.insert(text.find("\"groups\":"), "\"types\":[],");
        else if (!edit.key.empty())
            text = withValue(good, edit.key, edit.occurrence, edit.value, at);
        QVERIFY(text != good || edit.key.empty());
        ScanFileLimits limits;
        if (edit.maxGroups != kMaxScanGroups) {
            limits.maxGroups = edit.maxGroups;
            limits.groupsBound = "the model has tensors (3)";
            std::size_t fourth = 0;
            for (int i = 0; i < 4; ++i)
                fourth = good.find("{\"tensor\":", fourth + 1);
            at = fourth;
        }
        QTemporaryDir dir;
        const std::string path = dir.filePath("edited.json").toStdString();
        std::ofstream(path, std::ios::binary) << text;
        for (const auto& parsed : {parseScanRecord(text, path, limits), readScanFile(path, limits)}) {
            QVERIFY2(!parsed, edit.name);
            const std::string message = parsed.error().toString();
            QVERIFY2(message.find(edit.expected) != std::string::npos, message.c_str());
            QVERIFY2(message.starts_with(path + ": not a scan file: "), message.c_str());
            if (edit.checkOffset || edit.maxGroups != kMaxScanGroups)
                QCOMPARE(parsed.error().offset, std::uint64_t(at));
            else
                QVERIFY(parsed.error().offset <= text.size());
        }
    }

    // A scan of another model (tiny-moe's, tiny-llama's with other shapes or tensors) is refused
    // for planning and merging, naming what differs; so is one made with another imatrix.
    void scanOfAnotherModelIsRefused()
    {
        QVERIFY(checkScanForModel(m_smallWhole, *m_llama, {}));
        const auto moe = testsupport::openModelAt(fixturePath("tiny-moe-F16.gguf"));
        QVERIFY(moe);
        ScanOptions options;
        options.executor = &gguf::ParallelRows::shared();
        options.types = {typeIdValue(GgmlTypeId::Q4_K), typeIdValue(GgmlTypeId::Q8_0)};
        options.chunkSize = kChunk;
        options.bosToken = bosOf(*moe);
        options.maxTokens = kChunk;
        auto moeScan = SensitivityScan::prepare(*moe, m_calibration, options);
        QVERIFY(moeScan);
        const ScanRecord moeRecord = emptyRecord(**moeScan);
        const auto refusal = [](const Status& status) { return status ? std::string() : status.error().message; };
        const std::string byLlama = refusal(checkScanForModel(moeRecord, *m_llama, {}));
        QVERIFY2(byLlama.find("the scan is of another model") != std::string::npos && byLlama.find("is not a tensor of this one") != std::string::npos,
                 byLlama.c_str());
        QVERIFY(!refusal(checkScanForModel(m_smallWhole, *moe, {})).empty());

        ScanRecord shapes = m_smallWhole;  // every group still a tensor of the model, the rest not
        shapes.identity.parts.tensors = std::string(64, '0');
        QVERIFY(refusal(checkScanForModel(shapes, *m_llama, {})).find("its tensor names or shapes differ") != std::string::npos);
        ScanRecord elements = m_smallWhole;
        elements.groups[3].elements *= 2;
        const std::string wrongElements = refusal(checkScanForModel(elements, *m_llama, {}));
        QVERIFY2(wrongElements.find(elements.groups[3].tensor + " has " + std::to_string(elements.groups[3].elements) + " elements")
                     != std::string::npos,
                 wrongElements.c_str());

        auto merged = mergeScanRecords({m_smallWhole, moeRecord});
        QVERIFY(!merged);
        QVERIFY2(merged.error().message.find("part 2 is not a part of the scan part 1 is of: the model's tensor names or shapes differ")
                     != std::string::npos,
                 merged.error().message.c_str());

        // An imatrix scan planned with the same imatrix, and with other weights.
        auto loaded = ImportanceMatrix::load(fixturePath("llama.cpp/tiny-llama.imatrix.gguf").toStdString());
        QVERIFY(loaded);
        const ImportanceLookup importance = lookupOf(std::make_shared<ImportanceMatrix>(std::move(*loaded)));
        ScanOptions withImatrix;
        withImatrix.executor = &gguf::ParallelRows::shared();
        withImatrix.types = {typeIdValue(GgmlTypeId::Q4_K)};
        withImatrix.chunkSize = kChunk;
        withImatrix.maxTokens = kChunk;
        withImatrix.importance = importance;
        auto weighted = SensitivityScan::prepare(*m_llama, m_calibration, withImatrix);
        QVERIFY(weighted);
        const ScanRecord weightedRecord = emptyRecord(**weighted);
        QVERIFY(checkScanForModel(weightedRecord, *m_llama, importance));
        const ImportanceLookup doubled = [importance](std::string_view name, std::size_t expert) {
            std::vector<float> weights = importance(name, expert);
            for (float& w : weights)
                w *= 2;
            return weights;
        };
        QVERIFY(refusal(checkScanForModel(weightedRecord, *m_llama, doubled)).find("another importance matrix") != std::string::npos);
    }

    // A part that is not of the first part's scan is refused, naming the first difference, even
    // when its fingerprint was left as it was.
    void mergeNamesTheFirstDifference()
    {
        const ScanRecord& whole = m_smallWhole;
        QVERIFY(scanDifference({whole, "a"}, {whole, "b"}, true).empty());
        const std::vector<std::pair<std::function<void(ScanRecord&)>, std::string>> edits = {
            {[](ScanRecord& r) { r.identity.tokens += kChunk; }, "the tokens differ: part 2 has 192, part 1 128"},
            {[](ScanRecord& r) { r.identity.chunkSize = 32, r.identity.scoredPerChunk = 15; }, "the chunks differ: part 2 has chunks of 32"},
            {[](ScanRecord& r) { r.probes[5].type = typeIdValue(GgmlTypeId::Q6_K); }, "probe 5's labels differ"},
            {[](ScanRecord& r) { r.groups[2].tensor = "blk.9.attn_q.weight"; }, "group 2's tensors differ: part 2 has blk.9.attn_q.weight"},
            {[](ScanRecord& r) { r.groups[2].elements += 256; }, "group 2's tensors differ"},
            {[](ScanRecord& r) { r.identity.model = "/elsewhere/model.gguf"; }, "the models differ: part 2 has /elsewhere/model.gguf"},
            {[](ScanRecord& r) { r.identity.activations = "f32"; }, "the activation arithmetics differ: part 2 has f32"},
            {[](ScanRecord& r) { r.identity.types.pop_back(); }, "the types differ: part 2 has q4_K, part 1 q4_K,q8_0"},
            {[](ScanRecord& r) { r.identity.importance = "other.imatrix"; }, "the importance matrices differ"},
            {[](ScanRecord& r) { r.identity.parts.text = std::string(64, 'f'); }, "the text differs (other tokens)"},
            {[](ScanRecord& r) { r.identity.parts.arithmetic = std::string(64, 'f'); }, "the arithmetic differs"},
            {[](ScanRecord& r) { r.identity.fingerprint = std::string(64, 'f'); }, "the fingerprint differs"},
        };
        for (const auto& [edit, expected] : edits) {
            ScanRecord part = whole;
            edit(part);
            auto merged = mergeScanRecords({whole, part});
            QVERIFY2(!merged, expected.c_str());
            QVERIFY2(merged.error().message.find(expected) != std::string::npos, merged.error().message.c_str());
        }
    }

    // --layers: ascending, each block once; a block past the model's is refused before any range
    // is expanded (0-1048576 on two blocks), and many ranges take time linear in the text.
    // A NextN block after the trunk (glm4moe's blk.3) is not run for the logits: the scan leaves
    // its tensors out rather than refusing the model.
    void nextnBlocksAreNotProbed()
    {
        const auto model = testsupport::openModelAt(fixturePath("llama.cpp/arch/glm4moe/glm4moe-F32.gguf"));
        QVERIFY(model);
        std::vector<std::int32_t> tokens;
        for (std::int32_t i = 0; i < 32; ++i)
            tokens.push_back(3 + i * 7 % 300);
        ScanOptions options;
        options.chunkSize = 32;
        options.layers = {0};
        options.types = {8};  // q8_0
        auto scan = SensitivityScan::prepare(*model, tokens, options);
        QVERIFY2(scan, scan ? "" : scan.error().toString().c_str());
        QVERIFY(!(*scan)->groups().empty());
        for (const ScanGroup& group : (*scan)->groups())
            QVERIFY2(group.layer < 3, group.tensor.c_str());
    }

    void layerLists()
    {
        QCOMPARE(*parseLayerList("1,0,0-1", 2), (std::vector<std::int64_t>{0, 1}));
        QCOMPARE(*parseLayerList("3,5-6,4-5", 8), (std::vector<std::int64_t>{3, 4, 5, 6}));
        std::string many;
        for (int i = 0; i < 200000; ++i)
            many += "0-1,";
        many += "1";
        QCOMPARE(*parseLayerList(many, 2), (std::vector<std::int64_t>{0, 1}));
        for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
                 {"0-1048576", "layer 1048576 is not one of the model's 2 blocks"},
                 {"2", "layer 2 is not one of the model's 2 blocks"},
                 {"1-0", "not '1-0'"},
                 {"", "not ''"},
                 {"0,,1", "not ''"},
                 {"a", "not 'a'"},
                 {"-1", "not '-1'"},
                 {"99999999999999999999", "not '99999999999999999999'"}}) {
            auto parsed = parseLayerList(text, 2);
            QVERIFY2(!parsed, text.c_str());
            QVERIFY2(parsed.error().message.find(expected) != std::string::npos, parsed.error().message.c_str());
        }
    }

    // The trimmed mean leaves out floor(5 %) of the positions at each end: one router flip among
    // 40 positions moves the mean 20-fold and the trimmed mean not at all. Every probe records it,
    // the scan file keeps it (an optional key), and a file without it still reads.
    void probesRecordATrimmedMean()
    {
        std::vector<double> values(40, 0.001);
        values[7] = 0.865;
        QCOMPARE(trimmedKldMean(values), 0.001);
        QVERIFY(std::abs(trimmedKldMean({1.0, 2.0, 3.0}) - 2.0) < 1e-15);  // fewer than 20: nothing cut
        for (const auto& figures : m_smallWhole.figures) {
            QVERIFY(figures && figures->trimmedKld);
            QVERIFY(std::isfinite(*figures->trimmedKld) && *figures->trimmedKld >= 0.0);
        }
        const std::string json = scanRecordJson(m_smallWhole);
        auto reread = parseScanRecord(json, "scan");
        QVERIFY(reread);
        QCOMPARE(scanRecordJson(*reread), json);
        std::string old = json;
        for (std::size_t at; (at = old.find("\"kld_trimmed\":")) != std::string::npos;)
            old.erase(at, old.find(',', at) + 1 - at);
        auto previous = parseScanRecord(old, "scan");
        QVERIFY2(previous, old.substr(0, 200).c_str());
        QVERIFY(previous->figures[0] && !previous->figures[0]->trimmedKld);
        QCOMPARE(previous->figures[0]->meanKld, m_smallWhole.figures[0]->meanKld);
    }

    // The cost curve: the held-back MoE's blk.0.attn_output (q4_K 1.1e-4, q5_K 5.0e-3 from one
    // routed position, q6_K 1.4e-4, q8_0 1.3e-3) becomes monotone in bytes: no step between them
    // is beyond their uncertainty, so they pool into one level.
    void costCurveIsMonotoneInBytes()
    {
        const std::vector<CostCell> cells = {{144, 1.1e-4, 1.0e-5, 1.0e-4},
                                             {176, 5.0e-3, 4.5e-3, 1.2e-4},
                                             {210, 1.4e-4, 1.2e-5, 0.9e-4},
                                             {272, 1.3e-3, 1.2e-3, 0.5e-4}};
        const std::vector<double> fitted = monotoneCosts(cells);
        for (std::size_t a = 0; a < cells.size(); ++a)
            for (std::size_t b = 0; b < cells.size(); ++b)
                if (cells[a].bytes > cells[b].bytes)
                    QVERIFY2(fitted[a] <= fitted[b], (std::to_string(a) + " above " + std::to_string(b)).c_str());
        for (const double cost : fitted)  // none of the steps is beyond the noise: one pool, the cells' mean
            QVERIFY(std::abs(cost - (1.1e-4 + 5.0e-3 + 1.4e-4 + 1.3e-3) / 4) < 1e-12);
        // A clear curve is kept as measured.
        const std::vector<CostCell> clear = {{144, 2e-2, 1e-4, 2e-2}, {176, 6e-3, 1e-4, 6e-3}, {210, 1e-3, 1e-5, 1e-3}, {272, 2e-5, 1e-6, 2e-5}};
        const std::vector<double> kept = monotoneCosts(clear);
        for (std::size_t i = 0; i < clear.size(); ++i)
            QCOMPARE(kept[i], clear[i].cost);
        // Equal bytes add no constraint.
        QCOMPARE(monotoneCosts({{100, 3e-3, 1e-6, std::nullopt}, {100, 1e-3, 1e-6, std::nullopt}}), (std::vector<double>{3e-3, 1e-3}));
    }

    // A step smaller than the cells' uncertainty is no step: the planner then takes the smaller
    // type. Measured apart by more than it, the step stays, unless the trimmed means disagree (a
    // few positions made it).
    void stepsWithinTheUncertaintyAreNone()
    {
        const auto fit = [](double lowCost, double lowError, std::optional<double> lowTrimmed, std::optional<double> highTrimmed) {
            return monotoneCosts({{100, lowCost, lowError, lowTrimmed}, {200, 1.0e-3, 1.0e-4, highTrimmed}});
        };
        const std::vector<double> within = fit(1.1e-3, 1.0e-4, std::nullopt, std::nullopt);
        QCOMPARE(within[0], within[1]);
        const std::vector<double> beyond = fit(1.5e-3, 1.0e-4, std::nullopt, std::nullopt);
        QCOMPARE(beyond, (std::vector<double>{1.5e-3, 1.0e-3}));
        const std::vector<double> robustAgrees = fit(1.5e-3, 1.0e-4, 1.4e-3, 0.9e-3);
        QCOMPARE(robustAgrees, (std::vector<double>{1.5e-3, 1.0e-3}));
        const std::vector<double> robustDisagrees = fit(1.5e-3, 1.0e-4, 0.8e-3, 0.9e-3);
        QCOMPARE(robustDisagrees[0], robustDisagrees[1]);
    }

    // The heatmap's grid stays within its cells whatever blocks and roles a file names: block
    // 1,000,000 gives two rows, not a million; thousands of roles and blocks give a truncated grid.
    void gridIsBoundedWhateverTheFileNames()
    {
        ScanRecord record;
        record.identity.types = {typeIdValue(GgmlTypeId::Q4_K)};
        const auto addGroup = [&](const std::string& role, std::int64_t layer) {
            record.groups.push_back(ScanGroup{"t" + std::to_string(record.groups.size()), role, layer, std::max<std::int64_t>(layer, 0), 256, 256, false});
            record.probes.push_back({record.groups.size() - 1, record.identity.types[0]});
            record.figures.push_back(ProbeFigures{0.5, 0.1, 0.9, -0.1, 10, 1, std::nullopt});
        };
        addGroup("output", -1);
        addGroup("attn_q", 1000000);
        const ScanGrid far = buildScanGrid(record, record.identity.types[0]);
        QVERIFY(far.condensed && !far.truncated);
        QCOMPARE(far.layers, (std::vector<std::int64_t>{ScanGrid::kNoLayer, 1000000}));
        QCOMPARE(far.measured, std::size_t(2));
        QCOMPARE(far.layerLabel(1), std::string("blk.1000000"));
        for (int i = 0; i < 3000; ++i)
            addGroup("role" + std::to_string(i), 1000 * i);
        const ScanGrid wide = buildScanGrid(record, record.identity.types[0]);
        QVERIFY(wide.condensed && wide.truncated);
        QVERIFY(wide.layers.size() * wide.roles.size() <= ScanGrid::kMaxCells);
        QCOMPARE(wide.cells.size(), wide.layers.size());
        QVERIFY(wide.measured > 0 && wide.measured < record.probes.size());
        // A scan of a real model keeps its layer spacing.
        const ScanGrid real = buildScanGrid(m_smallWhole, m_smallWhole.identity.types[0]);
        QVERIFY(!real.condensed);
        QCOMPARE(real.layers, (std::vector<std::int64_t>{ScanGrid::kNoLayer, 0, 1}));
    }

    void hostileScanFiles()
    {
        ScanRecord record = emptyRecord(*m_small);
        const std::string good = scanRecordJson(record);
        QVERIFY(parseScanRecord(good, "x"));
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"", "a value expected"},
            {"[1,2]", "not an object"},
            {std::string(100000, '['), "not an object"},
            {"{\"format\":\"gguf-explorer sensitivity scan\",\"x\":" + std::string(100000, '['), "nesting deeper"},
            {"{\"version\":1}", "\"format\""},
            {"{\"format\":\"other\"}", "\"format\""},
            {good.substr(0, good.size() / 2), "not a scan file"},
            {std::string(good).replace(good.find("\"group\":0"), 9, "\"group\":99"), "names no group"},
            {std::string(good).replace(good.find("\"q4_K\""), 6, "\"q9_K\""), "unknown type"},
            {std::string(good).replace(good.find("\"chunk_size\":64"), 15, "\"chunk_size\":-1"), "chunk_size"},
            {good + "x", "after the end"},
        };
        for (const auto& [text, expected] : cases) {
            auto parsed = parseScanRecord(text, "f.json");
            QVERIFY2(!parsed, expected.c_str());
            const std::string message = parsed.error().toString();
            QVERIFY2(message.find(expected) != std::string::npos, message.c_str());
            QVERIFY(message.starts_with("f.json: not a scan file: "));
            QVERIFY2(parsed.error().offset <= text.size(), message.c_str());
        }
        QVERIFY(!readScanFile("/nonexistent/scan.json"));
        QVERIFY(!readScanFile("/tmp"));
    }

    // The planner's weight-error objective: relative errors, so the tensors an imatrix has no
    // entry for (token_embd, output) are not pushed to the lowest types by a sum of unlike units.
    // The plan that says it beats Q3_K_L at Q3_K_L's size does, measured on held-out tokens.
    void weightPlanBeatsThePresetItClaimsTo()
    {
        const auto moe = testsupport::openModelAt(fixturePath("tiny-moe-F16.gguf"));
        QVERIFY(moe);
        auto loaded = ImportanceMatrix::load(fixturePath("llama.cpp/tiny-moe.imatrix.gguf").toStdString());
        QVERIFY(loaded);
        const ImportanceLookup importance = lookupOf(std::make_shared<ImportanceMatrix>(std::move(*loaded)));
        ErrorTableOptions options;
        options.importance = importance;
        auto table = measureErrorTable(*moe, options);
        QVERIFY(table);
        auto context = makePlanContext(*moe, *table, true);
        QVERIFY(context);
        const auto presets = evaluatePresets(*context);
        const PresetOnFrontier* q3kl = nullptr;
        for (const PresetOnFrontier& point : presets)
            if (point.preset->name == "Q3_K_L")
                q3kl = &point;
        QVERIFY(q3kl && q3kl->evaluated);
        auto plan = planMix(*context, presets, Budget{Budget::Kind::FileBytes, double(q3kl->mix.fileBytes)});
        QVERIFY(plan);
        QVERIFY(plan->mix.error <= q3kl->mix.error);
        const auto low = [](std::uint32_t type) { return findType(type)->bitsPerWeight() < 3.0; };
        for (std::size_t t = 0; t < table->tensors.size(); ++t) {
            const std::string_view name = table->tensors[t].tensor->name;
            if (name == "output.weight" || name == "token_embd.weight")
                QVERIFY2(!low(plan->mix.types[t]), std::string(name).c_str());
        }
        auto heldOut = textTokens(*moe, 17000, 3000);
        QVERIFY(heldOut.size() >= 12 * kChunk);
        heldOut.resize(12 * kChunk);
        const double planned = measuredKld(*moe, typesOf(*table, plan->mix), importance, heldOut);
        const double preset = measuredKld(*moe, typesOf(*table, q3kl->mix), importance, heldOut);
        qInfo("tiny-moe + imatrix at Q3_K_L's size: plan KLD %.6f, Q3_K_L %.6f", planned, preset);
        QVERIFY(planned > 0 && preset > 0);
        QVERIFY(planned <= preset);
    }

    // The held-out decision: a plan that is the preset's own mix does not win (a difference of
    // nothing is no reason to offer it); a plan that quantizes every matrix to q8_0 beats an all-q4_K
    // mix by far more than twice the paired difference's standard error; too short a text, or a
    // text shorter than the scan's tokens, leaves no held-out chunk.
    void heldOutMeasurementDecides()
    {
        TypeMap q4k, q8;
        for (const TensorInfo& tensor : m_llama->tensors())
            if (tensor.nDims >= 2) {
                q4k[std::string(tensor.name)] = findTypeByName("q4_K")->id;
                q8[std::string(tensor.name)] = findTypeByName("q8_0")->id;
            }
        auto tokens = heldOutTokens(m_heldOut, 64, kChunk, 2 * kChunk);
        QVERIFY(tokens);
        QCOMPARE(tokens->size(), std::size_t(2 * kChunk));
        QVERIFY(std::equal(tokens->begin(), tokens->end(), m_heldOut.begin() + 64));
        HeldOutOptions options;
        options.chunkSize = kChunk;
        options.bosToken = bosOf(*m_llama);
        options.executor = &gguf::ParallelRows::shared();
        auto same = measureHeldOut(*m_llama, {{"plan", q4k}, {"Q4_K", q4k}}, *tokens, options);
        QVERIFY2(same, same ? "" : same.error().toString().c_str());
        QCOMPARE(same->mixes[1].differenceMean, 0.0);
        QVERIFY(!same->planWins);
        auto better = measureHeldOut(*m_llama, {{"plan", q8}, {"Q4_K", q4k}, {"Q4_K again", q4k}}, *tokens, options);
        QVERIFY(better);
        QCOMPARE(better->positions, std::int64_t(2 * (kChunk - 1 - kChunk / 2)));
        QCOMPARE(better->bestPreset, std::size_t(1));  // a tie keeps the first
        QVERIFY(better->mixes[1].differenceMean > 2 * better->mixes[1].differenceError);
        QVERIFY(better->planWins);
        qInfo("held out: q8_0 plan %.6f, q4_K %.6f, difference %.6f +- %.6f", better->mixes[0].meanKld, better->mixes[1].meanKld,
              better->mixes[1].differenceMean, better->mixes[1].differenceError);
        QVERIFY(!heldOutTokens(m_heldOut, std::int64_t(m_heldOut.size()) - kChunk + 1, kChunk, 0));
        QVERIFY(!heldOutTokens(m_heldOut, std::int64_t(m_heldOut.size()) + 5, kChunk, 0));
        QVERIFY(!heldOutTokens(m_heldOut, -1, kChunk, 0));
        QVERIFY(!measureHeldOut(*m_llama, {{"plan", q4k}}, *tokens, options));
    }

    // MoE: the positions where a layer chose other experts than the reference (routing flips)
    // are counted apart, and the steady error is the KLD of the others. The model itself has no
    // flip and no error; an all-q2_K mix has flips, and its steady KLD is below its mean (a flip
    // costs more than the steady error); against the model itself the steady difference is over
    // the q2_K mix's steady positions exactly.
    void heldOutSeparatesRoutingFlips()
    {
        const auto moe = testsupport::openModelAt(fixturePath("tiny-moe-F16.gguf"));
        QVERIFY(moe);
        TypeMap q2k;
        for (const TensorInfo& tensor : moe->tensors())
            if (tensor.nDims >= 2)
                q2k[std::string(tensor.name)] = findTypeByName("q2_K")->id;
        auto tokens = heldOutTokens(textTokens(*moe, 17000, 4000), 0, kChunk, 4 * kChunk);
        QVERIFY(tokens);
        HeldOutOptions options;
        options.chunkSize = kChunk;
        options.bosToken = bosOf(*moe);
        options.executor = &gguf::ParallelRows::shared();
        auto measured = measureHeldOut(*moe, {{"plan", q2k}, {"the model", {}}}, *tokens, options);
        QVERIFY2(measured, measured ? "" : measured.error().toString().c_str());
        QVERIFY(measured->routed);
        const MeasuredMix& plan = measured->mixes[0];
        const MeasuredMix& model = measured->mixes[1];
        QCOMPARE(model.meanKld, 0.0);
        QCOMPARE(model.flippedPositions, std::int64_t(0));
        QVERIFY(plan.flippedPositions > 0 && plan.flippedPositions < measured->positions);
        QVERIFY(plan.steadyKld < plan.meanKld);
        QCOMPARE(model.steadyPairs, measured->positions - plan.flippedPositions);
        QVERIFY(std::abs(model.steadyDifferenceMean + plan.steadyKld) <= 1e-12 * plan.steadyKld);
        qInfo("tiny-moe all q2_K: %lld of %lld positions flipped, mean KLD %.6f, steady %.6f", static_cast<long long>(plan.flippedPositions),
              static_cast<long long>(measured->positions), plan.meanKld, plan.steadyKld);
    }

    // The decision, from the figures of tiny-moe's held-out check at Q5_K_M's size (no imatrix):
    // the whole difference within its noise, the steady one beyond it. On an MoE the plan wins by
    // the steady error only with no more flips, a mean difference no worse and the median agreeing;
    // on a dense model never by it.
    void planBeatsPresetOnSteadyError_data()
    {
        QTest::addColumn<bool>("routed");
        QTest::addColumn<std::int64_t>("planFlips");
        QTest::addColumn<double>("difference");
        QTest::addColumn<double>("median");
        QTest::addColumn<double>("steadyDifference");
        QTest::addColumn<bool>("wins");
        QTest::addColumn<bool>("steady");
        QTest::newRow("moe, measured") << true << std::int64_t(25) << 0.00125 << 0.000105 << 0.00430 << true << true;
        QTest::newRow("dense") << false << std::int64_t(25) << 0.00125 << 0.000105 << 0.00430 << false << false;
        QTest::newRow("more flips") << true << std::int64_t(231) << 0.00125 << 0.000105 << 0.00430 << false << false;
        QTest::newRow("worse mean") << true << std::int64_t(25) << -0.00055 << 0.000105 << 0.00430 << false << false;
        QTest::newRow("median disagrees") << true << std::int64_t(25) << 0.00125 << -0.00003 << 0.00430 << false << false;
        QTest::newRow("steady within noise") << true << std::int64_t(25) << 0.00125 << 0.000105 << 0.00300 << false << false;
        QTest::newRow("whole beyond noise") << false << std::int64_t(25) << 0.00600 << 0.000105 << 0.0 << true << false;
    }

    void planBeatsPresetOnSteadyError()
    {
        QFETCH(bool, routed);
        QFETCH(std::int64_t, planFlips);
        QFETCH(double, difference);
        QFETCH(double, median);
        QFETCH(double, steadyDifference);
        QFETCH(bool, wins);
        QFETCH(bool, steady);
        const MeasuredMix plan{"plan", 0.00606, 0.00242, 0.0, 0.0, 0.0, 0.0, planFlips, 0.00418, 0.0, 0.0, 0};
        const MeasuredMix preset{"Q5_0", 0.00731, 0.00187, 0.0, difference, 0.00276, median, 230, 0.00603, steadyDifference, 0.00162, 772};
        bool bySteadyError = false;
        QCOMPARE(planBeatsPreset(plan, preset, routed, &bySteadyError), wins);
        QCOMPARE(bySteadyError, steady);
    }

    // Planned by the scan's measured KLD at the sizes of Q3_K_M, Q4_K_M and Q5_K_M: on held-out
    // tokens no worse than the preset, nor than the weight-error plan.
    void scanPlanBeatsPresetsOnHeldOutText()
    {
        ScanOptions scanOptions;
        scanOptions.executor = &gguf::ParallelRows::shared();
        scanOptions.chunkSize = kChunk;
        scanOptions.bosToken = bosOf(*m_llama);
        scanOptions.maxTokens = 4 * kChunk;
        auto scan = SensitivityScan::prepare(*m_llama, m_calibration, scanOptions);
        QVERIFY(scan);
        ScanRecord record = emptyRecord(**scan);
        QVERIFY(runScan(**scan, record, {}));

        auto weightTable = measureErrorTable(*m_llama, {});
        QVERIFY(weightTable);
        ErrorTable scanTable = *weightTable;
        auto applied = applyScanCosts(scanTable, record);
        QVERIFY2(applied, applied ? "" : applied.error().toString().c_str());
        QCOMPARE(applied->interpolated, std::size_t(0));
        auto weightContext = makePlanContext(*m_llama, *weightTable, false);
        auto scanContext = makePlanContext(*m_llama, scanTable, false);
        QVERIFY(weightContext && scanContext);
        const auto weightPresets = evaluatePresets(*weightContext);
        const auto scanPresets = evaluatePresets(*scanContext);
        const std::vector<std::int32_t> heldOut(m_heldOut.begin(), m_heldOut.begin() + 4 * kChunk);
        for (const char* name : {"Q3_K_M", "Q4_K_M", "Q5_K_M"}) {
            const PresetOnFrontier* preset = nullptr;
            for (const PresetOnFrontier& point : scanPresets)
                if (point.preset->name == name)
                    preset = &point;
            QVERIFY2(preset && preset->evaluated, name);
            const Budget budget{Budget::Kind::FileBytes, double(preset->mix.fileBytes)};
            auto scanPlan = planMix(*scanContext, scanPresets, budget);
            auto weightPlan = planMix(*weightContext, weightPresets, budget);
            QVERIFY(scanPlan && weightPlan);
            QVERIFY(scanPlan->mix.fileBytes <= preset->mix.fileBytes);
            const double planned = measuredKld(*m_llama, typesOf(scanTable, scanPlan->mix), {}, heldOut);
            const double byPreset = measuredKld(*m_llama, typesOf(scanTable, preset->mix), {}, heldOut);
            const double byWeights = measuredKld(*m_llama, typesOf(*weightTable, weightPlan->mix), {}, heldOut);
            qInfo("%s size: scan plan %.6f (predicted %.6f), preset %.6f (predicted %.6f), weight-error plan %.6f", name, planned,
                  scanPlan->mix.error, byPreset, preset->mix.error, byWeights);
            QVERIFY2(planned <= byPreset, name);
            QVERIFY2(planned <= byWeights, name);
        }
    }
};

QTEST_GUILESS_MAIN(TestSensitivity)
#include "tst_sensitivity.moc"
