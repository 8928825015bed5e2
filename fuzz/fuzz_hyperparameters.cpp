// Harness 7: hyper-parameters. The input names an architecture fixture (the F32 model of a
// folder of llama.cpp/arch under GGUFX_FUZZ_VOCAB_DIR or the build's fixtures folder, read once)
// up to a NUL, then lists edits of its metadata, 10 bytes each: which key (the fixture's own
// `<arch>.*` keys, then every key a reader knows of, then general.architecture), what kind of
// value (any GGUF type, an array per layer, a removal, NaN and other edge values) and 8 bytes of
// payload. The edited model is written by GgufWriter into a memfd, its tensors' data left as
// zeros (a sparse file: nothing is copied), and read as the forward pass reads it
// (readHyperparameters), as the memory estimate reads it, and, when its hyper-parameters are
// accepted, run for one token. Invariants: an error has a message; accepted hyper-parameters
// hold what the pass relies on (one shape per layer, heads dividing, rope inside the head,
// top-k within the experts, finite numbers).

#include "FuzzSupport.h"
#include "core/estimate/MemoryEstimate.h"
#include "core/forward/ForwardPass.h"
#include "core/gguf/Model.h"
#include "core/write/GgufWriter.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#ifndef GGUFX_FIXTURES_DIR
#define GGUFX_FIXTURES_DIR "../shared/fixtures"
#endif

