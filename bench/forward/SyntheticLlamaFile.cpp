#include "SyntheticLlamaFile.h"

#include "core/write/GgufWriter.h"

#include <cstdio>
#include <random>
#include <vector>

namespace forwardbench {

namespace {

// Streams `count` floats: norms are 1, matrices uniform in +-scale, chunk by chunk.
gguf::TensorDataProducer randomFloats(std::uint64_t count, float scale, std::uint32_t seed)
{
    return [count, scale, seed](gguf::ByteSink& out) -> gguf::Status {
        std::minstd_rand random(seed);
        std::vector<float> chunk(std::uint64_t{1} << 20);
        for (std::uint64_t done = 0; done < count;) {
            const std::uint64_t n = std::min<std::uint64_t>(chunk.size(), count - done);
            for (std::uint64_t i = 0; i < n; ++i)
                chunk[i] = scale == 0.0f ? 1.0f : scale * (static_cast<float>(random()) / 1073741823.5f - 1.0f);
            if (gguf::Status s = out.write(chunk.data(), n * sizeof(float)); !s)
                return s;
            done += n;
        }
        return gguf::Ok{};
    };
}

}  // namespace

LlamaShape mixtralShape()
{
    LlamaShape shape;
    shape.feedForward = 14336;
    shape.kvHeads = 8;
    shape.layers = 1;
    shape.experts = 8;
    shape.expertsUsed = 2;
    return shape;
}

LlamaShape qwen3MoeShape()
{
    LlamaShape shape;
    shape.embedding = 2048;
    shape.feedForward = 768;
    shape.heads = 32;
    shape.kvHeads = 4;
    shape.layers = 2;
    shape.experts = 128;
    shape.expertsUsed = 8;
    return shape;
}

std::string writeSyntheticLlama(const std::string& path, const LlamaShape& s)
{
    using gguf::EncodedValue;
    gguf::GgufWriter writer;
    writer.setValue("general.architecture", EncodedValue::string("llama"));
    writer.setValue("general.name", EncodedValue::string("synthetic 7B-shaped llama (forward bench)"));
    writer.setValue("general.file_type", EncodedValue::u32(0));
    writer.setValue("llama.vocab_size", EncodedValue::u32(static_cast<std::uint32_t>(s.vocabulary)));
    writer.setValue("llama.context_length", EncodedValue::u32(4096));
    writer.setValue("llama.embedding_length", EncodedValue::u32(static_cast<std::uint32_t>(s.embedding)));
    writer.setValue("llama.block_count", EncodedValue::u32(static_cast<std::uint32_t>(s.layers)));
    writer.setValue("llama.feed_forward_length", EncodedValue::u32(static_cast<std::uint32_t>(s.feedForward)));
    writer.setValue("llama.rope.dimension_count", EncodedValue::u32(static_cast<std::uint32_t>(s.embedding / s.heads)));
    writer.setValue("llama.attention.head_count", EncodedValue::u32(static_cast<std::uint32_t>(s.heads)));
    writer.setValue("llama.attention.head_count_kv", EncodedValue::u32(static_cast<std::uint32_t>(s.kvHeads)));
    writer.setValue("llama.rope.freq_base", EncodedValue::f32(10000.0f));
    writer.setValue("llama.attention.layer_norm_rms_epsilon", EncodedValue::f32(1e-5f));
    if (s.experts > 0) {
        writer.setValue("llama.expert_count", EncodedValue::u32(static_cast<std::uint32_t>(s.experts)));
        writer.setValue("llama.expert_used_count", EncodedValue::u32(static_cast<std::uint32_t>(s.expertsUsed)));
    }
    std::vector<std::string> tokens;
    std::string scores, types;
    for (std::int64_t i = 0; i < s.vocabulary; ++i) {
        // <unk>, <s>, </s>, the 256 byte tokens (llama.cpp's SPM vocabulary looks up <0x0A>), then
        // plain pieces.
        char byteToken[8];
        std::snprintf(byteToken, sizeof byteToken, "<0x%02X>", static_cast<unsigned>(i - 3) & 0xFFu);
        tokens.push_back(i == 0 ? "<unk>" : i == 1 ? "<s>" : i == 2 ? "</s>" : i < 259 ? std::string(byteToken) : "t" + std::to_string(i));
        const float score = 0.0f;
        const std::int32_t type = i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1;
        scores.append(reinterpret_cast<const char*>(&score), 4);
        types.append(reinterpret_cast<const char*>(&type), 4);
    }
    writer.setValue("tokenizer.ggml.model", EncodedValue::string("llama"));
    writer.setValue("tokenizer.ggml.tokens", EncodedValue::stringArray(tokens));
    writer.setValue("tokenizer.ggml.scores", EncodedValue::fixedArray(gguf::ValueType::F32, scores).value());
    writer.setValue("tokenizer.ggml.token_type", EncodedValue::fixedArray(gguf::ValueType::I32, types).value());
    writer.setValue("tokenizer.ggml.bos_token_id", EncodedValue::u32(1));
    writer.setValue("tokenizer.ggml.eos_token_id", EncodedValue::u32(2));

    std::uint32_t seed = 1;
    const auto add = [&](const std::string& name, std::vector<std::int64_t> ne, float scale) -> std::string {
        std::uint64_t count = 1;
        for (const auto n : ne)
            count *= static_cast<std::uint64_t>(n);
        const gguf::Status added = writer.addTensor(gguf::TensorSpec{name, 0, ne}, randomFloats(count, scale, seed++));
        return added ? std::string() : added.error().toString();
    };
    const std::int64_t kv = s.kvHeads * (s.embedding / s.heads);
    std::string error = add("token_embd.weight", {s.embedding, s.vocabulary}, 0.5f);
    for (std::int64_t l = 0; l < s.layers && error.empty(); ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        for (const auto& [name, ne, scale] : std::vector<std::tuple<std::string, std::vector<std::int64_t>, float>>{
                 {"attn_norm.weight", {s.embedding}, 0.0f},
                 {"attn_q.weight", {s.embedding, s.embedding}, 0.03f},
                 {"attn_k.weight", {s.embedding, kv}, 0.03f},
                 {"attn_v.weight", {s.embedding, kv}, 0.03f},
                 {"attn_output.weight", {s.embedding, s.embedding}, 0.03f},
                 {"ffn_norm.weight", {s.embedding}, 0.0f}})
            if (error.empty())
                error = add(p + name, ne, scale);
        using Spec = std::tuple<std::string, std::vector<std::int64_t>, float>;
        const std::vector<Spec> ffn = s.experts > 0 ? std::vector<Spec>{{"ffn_gate_inp.weight", {s.embedding, s.experts}, 0.03f},
                                                                        {"ffn_gate_exps.weight", {s.embedding, s.feedForward, s.experts}, 0.03f},
                                                                        {"ffn_up_exps.weight", {s.embedding, s.feedForward, s.experts}, 0.03f},
                                                                        {"ffn_down_exps.weight", {s.feedForward, s.embedding, s.experts}, 0.02f}}
                                                    : std::vector<Spec>{{"ffn_gate.weight", {s.embedding, s.feedForward}, 0.03f},
                                                                        {"ffn_up.weight", {s.embedding, s.feedForward}, 0.03f},
                                                                        {"ffn_down.weight", {s.feedForward, s.embedding}, 0.02f}};
        for (const auto& [name, ne, scale] : ffn)
            if (error.empty())
                error = add(p + name, ne, scale);
    }
    if (error.empty())
        error = add("output_norm.weight", {s.embedding}, 0.0f);
    if (error.empty())
        error = add("output.weight", {s.embedding, s.vocabulary}, 0.03f);
    if (!error.empty())
        return error;
    const gguf::Status written = writer.writeFile(path);
    return written ? std::string() : written.error().toString();
}

}  // namespace forwardbench
