#include "SparseModelFile.h"

#include "core/types/GgmlType.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace bench {

namespace {

constexpr std::uint64_t kAlignment = 32;
constexpr std::uint32_t kVocabulary = 128256;
constexpr std::uint32_t kMerges = 280147;
constexpr std::uint32_t kLayers = 80;
constexpr std::int64_t kEmbedding = 8192;
constexpr std::int64_t kFeedForward = 28672;
constexpr std::int64_t kKeyValue = 1024;  // 8 KV heads of 128

// Little-endian GGUF v3 encoding into a byte string.
class Encoder {
public:
    std::string bytes;
    std::uint64_t keyCount = 0;

    template <class T>
    void raw(T value)
    {
        bytes.append(reinterpret_cast<const char*>(&value), sizeof value);  // x86-64: little-endian
    }
    void string(const std::string& text)
    {
        raw<std::uint64_t>(text.size());
        bytes += text;
    }
    void key(const std::string& name, std::uint32_t valueType)
    {
        ++keyCount;
        string(name);
        raw(valueType);
    }
    void keyU32(const std::string& name, std::uint32_t value) { key(name, 4), raw(value); }
    void keyF32(const std::string& name, float value) { key(name, 6), raw(value); }
    void keyString(const std::string& name, const std::string& value) { key(name, 8), string(value); }
    void arrayHeader(const std::string& name, std::uint32_t elementType, std::uint64_t length)
    {
        key(name, 9);
        raw(elementType);
        raw(length);
    }
};

// Byte-level BPE-looking token text: a "Ġ" (U+0120) prefix on every third token, letters and
// an English-like ending, 3 to 19 bytes (10.4 on average). With the merges drawn from the whole
// vocabulary this gives the 11.2 MiB header of the issue-20 measurements.
std::string tokenText(std::uint32_t i)
{
    static const char* const kLetters = "etaoinshrdlucmfwypvbgkjqxz";
    static const char* const kEndings[] = {"s",     "ingly",   "tional",  "ments",  "nesses",  "ably",    "erism",   "ization",
                                           "atively", "ousness", "ities", "ically", "ations", "erships", "fulness", "ologically"};
    std::string text = (i % 3 == 0) ? "\xC4\xA0" : "";
    std::uint32_t n = i + 1;
    do {
        text += kLetters[n % 26];
        n /= 26;
    } while (n > 0);
    text += kEndings[(i * 7) % 16];
    return text;
}

struct PlannedTensor {
    std::string name;
    const gguf::TypeTraits* type;
    std::vector<std::int64_t> ne;
};

std::vector<PlannedTensor> plannedTensors()
{
    const gguf::TypeTraits* f32 = gguf::findTypeByName("f32");
    const gguf::TypeTraits* q4 = gguf::findTypeByName("q4_K");
    const gguf::TypeTraits* q6 = gguf::findTypeByName("q6_K");
    // Llama 3 (not 3.1): no rope_freqs, so 723 tensors.
    std::vector<PlannedTensor> tensors{{"token_embd.weight", q4, {kEmbedding, kVocabulary}}};
    for (std::uint32_t layer = 0; layer < kLayers; ++layer) {
        const std::string prefix = "blk." + std::to_string(layer) + ".";
        const bool sensitive = layer % 8 == 0;  // Q4_K_M keeps some v / down tensors at Q6_K
        tensors.push_back({prefix + "attn_norm.weight", f32, {kEmbedding}});
        tensors.push_back({prefix + "attn_q.weight", q4, {kEmbedding, kEmbedding}});
        tensors.push_back({prefix + "attn_k.weight", q4, {kEmbedding, kKeyValue}});
        tensors.push_back({prefix + "attn_v.weight", sensitive ? q6 : q4, {kEmbedding, kKeyValue}});
        tensors.push_back({prefix + "attn_output.weight", q4, {kEmbedding, kEmbedding}});
        tensors.push_back({prefix + "ffn_norm.weight", f32, {kEmbedding}});
        tensors.push_back({prefix + "ffn_gate.weight", q4, {kEmbedding, kFeedForward}});
        tensors.push_back({prefix + "ffn_up.weight", q4, {kEmbedding, kFeedForward}});
        tensors.push_back({prefix + "ffn_down.weight", sensitive ? q6 : q4, {kFeedForward, kEmbedding}});
    }
    tensors.push_back({"output_norm.weight", f32, {kEmbedding}});
    tensors.push_back({"output.weight", q6, {kEmbedding, kVocabulary}});
    return tensors;
}

void writeMetadata(Encoder& e)
{
    e.keyString("general.architecture", "llama");
    e.keyString("general.type", "model");
    e.keyString("general.name", "Bench Llama 3 70B Layout");
    e.keyU32("general.file_type", 15);
    e.keyU32("llama.vocab_size", kVocabulary);
    e.keyU32("llama.context_length", 8192);
    e.keyU32("llama.embedding_length", kEmbedding);
    e.keyU32("llama.block_count", kLayers);
    e.keyU32("llama.feed_forward_length", kFeedForward);
    e.keyU32("llama.rope.dimension_count", 128);
    e.keyU32("llama.attention.head_count", 64);
    e.keyU32("llama.attention.head_count_kv", 8);
    e.keyF32("llama.rope.freq_base", 500000.0f);
    e.keyF32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
    e.keyString("tokenizer.ggml.model", "gpt2");
    e.keyString("tokenizer.ggml.pre", "llama-bpe");
    e.arrayHeader("tokenizer.ggml.tokens", 8, kVocabulary);
    for (std::uint32_t i = 0; i < kVocabulary; ++i)
        e.string(tokenText(i));
    e.arrayHeader("tokenizer.ggml.scores", 6, kVocabulary);
    for (std::uint32_t i = 0; i < kVocabulary; ++i)
        e.raw<float>(-static_cast<float>(i));
    e.arrayHeader("tokenizer.ggml.token_type", 5, kVocabulary);
    for (std::uint32_t i = 0; i < kVocabulary; ++i)
        e.raw<std::int32_t>(i >= 128000 ? 3 : 1);
    e.arrayHeader("tokenizer.ggml.merges", 8, kMerges);
    for (std::uint32_t i = 0; i < kMerges; ++i)
        e.string(tokenText(static_cast<std::uint32_t>((std::uint64_t{i} * 7919) % kVocabulary)) + " "
                 + tokenText(static_cast<std::uint32_t>((std::uint64_t{i} * 104729 + 13) % kVocabulary)));
    e.keyU32("tokenizer.ggml.bos_token_id", 128000);
    e.keyU32("tokenizer.ggml.eos_token_id", 128009);
    e.keyString("tokenizer.chat_template",
                "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + "
                "message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
                "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}"
                "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}");
    e.keyU32("general.quantization_version", 2);
}

}  // namespace