namespace {

// Keys the pass, the estimate or llama.cpp read for some architecture, after the `<arch>.` prefix.
const char* const kKnownKeys[] = {
    "context_length", "embedding_length", "embedding_length_out", "attention.causal", "pooling_type", "block_count",
    "nextn_predict_layers", "expert_count", "expert_used_count", "expert_group_count", "expert_group_used_count",
    "feed_forward_length", "attention.head_count", "attention.head_count_kv", "rope.scaling.finetuned",
    "rope.scaling.original_context_length", "rope.freq_base", "rope.scaling.type", "rope.scaling.factor", "rope.scale_linear",
    "rope.scaling.attn_factor", "rope.scaling.alpha", "rope.scaling.yarn_log_multiplier", "attention.key_length",
    "attention.value_length", "rope.dimension_count", "attention.key_length_swa", "attention.value_length_swa",
    "rope.dimension_count_swa", "attention.layer_norm_rms_epsilon", "vocab_size", "attn_logit_softcapping", "final_logit_softcapping",
    "rope.dimension_sections", "ssm.conv_kernel", "ssm.inner_size", "ssm.state_size", "ssm.time_step_rank", "ssm.group_count",
    "attention.recurrent_layers", "full_attention_interval", "attention.q_lora_rank", "attention.kv_lora_rank",
    "attention.key_length_mla", "attention.value_length_mla", "attention.temperature_scale", "attention.temperature_length",
    "embedding_length_per_layer_input", "attention.sliding_window", "attention.sliding_window_pattern", "rope.freq_base_swa",
    "attention.shared_kv_layers", "expert_feed_forward_length", "expert_shared_feed_forward_length", "expert_shared_count",
    "leading_dense_block_count", "expert_weights_scale", "expert_weights_norm", "expert_gating_func", "wkv.head_size",
    "token_shift_count", "shortconv.l_cache"};

struct Fixture {
    std::string name;  // the folder
    std::string architecture;
    std::shared_ptr<const gguf::Model> model;
    std::vector<std::string> keys;  // the edit targets, full names
    std::int64_t layers = 0;
};

std::vector<Fixture> loadFixtures()
{
    const char* overridden = std::getenv("GGUFX_FUZZ_VOCAB_DIR");
    const std::filesystem::path arch = std::filesystem::path(overridden ? overridden : GGUFX_FIXTURES_DIR) / "llama.cpp/arch";
    std::vector<Fixture> fixtures;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(arch, error)) {
        if (!entry.is_directory())
            continue;
        auto model = gguf::Model::open((entry.path() / (entry.path().filename().string() + "-F32.gguf")).string());
        if (!model)
            continue;
        Fixture fixture{entry.path().filename().string(), (*model)->metadataString("general.architecture"), *model, {}, 0};
        const std::string prefix = fixture.architecture + ".";
        for (const gguf::MetadataEntry& kv : fixture.model->metadata())
            if (kv.key.rfind(prefix, 0) == 0)
                fixture.keys.emplace_back(kv.key);
        for (const char* known : kKnownKeys)
            fixture.keys.push_back(prefix + known);
        fixture.keys.emplace_back("general.architecture");
        fixture.layers = static_cast<std::int64_t>(fixture.model->metadataUInt(prefix + "block_count").value_or(1));
        fixtures.push_back(std::move(fixture));
    }
    std::sort(fixtures.begin(), fixtures.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
    return fixtures;
}

template <class T>
T payloadAs(const std::uint8_t* payload)
{
    T value;
    std::memcpy(&value, payload, sizeof value);
    return value;
}

// One edit's value from its kind byte and 8 payload bytes; nullopt removes the key.
std::optional<gguf::EncodedValue> editedValue(std::uint8_t kind, const std::uint8_t* payload, const Fixture& fixture, bool architectureKey)
{
    using gguf::EncodedValue;
    using gguf::ValueType;
    if (architectureKey) {
        static const char* const kNames[] = {"llama", "qwen2", "qwen3", "qwen3moe", "phi3", "gemma2", "gemma3", "qwen35", "qwen35moe",
                                             "gpt-oss", "deepseek2", "glm4moe", "gemma4", "mamba"};
        return EncodedValue::string(kNames[payload[0] % std::size(kNames)]);
    }
    static const float kEdgeFloats[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                        -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1e-45f, 1e30f, -1.0f, 0.5f, 2.0f};
    switch (kind % 18) {
    case 0: return EncodedValue::u8(payload[0]);
    case 1: return EncodedValue::i8(payloadAs<std::int8_t>(payload));
    case 2: return EncodedValue::u16(payloadAs<std::uint16_t>(payload));
    case 3: return EncodedValue::i16(payloadAs<std::int16_t>(payload));
    case 4: return EncodedValue::u32(payloadAs<std::uint32_t>(payload));
    case 5: return EncodedValue::i32(payloadAs<std::int32_t>(payload));
    case 6: return EncodedValue::f32(payloadAs<float>(payload));
    case 7: return EncodedValue::boolean(payload[0] & 1);
    case 8:  // a string: the decimal text of a small number, or raw bytes
        if (payload[7] & 1)
            return EncodedValue::string(std::to_string(payload[0]));
        return EncodedValue::string(std::string(reinterpret_cast<const char*>(payload), 7));
    case 9: {  // a short array of any fixed type
        static const ValueType kTypes[] = {ValueType::U8, ValueType::I8,  ValueType::U16, ValueType::I16, ValueType::U32, ValueType::I32,
                                           ValueType::F32, ValueType::Bool, ValueType::U64, ValueType::I64, ValueType::F64};
        const ValueType type = kTypes[payload[0] % std::size(kTypes)];
        const std::size_t length = payload[1] % 16;
        std::string bytes;
        for (std::size_t i = 0; i < length; ++i)
            bytes.append(gguf::fixedValueSize(type), static_cast<char>(payload[2 + i % 6]));
        return *EncodedValue::fixedArray(type, bytes);
    }
    case 10: return EncodedValue::u64(payloadAs<std::uint64_t>(payload));
    case 11: return EncodedValue::i64(payloadAs<std::int64_t>(payload));
    case 12: return EncodedValue::f64(payloadAs<double>(payload));
    case 13: return std::nullopt;
    case 14: return EncodedValue::u32(payload[0]);  // small, often valid
    case 15: return EncodedValue::f32(kEdgeFloats[payload[0] % std::size(kEdgeFloats)]);
    case 16: {  // a value per layer, one more or fewer now and then
        const std::int64_t length = std::max<std::int64_t>(0, fixture.layers + (payload[1] % 3) - 1);
        const ValueType type = payload[0] % 3 == 0 ? ValueType::U32 : payload[0] % 3 == 1 ? ValueType::I32 : ValueType::Bool;
        std::vector<EncodedValue> elements;
        for (std::int64_t i = 0; i < length; ++i) {
            const std::uint8_t v = payload[2 + i % 6];
            if (type == ValueType::Bool)
                elements.push_back(EncodedValue::boolean(v & 1));
            else if (type == ValueType::U32)
                elements.push_back(EncodedValue::u32(v));
            else
                elements.push_back(EncodedValue::i32(static_cast<std::int8_t>(v)));  // negative ones too
        }
        return *EncodedValue::array(type, elements);
    }
    default: return EncodedValue::string(std::string(payload[0] % 2 ? "yarn" : "linear"));
    }
}

// Zeros the tensor producers write from; the sink leaves them as holes in the file.
const std::vector<char>& zeroBlock()
{
    static const std::vector<char> zeros(1 << 20);
    return zeros;
}

// Writes into `fd` from its start, leaving what comes from zeroBlock() as a hole of zeros (a
// sparse memfd: a 2 MB model costs no copy per input).
class SparseFileSink final : public gguf::ByteSink {
public:
    explicit SparseFileSink(int fd) : m_fd(fd) {}
    gguf::Status write(const void* data, std::size_t size) override
    {
        const auto* bytes = static_cast<const char*>(data);
        const char* zeros = zeroBlock().data();
        const bool hole = std::greater_equal<const char*>{}(bytes, zeros) && std::less_equal<const char*>{}(bytes + size, zeros + zeroBlock().size());
        for (std::size_t done = 0; !hole && done < size;) {
            const ssize_t written = ::pwrite(m_fd, bytes + done, size - done, static_cast<off_t>(m_position + done));
            FUZZ_CHECK(written > 0);
            done += static_cast<std::size_t>(written);
        }
        m_position += size;
        return gguf::Ok{};
    }
    gguf::Status commit() override
    {
        FUZZ_CHECK(::ftruncate(m_fd, static_cast<off_t>(m_position)) == 0);
        return gguf::Ok{};
    }

private:
    int m_fd;
    std::uint64_t m_position = 0;
};

gguf::Status writeZeros(gguf::ByteSink& out, std::uint64_t bytes)
{
    for (std::uint64_t done = 0; done < bytes;) {
        const std::uint64_t n = std::min<std::uint64_t>(zeroBlock().size(), bytes - done);
        if (gguf::Status s = out.write(zeroBlock().data(), n); !s)
            return s;
        done += n;
    }
    return gguf::Ok{};
}

void checkAccepted(const gguf::ModelHyperparameters& h)
{
    FUZZ_CHECK(h.layerCount >= 1 && h.layerCount <= 512);
    FUZZ_CHECK(h.layers.size() == static_cast<std::size_t>(h.layerCount));
    for (const gguf::LayerShape& shape : h.layers) {
        FUZZ_CHECK(shape.headCount > 0 && shape.headCountKv > 0 && shape.headCount % shape.headCountKv == 0);
        FUZZ_CHECK(shape.keyLength > 0 && shape.ropeDimensions > 0 && shape.ropeDimensions <= shape.keyLength);
        FUZZ_CHECK(shape.kvSource >= 0 && shape.kvSource < h.layerCount);
    }
    FUZZ_CHECK(h.expertUsedCount <= h.expertCount && h.expertCount <= 1024);
    FUZZ_CHECK(h.expertCount == 0 || h.expertUsedCount > 0);
    for (const float value : {h.ropeFreqBase, h.ropeFreqScale, h.ropeAttnFactor, h.rmsEpsilon, h.attentionScale, h.attentionSoftcap,
                              h.finalSoftcap, h.ropeFreqBaseSliding, h.expertWeightsScale, h.yarnLogMultiplier})
        FUZZ_CHECK(std::isfinite(value));
    FUZZ_CHECK(h.rmsEpsilon >= 0.0f && h.ropeFreqBase > 0.0f);
}

const std::vector<Fixture>* gFixtures = nullptr;
int gFile = -1;

}  // namespace

