#include "BigLayouts.h"

#include "core/gguf/ByteRangeSource.h"
#include "core/gguf/GgufFile.h"
#include "core/gguf/MappedFile.h"
#include "core/types/GgmlType.h"

#include <algorithm>
#include <cstring>

namespace testsupport {

namespace {
using gguf::EncodedValue;
enum : std::uint32_t { F32 = 0, Q8_0 = 8, Q4_K = 12, Q6_K = 14, MXFP4 = 39 };

struct LayoutBuilder {
    ModelLayout layout;
    std::string arch;

    LayoutBuilder(std::string name, std::string architecture, std::uint32_t vocabulary) : arch(std::move(architecture))
    {
        layout.name = std::move(name);
        set("general.architecture", EncodedValue::string(arch));
        set("general.name", EncodedValue::string(layout.name + " layout"));
        // No tokens: llama.cpp's "none" tokenizer takes the vocabulary size from the header.
        set("tokenizer.ggml.model", EncodedValue::string("none"));
        u32("vocab_size", vocabulary);
    }
    void set(const std::string& key, EncodedValue value) { layout.metadata.emplace_back(key, std::move(value)); }
    void u32(const std::string& key, std::uint32_t value) { set(arch + "." + key, EncodedValue::u32(value)); }
    void u32(std::initializer_list<std::pair<const char*, std::uint32_t>> values)
    {
        for (const auto& [key, value] : values)
            u32(key, value);
    }
    void f32(const std::string& key, float value) { set(arch + "." + key, EncodedValue::f32(value)); }
    void tensor(const std::string& name, std::uint32_t type, std::vector<std::int64_t> ne)
    {
        layout.tensors.push_back({name, type, std::move(ne)});
    }
    void layer(int il, const std::string& role, std::uint32_t type, std::vector<std::int64_t> ne)
    {
        tensor("blk." + std::to_string(il) + "." + role, type, std::move(ne));
    }
    // attn_norm, the Q, K, V and output projections (of `type`, V of `valueType`), their biases,
    // and the per-head Q and K norms.
    void attention(int il, std::int64_t embd, std::int64_t heads, std::int64_t kvHeads, std::int64_t head, std::uint32_t type,
                   std::uint32_t valueType, bool biases, bool qkNorm)
    {
        layer(il, "attn_norm.weight", F32, {embd});
        for (const auto& [role, rows] : {std::pair{"attn_q", heads * head}, {"attn_k", kvHeads * head}, {"attn_v", kvHeads * head}}) {
            layer(il, std::string(role) + ".weight", std::string(role) == "attn_v" ? valueType : type, {embd, rows});
            if (biases)
                layer(il, std::string(role) + ".bias", F32, {rows});
        }
        if (qkNorm) {
            layer(il, "attn_q_norm.weight", F32, {head});
            layer(il, "attn_k_norm.weight", F32, {head});
        }
        layer(il, "attn_output.weight", type, {heads * head, embd});
        if (biases)
            layer(il, "attn_output.bias", F32, {embd});
    }
    // The router and the routed experts' gate, up (of `type`) and down (of `downType`) projections.
    void experts(int il, std::int64_t embd, std::int64_t ff, std::int64_t count, std::uint32_t type, std::uint32_t downType, bool biases)
    {
        layer(il, "ffn_gate_inp.weight", F32, {embd, count});
        if (biases)
            layer(il, "ffn_gate_inp.bias", F32, {count});
        for (const char* role : {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"}) {
            const bool down = std::string(role) == "ffn_down_exps";
            layer(il, std::string(role) + ".weight", down ? downType : type, {down ? ff : embd, down ? embd : ff, count});
            if (biases)
                layer(il, std::string(role) + ".bias", F32, {down ? embd : ff, count});
        }
    }
    // The output norm and, unless the embeddings are tied (type 0 here), the output projection.
    ModelLayout finish(std::int64_t embedding, std::int64_t vocabulary, std::uint32_t outputType)
    {
        tensor("output_norm.weight", F32, {embedding});
        if (outputType != F32)
            tensor("output.weight", outputType, {embedding, vocabulary});
        return layout;
    }
};

// DeepSeek-V3 (671B) as convert_hf_to_gguf.py writes it today: 61 layers, the first 3 dense,
// 256 routed experts (top 8, 8 groups of which 4 are used, sigmoid) and one shared expert, q_lora
// 1536, kv_lora 512, rope 64, absorbed MLA tensors attn_k_b / attn_v_b.
ModelLayout deepSeekV3()
{
    constexpr std::int64_t embd = 7168, vocab = 129280, heads = 128, qLora = 1536, kvLora = 512, rope = 64, nope = 128, v = 128;
    constexpr std::int64_t denseFf = 18432, expertFf = 2048, experts = 256;
    LayoutBuilder b("DeepSeek-V3", "deepseek2", vocab);
    b.u32({
        {"context_length", 163840}, {"embedding_length", 7168}, {"block_count", 61}, {"feed_forward_length", 18432},
        {"attention.head_count", 128}, {"attention.head_count_kv", 1}, {"leading_dense_block_count", 3},
        {"attention.q_lora_rank", 1536}, {"attention.kv_lora_rank", 512}, {"attention.key_length", 576},
        {"attention.value_length", 512}, {"attention.key_length_mla", 192}, {"attention.value_length_mla", 128},
        {"expert_feed_forward_length", 2048}, {"expert_count", 256}, {"expert_shared_count", 1}, {"expert_used_count", 8},
        {"expert_group_count", 8}, {"expert_group_used_count", 4}, {"expert_gating_func", 2}, {"rope.dimension_count", 64},
        {"rope.scaling.original_context_length", 4096}});
    b.f32("attention.layer_norm_rms_epsilon", 1e-6f);
    b.f32("rope.freq_base", 10000.0f);
    b.f32("expert_weights_scale", 2.5f);
    b.set("deepseek2.expert_weights_norm", EncodedValue::boolean(true));
    b.set("deepseek2.rope.scaling.type", EncodedValue::string("yarn"));
    b.f32("rope.scaling.factor", 40.0f);
    b.f32("rope.scaling.yarn_log_multiplier", 0.1f);
    b.tensor("token_embd.weight", Q4_K, {embd, vocab});
    for (int il = 0; il < 61; ++il) {
        b.layer(il, "attn_norm.weight", F32, {embd});
        b.layer(il, "attn_q_a.weight", Q4_K, {embd, qLora});
        b.layer(il, "attn_q_a_norm.weight", F32, {qLora});
        b.layer(il, "attn_q_b.weight", Q4_K, {qLora, heads * (nope + rope)});
        b.layer(il, "attn_kv_a_mqa.weight", Q4_K, {embd, kvLora + rope});
        b.layer(il, "attn_kv_a_norm.weight", F32, {kvLora});
        b.layer(il, "attn_k_b.weight", Q8_0, {nope, kvLora, heads});
        b.layer(il, "attn_v_b.weight", Q4_K, {kvLora, v, heads});
        b.layer(il, "attn_output.weight", Q4_K, {heads * v, embd});
        b.layer(il, "ffn_norm.weight", F32, {embd});
        if (il < 3) {
            b.layer(il, "ffn_gate.weight", Q4_K, {embd, denseFf});
            b.layer(il, "ffn_up.weight", Q4_K, {embd, denseFf});
            b.layer(il, "ffn_down.weight", Q6_K, {denseFf, embd});
            continue;
        }
        b.experts(il, embd, expertFf, experts, Q4_K, Q6_K, false);
        b.layer(il, "exp_probs_b.bias", F32, {experts});
        b.layer(il, "ffn_gate_shexp.weight", Q4_K, {embd, expertFf});
        b.layer(il, "ffn_up_shexp.weight", Q4_K, {embd, expertFf});
        b.layer(il, "ffn_down_shexp.weight", Q6_K, {expertFf, embd});
    }
    return b.finish(embd, vocab, Q6_K);
}

// gpt-oss-120b: 36 layers alternating a 128-token window and full attention, 64 heads of 64 (8 KV
// heads) with sinks and biases, 128 MXFP4 experts (top 4) with biases.
ModelLayout gptOss120b()
{
    constexpr std::int64_t embd = 2880, vocab = 201088, heads = 64, kvHeads = 8, head = 64, experts = 128, ff = 2880;
    LayoutBuilder b("gpt-oss-120b", "gpt-oss", vocab);
    b.u32({
        {"context_length", 131072}, {"embedding_length", 2880}, {"block_count", 36}, {"feed_forward_length", 2880},
        {"attention.head_count", 64}, {"attention.head_count_kv", 8}, {"attention.key_length", 64},
        {"attention.value_length", 64}, {"expert_count", 128}, {"expert_used_count", 4}, {"expert_feed_forward_length", 2880},
        {"attention.sliding_window", 128}, {"rope.scaling.original_context_length", 4096}});
    b.f32("attention.layer_norm_rms_epsilon", 1e-5f);
    b.f32("rope.freq_base", 150000.0f);
    b.set("gpt-oss.rope.scaling.type", EncodedValue::string("yarn"));
    b.f32("rope.scaling.factor", 32.0f);
    b.tensor("token_embd.weight", Q8_0, {embd, vocab});
    for (int il = 0; il < 36; ++il) {
        b.attention(il, embd, heads, kvHeads, head, Q8_0, Q8_0, true, false);
        b.layer(il, "attn_sinks.weight", F32, {heads});
        b.layer(il, "post_attention_norm.weight", F32, {embd});
        b.experts(il, embd, ff, experts, MXFP4, MXFP4, true);
    }
    return b.finish(embd, vocab, Q8_0);
}

// Qwen3-235B-A22B: 94 layers, 64 heads of 128 (4 KV heads) with QK-norm, 128 experts (top 8).
ModelLayout qwen3Moe235b()
{
    constexpr std::int64_t embd = 4096, vocab = 151936, heads = 64, kvHeads = 4, head = 128, experts = 128, ff = 1536;
    LayoutBuilder b("Qwen3-235B-A22B", "qwen3moe", vocab);
    b.u32({
        {"context_length", 40960}, {"embedding_length", 4096}, {"block_count", 94}, {"feed_forward_length", 12288},
        {"attention.head_count", 64}, {"attention.head_count_kv", 4}, {"attention.key_length", 128},
        {"attention.value_length", 128}, {"expert_count", 128}, {"expert_used_count", 8}, {"expert_feed_forward_length", 1536}});
    b.f32("attention.layer_norm_rms_epsilon", 1e-6f);
    b.f32("rope.freq_base", 1000000.0f);
    b.tensor("token_embd.weight", Q4_K, {embd, vocab});
    for (int il = 0; il < 94; ++il) {
        b.attention(il, embd, heads, kvHeads, head, Q4_K, Q6_K, false, true);
        b.layer(il, "ffn_norm.weight", F32, {embd});
        b.experts(il, embd, ff, experts, Q4_K, Q6_K, false);
    }
    return b.finish(embd, vocab, Q6_K);
}

// Gemma-3-27B: 62 layers, five 1024-token sliding layers to one global, 32 heads of 128 (16 KV
// heads) with QK-norm, post-norms, a 21504-wide GELU FFN, tied embeddings of 262208 tokens.
ModelLayout gemma3x27b()
{
    constexpr std::int64_t embd = 5376, vocab = 262208, heads = 32, kvHeads = 16, head = 128, ff = 21504;
    LayoutBuilder b("Gemma-3-27B", "gemma3", vocab);
    b.u32({
        {"context_length", 131072}, {"embedding_length", 5376}, {"block_count", 62}, {"feed_forward_length", 21504},
        {"attention.head_count", 32}, {"attention.head_count_kv", 16}, {"attention.key_length", 128},
        {"attention.value_length", 128}, {"attention.sliding_window", 1024}});
    b.f32("attention.layer_norm_rms_epsilon", 1e-6f);
    b.f32("rope.freq_base", 1000000.0f);
    b.set("gemma3.rope.scaling.type", EncodedValue::string("linear"));
    b.f32("rope.scaling.factor", 8.0f);
    b.tensor("token_embd.weight", Q6_K, {embd, vocab});
    for (int il = 0; il < 62; ++il) {
        b.attention(il, embd, heads, kvHeads, head, Q4_K, Q6_K, false, true);
        b.layer(il, "post_attention_norm.weight", F32, {embd});
        b.layer(il, "ffn_norm.weight", F32, {embd});
        b.layer(il, "ffn_gate.weight", Q4_K, {embd, ff});
        b.layer(il, "ffn_up.weight", Q4_K, {embd, ff});
        b.layer(il, "ffn_down.weight", Q6_K, {ff, embd});
        b.layer(il, "post_ffw_norm.weight", F32, {embd});
    }
    return b.finish(embd, vocab, F32);
}

std::uint64_t bytesOf(const LayoutTensor& tensor)
{
    const gguf::TypeTraits* type = gguf::findType(tensor.typeId);
    std::uint64_t elements = 1;
    for (const std::int64_t n : tensor.ne)
        elements *= static_cast<std::uint64_t>(n);
    return type ? elements / type->blockSize * type->blockBytes : 0;
}

// Keeps what is written until the first piece of tensor data, and counts the rest.
class HeaderSink final : public gguf::ByteSink {
public:
    explicit HeaderSink(const char* zeros) : m_zeros(zeros) {}
    gguf::Status write(const void* data, std::size_t size) override
    {
        m_inData = m_inData || data == m_zeros;
        if (!m_inData)
            m_header.append(static_cast<const char*>(data), size);
        m_size += size;
        return gguf::Ok{};
    }
    gguf::Status commit() override { return gguf::Ok{}; }
    std::string header() const { return m_header; }
    std::uint64_t size() const { return m_size; }

private:
    const char* m_zeros;
    bool m_inData = false;
    std::string m_header;
    std::uint64_t m_size = 0;
};

// A file of `size` bytes: `header`, then zeros.
class HeaderThenZeros final : public gguf::ByteRangeSource {
public:
    HeaderThenZeros(std::string header, std::uint64_t size) : m_header(std::move(header)), m_size(size) {}
    std::uint64_t size() const override { return m_size; }
    gguf::Status read(const std::vector<gguf::ByteRange>& ranges) override
    {
        for (const gguf::ByteRange& range : ranges) {
            std::fill(range.out.begin(), range.out.end(), std::uint8_t{0});
            if (range.offset < m_header.size()) {
                const std::size_t n = std::min<std::size_t>(range.out.size(), m_header.size() - range.offset);
                std::memcpy(range.out.data(), m_header.data() + range.offset, n);
            }
        }
        return gguf::Ok{};
    }
    gguf::Status checkUnchanged() const override { return gguf::Ok{}; }

private:
    std::string m_header;
    std::uint64_t m_size;
};
}  // namespace

std::uint64_t ModelLayout::tensorBytes() const
{
    std::uint64_t total = 0;
    for (const LayoutTensor& tensor : tensors)
        total += bytesOf(tensor);
    return total;
}

std::vector<std::string> bigLayoutNames()
{
    return {"DeepSeek-V3", "gpt-oss-120b", "Qwen3-235B-A22B", "Gemma-3-27B"};
}

ModelLayout bigLayout(const std::string& name)
{
    if (name == "DeepSeek-V3")
        return deepSeekV3();
    if (name == "gpt-oss-120b")
        return gptOss120b();
    if (name == "Qwen3-235B-A22B")
        return qwen3Moe235b();
    if (name == "Gemma-3-27B")
        return gemma3x27b();
    return {};
}

gguf::Status writeLayout(const ModelLayout& layout, gguf::ByteSink& sink, const char* zeros, std::size_t zerosSize)
{
    gguf::GgufWriter writer;
    for (const auto& [key, value] : layout.metadata)
        writer.setValue(key, value);
    for (const LayoutTensor& tensor : layout.tensors) {
        const std::uint64_t bytes = bytesOf(tensor);
        gguf::Status added = writer.addTensor({tensor.name, tensor.typeId, tensor.ne}, [bytes, zeros, zerosSize](gguf::ByteSink& out) -> gguf::Status {
            for (std::uint64_t done = 0; done < bytes;) {
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(zerosSize, bytes - done));
                if (gguf::Status written = out.write(zeros, n); !written)
                    return written;
                done += n;
            }
            return gguf::Ok{};
        });
        if (!added)
            return added;
    }
    return writer.write(sink);
}

gguf::Result<std::shared_ptr<const gguf::Model>> openLayout(const ModelLayout& layout)
{
    // The sink never reads the zeros; pieces of 16 MiB keep a 400 GB layout to some 26,000 writes.
    static const std::string zeros(std::size_t{16} << 20, '\0');
    HeaderSink sink(zeros.data());
    if (gguf::Status written = writeLayout(layout, sink, zeros.data(), zeros.size()); !written)
        return written.error();
    const std::string name = layout.name + ".gguf";
    auto mapped = gguf::MappedFile::openFrom(name, std::make_shared<HeaderThenZeros>(sink.header(), sink.size()));
    if (!mapped)
        return mapped.error();
    std::shared_ptr<const gguf::MappedFile> file = std::move(mapped.value());
    return gguf::Model::open(name, [file](const std::string&) { return gguf::GgufFile::parse(file); });
}

}  // namespace testsupport
