// Writes llama.cpp's logits at chosen positions of one sequence, for the KV cache oracle in this
// folder (README.md). Not part of the build: it links llama.cpp's libraries.
//
// usage: make-kv-oracle MODEL OUT.f32 CTK CTV FA UBATCH TOKENS POSITIONS
//   CTK, CTV  f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl   (llama.cpp's -ctk / -ctv)
//   FA        on | off                                        (-fa)
//   UBATCH    queries per ubatch (-ub); the batch is the whole sequence
//   TOKENS    token ids, comma-separated, decoded as one sequence at positions 0, 1, ...
//   POSITIONS the positions whose logits are written, comma-separated, in that order
// OUT.f32 holds, per position, n_vocab float32 little-endian values.

#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<int> numbers(const char* text)
{
    std::vector<int> out;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
        out.push_back(std::stoi(item));
    return out;
}

ggml_type cacheType(const char* name)
{
    const struct { const char* name; ggml_type type; } types[] = {
        {"f32", GGML_TYPE_F32},   {"f16", GGML_TYPE_F16},   {"bf16", GGML_TYPE_BF16}, {"q8_0", GGML_TYPE_Q8_0},     {"q4_0", GGML_TYPE_Q4_0},
        {"q4_1", GGML_TYPE_Q4_1}, {"q5_0", GGML_TYPE_Q5_0}, {"q5_1", GGML_TYPE_Q5_1}, {"iq4_nl", GGML_TYPE_IQ4_NL},
    };
    for (const auto& t : types)
        if (std::strcmp(name, t.name) == 0)
            return t.type;
    std::fprintf(stderr, "unknown cache type %s\n", name);
    std::exit(2);
}

void quiet(ggml_log_level level, const char* text, void*)
{
    if (level >= GGML_LOG_LEVEL_WARN)
        std::fputs(text, stderr);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 9) {
        std::fprintf(stderr, "usage: make-kv-oracle MODEL OUT.f32 CTK CTV FA UBATCH TOKENS POSITIONS\n");
        return 2;
    }
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    llama_model* model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!model)
        return 3;
    const std::vector<int> tokens = numbers(argv[7]);
    const std::vector<int> positions = numbers(argv[8]);
    llama_context_params params = llama_context_default_params();
    params.n_ctx = static_cast<uint32_t>((tokens.size() + 255) / 256 * 256);
    params.n_batch = params.n_ctx;
    params.n_ubatch = static_cast<uint32_t>(std::atoi(argv[6]));
    params.n_threads = params.n_threads_batch = 1;
    params.type_k = cacheType(argv[3]);
    params.type_v = cacheType(argv[4]);
    params.flash_attn_type = std::strcmp(argv[5], "on") == 0 ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context* context = llama_init_from_model(model, params);
    if (!context)
        return 4;
    llama_batch batch = llama_batch_init(static_cast<int32_t>(tokens.size()), 0, 1);
    for (size_t i = 0; i < tokens.size(); ++i) {
        batch.token[i] = tokens[i];
        batch.pos[i] = static_cast<llama_pos>(i);
        batch.n_seq_id[i] = 1;
        batch.seq_id[i][0] = 0;
        batch.logits[i] = 1;
    }
    batch.n_tokens = static_cast<int32_t>(tokens.size());
    if (llama_decode(context, batch) != 0)
        return 5;
    const int vocabulary = llama_vocab_n_tokens(llama_model_get_vocab(model));
    FILE* out = std::fopen(argv[2], "wb");
    if (!out)
        return 6;
    for (const int position : positions)
        std::fwrite(llama_get_logits_ith(context, position), sizeof(float), static_cast<size_t>(vocabulary), out);
    std::fclose(out);
    llama_batch_free(batch);
    llama_free(context);
    llama_model_free(model);
    return 0;
}