// The fixtures are opened once, before the first input (libFuzzer's per-input timeout does
// not count it).
extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    gFixtures = new std::vector<Fixture>(loadFixtures());
    gFile = ::memfd_create("fuzz_hyperparameters", MFD_CLOEXEC);
    FUZZ_CHECK(gFile >= 0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto nameEnd = std::find(data, data + size, std::uint8_t{0});
    const std::string name(data, nameEnd);
    const auto fixture = std::find_if(gFixtures->begin(), gFixtures->end(), [&](const Fixture& f) { return f.name == name; });
    if (fixture == gFixtures->end() || nameEnd == data + size)
        return 0;

    gguf::GgufWriter writer;
    FUZZ_CHECK(writer.copyMetadata(fixture->model->primary()).ok());
    constexpr std::size_t kEditSize = 10;
    const std::uint8_t* edit = nameEnd + 1;
    for (int count = 0; count < 8 && data + size - edit >= static_cast<std::ptrdiff_t>(kEditSize); ++count, edit += kEditSize) {
        const std::string& key = fixture->keys[edit[0] % fixture->keys.size()];
        const auto value = editedValue(edit[1], edit + 2, *fixture, key == "general.architecture");
        if (value)
            writer.setValue(key, *value);
        else
            writer.removeValue(key);
    }
    FUZZ_CHECK(::ftruncate(gFile, 0) == 0);
    SparseFileSink sink(gFile);
    for (const gguf::TensorInfo& tensor : fixture->model->tensors()) {
        const std::uint64_t bytes = tensor.nbytes;
        const gguf::TensorSpec spec{std::string(tensor.name), tensor.typeId, {tensor.ne.begin(), tensor.ne.begin() + tensor.nDims}};
        FUZZ_CHECK(writer.addTensor(spec, [bytes](gguf::ByteSink& out) { return writeZeros(out, bytes); }).ok());
    }
    if (!writer.write(sink).ok())
        return 0;  // an edit the writer refuses (general.alignment)
    FUZZ_CHECK(sink.commit().ok());

    const std::string path = "/proc/self/fd/" + std::to_string(gFile);
    auto model = gguf::Model::open(path);
    if (!model) {
        FUZZ_CHECK(!model.error().message.empty());
        return 0;
    }
    if (auto estimate = gguf::estimateMemory(**model, gguf::EstimateOptions{}); !estimate)
        FUZZ_CHECK(!estimate.error().message.empty());
    auto hyperparameters = gguf::readHyperparameters(**model);
    if (!hyperparameters) {
        FUZZ_CHECK(!hyperparameters.error().message.empty());
        return 0;
    }
    checkAccepted(*hyperparameters);
    // One token through the whole pass, on zero weights.
    auto run = gguf::runForward(**model, std::vector<std::int32_t>{0});
    if (!run)
        FUZZ_CHECK(!run.error().message.empty());
    else
        FUZZ_CHECK(run->logits.size() == static_cast<std::size_t>(hyperparameters->vocabularySize));
    return 0;
}