bool writeSparse70bModel(const std::string& path, SparseModelFile& file, std::string& error)
{
    const std::vector<PlannedTensor> tensors = plannedTensors();
    Encoder metadata;
    writeMetadata(metadata);
    Encoder e;
    e.bytes.append("GGUF", 4);
    e.raw<std::uint32_t>(3);
    e.raw<std::uint64_t>(tensors.size());
    e.raw<std::uint64_t>(metadata.keyCount);
    e.bytes += metadata.bytes;

    std::uint64_t offset = 0;
    file.parameterCount = 0;
    for (const PlannedTensor& t : tensors) {
        e.string(t.name);
        e.raw<std::uint32_t>(static_cast<std::uint32_t>(t.ne.size()));
        std::uint64_t elements = 1;
        for (const std::int64_t n : t.ne) {
            e.raw<std::int64_t>(n);
            elements *= static_cast<std::uint64_t>(n);
        }
        e.raw<std::uint32_t>(t.type->id);
        e.raw<std::uint64_t>(offset);
        offset += (elements / t.type->blockSize * t.type->blockBytes + kAlignment - 1) / kAlignment * kAlignment;
        file.parameterCount += elements;
    }
    e.bytes.resize((e.bytes.size() + kAlignment - 1) / kAlignment * kAlignment, '\0');

    file.path = path;
    file.headerBytes = e.bytes.size();
    file.fileBytes = file.headerBytes + offset;
    file.tensorCount = tensors.size();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    bool ok = fd >= 0;
    for (std::size_t written = 0; ok && written < e.bytes.size();) {
        const ssize_t n = ::write(fd, e.bytes.data() + written, e.bytes.size() - written);
        ok = n > 0;
        written += ok ? static_cast<std::size_t>(n) : 0;
    }
    ok = ok && ::ftruncate(fd, static_cast<off_t>(file.fileBytes)) == 0;
    if (!ok)
        error = path + ": " + std::strerror(errno);
    if (fd >= 0 && ::close(fd) != 0 && ok) {
        error = path + ": " + std::strerror(errno);
        ok = false;
    }
    return ok;
}

}  // namespace bench
