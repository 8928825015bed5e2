#include "core/recipe/LlamaQuantRecipe.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <optional>

namespace gguf {

namespace {

using T = GgmlTypeId;

// llama_ftype numbers the rules test.
enum FileType : std::uint32_t {
    kQ4_0 = 2, kQ5_0 = 8, kQ2_K = 10, kQ3_K_S = 11, kQ3_K_M = 12, kQ3_K_L = 13, kQ4_K_S = 14, kQ4_K_M = 15,
    kQ5_K_M = 17, kIQ2_XXS = 19, kIQ2_XS = 20, kQ2_K_S = 21, kIQ3_XS = 22, kIQ3_XXS = 23, kIQ1_S = 24,
    kIQ4_NL = 25, kIQ3_S = 26, kIQ3_M = 27, kIQ2_S = 28, kIQ2_M = 29, kIQ4_XS = 30, kIQ1_M = 31,
    kTQ1_0 = 36, kTQ2_0 = 37, kMXFP4_MOE = 38, kQ2_0 = 41,
};

// The broad roles llama-quant.cpp's tensor_get_category tells apart, tested in its order.
enum class Role { TokenEmbd, AttnQ, AttnV, AttnK, AttnQkv, AttnKvB, AttnOutput, FfnUp, FfnGate, FfnDown, Output, Other };

bool has(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

bool isTokenEmbedding(std::string_view name)
{
    return name == "token_embd.weight" || name == "per_layer_token_embd.weight";
}

Role roleOf(std::string_view name)
{
    if (name == "output.weight")
        return Role::Output;
    if (isTokenEmbedding(name))
        return Role::TokenEmbd;
    if (has(name, "attn_qkv.weight"))
        return Role::AttnQkv;
    if (has(name, "attn_kv_b.weight"))
        return Role::AttnKvB;
    if (has(name, "attn_v.weight"))
        return Role::AttnV;
    if (has(name, "attn_k.weight"))
        return Role::AttnK;
    if (has(name, "attn_q.weight"))
        return Role::AttnQ;
    if (has(name, "attn_output.weight"))
        return Role::AttnOutput;
    if (has(name, "ffn_up"))
        return Role::FfnUp;
    if (has(name, "ffn_gate"))
        return Role::FfnGate;
    if (has(name, "ffn_down"))
        return Role::FfnDown;
    return Role::Other;
}

// attn_v and the fused tensors that contain it are the ones that get more bits.
bool isValueLike(Role role)
{
    return role == Role::AttnV || role == Role::AttnQkv || role == Role::AttnKvB;
}

// sscanf(name, "blk.%d.", &layer): whitespace, a sign and digits after "blk."; nullopt when
// there are no digits.
std::optional<long long> layerNumber(std::string_view name)
{
    if (name.substr(0, 4) != "blk.")
        return std::nullopt;
    std::size_t at = 4;
    while (at < name.size() && (name[at] == ' ' || (name[at] >= '\t' && name[at] <= '\r')))
        ++at;
    bool negative = false;
    if (at < name.size() && (name[at] == '+' || name[at] == '-'))
        negative = name[at++] == '-';
    if (at >= name.size() || name[at] < '0' || name[at] > '9')
        return std::nullopt;
    long long value = 0;
    for (; at < name.size() && name[at] >= '0' && name[at] <= '9'; ++at)
        value = std::min<long long>(value * 10 + (name[at] - '0'), static_cast<long long>(INT_MAX) + 1);
    return negative ? -value : value;
}

int orderLayer(std::string_view name)
{
    const auto layer = layerNumber(name);
    if (!layer)
        return -1;
    return static_cast<int>(std::clamp<long long>(*layer, INT_MIN, INT_MAX));
}

// Name fragments and names tensor_allows_quantization leaves alone.
constexpr std::string_view kKeptFragments[] = {
    "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel", "per_layer_model_proj",
    "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight", "indexer.q_proj.weight",
    "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_v0.weight",
    "time_mix_v1.weight", "time_mix_v2.weight", "time_mix_a0.weight", "time_mix_a1.weight", "time_mix_a2.weight",
    "time_mix_g1.weight", "time_mix_g2.weight", "time_mix_decay_w1.weight", "time_mix_decay_w2.weight",
    "time_mix_lerp_fused.weight", "attn_rel_b.weight", ".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_",
    ".rel_pos", ".patch_embd", ".patch_merger", "a.rvq.codebook", "mm.a.code_embd",
};
constexpr std::string_view kKeptNames[] = {"position_embd.weight", "token_types.weight"};

bool isQuantizedType(std::uint32_t typeId)
{
    const TypeTraits* traits = findType(typeId);
    return traits && traits->kind == TypeKind::Quantized;
}

std::uint32_t blockSizeOf(std::uint32_t typeId)
{
    const TypeTraits* traits = findType(typeId);
    return traits ? traits->blockSize : 1;
}

constexpr std::uint32_t id(T type)
{
    return typeIdValue(type);
}

// The walk over the tensors: counters the rules read and advance, as quantize_state_impl.
struct RecipeState {
    const ModelShape& shape;
    std::uint32_t ftype = 0;
    bool hasImatrix = false;
    std::optional<std::uint32_t> outputTensorType = std::nullopt;
    bool tiedEmbeddings = true;
    int attnVCount = 0;
    int attnVSeen = 0;
    int layerCount = 0;
    int ffnDownSeen = 0;
    int ffnGateSeen = 0;
    int ffnUpSeen = 0;

    bool isFalcon() const { return shape.architecture == "falcon"; }
    int experts() const { return static_cast<int>(shape.expertCount); }
    std::uint32_t gqa() const { return shape.gqa(); }
    bool ftypeIn(std::initializer_list<std::uint32_t> list) const { return std::find(list.begin(), list.end(), ftype) != list.end(); }
};

bool moreBits(int layer, int layers)
{
    return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

// The layer an ffn rule looks at: the running count, except in MoE models, whose expert
// tensors need not come in layer order, where llama.cpp reads it from the name.
Result<int> ffnLayer(const RecipeState& state, int seen, std::string_view name)
{
    if (state.experts() <= 1)
        return seen;
    const auto layer = layerNumber(name);
    if (!layer)
        return Error{"failed to determine the layer of tensor " + std::string(name), Error::kNoOffset, {}};
    if (*layer < 0 || *layer >= state.layerCount)
        return Error{"bad layer " + std::to_string(*layer) + " for tensor " + std::string(name) + ": must be in [0, "
                         + std::to_string(state.layerCount) + ")", Error::kNoOffset, {}};
    return static_cast<int>(*layer);
}

// llama_tensor_get_type_impl: the preset's per-tensor rules.
Result<std::uint32_t> presetRules(RecipeState& s, std::uint32_t type, const TensorInfo& tensor, Role role)
{
    const std::string_view name = tensor.name;
    const bool lowIq = s.ftypeIn({kIQ2_XXS, kIQ2_XS, kIQ1_S, kIQ2_S, kIQ2_M, kIQ1_M});
    const bool iq2sm = s.ftypeIn({kIQ2_S, kIQ2_M});

    if (role == Role::Output || (s.tiedEmbeddings && role == Role::TokenEmbd)) {
        if (s.outputTensorType)
            return *s.outputTensorType;
        if (s.ftype == kMXFP4_MOE)
            return id(T::Q8_0);
        if (s.isFalcon() || tensor.ne[0] % blockSizeOf(type) != 0)
            return id(T::Q8_0);
        if (s.ftypeIn({kIQ2_XXS, kIQ2_XS, kIQ3_XXS, kIQ1_S, kIQ2_S, kIQ2_M, kIQ1_M}))
            return id(T::Q5_K);
        return type != id(T::Q8_0) ? id(T::Q6_K) : type;
    }
    if (s.ftype == kMXFP4_MOE) {
        const bool bailingExpert = role == Role::FfnUp || role == Role::FfnGate || role == Role::FfnDown;
        const bool bailing = s.shape.architecture == "bailingmoe3";
        return tensor.ne[2] > 1 && (!bailing || bailingExpert) ? id(T::MXFP4) : id(T::Q8_0);
    }
    if (role == Role::TokenEmbd) {
        if (s.ftypeIn({kIQ2_XXS, kIQ2_XS, kIQ1_S, kIQ1_M}))
            return id(T::Q2_K);
        if (iq2sm || s.ftype == kIQ3_XXS)
            return id(T::IQ3_S);
        if (s.ftypeIn({kTQ1_0, kTQ2_0, kQ2_0}))
            return id(T::Q4_K);
        return type;
    }
    if (lowIq) {
        if (isValueLike(role)) {
            ++s.attnVSeen;
            if (s.gqa() >= 4 || s.experts() >= 4)
                return id(T::Q4_K);
            return iq2sm ? id(T::IQ3_S) : id(T::Q2_K);
        }
        if (s.experts() == 8 && role == Role::AttnK)
            return id(T::Q4_K);
        if (role == Role::FfnDown) {
            const bool early = s.ffnDownSeen < s.layerCount / 8;
            ++s.ffnDownSeen;
            return early ? (iq2sm ? id(T::IQ3_S) : id(T::Q2_K)) : type;
        }
        if (role == Role::AttnOutput) {
            if (s.experts() == 8)
                return id(T::Q5_K);
            if (s.ftypeIn({kIQ1_S, kIQ1_M}))
                return id(T::IQ2_XXS);
            if (iq2sm)
                return id(T::IQ3_S);
        }
        return type;
    }
    if (isValueLike(role)) {
        const std::uint32_t gqa = s.gqa();
        if (s.ftype == kQ2_K)
            type = gqa >= 4 ? id(T::Q4_K) : id(T::Q3_K);
        else if (s.ftype == kQ2_K_S && gqa >= 4)
            type = id(T::Q4_K);
        else if (s.ftype == kIQ3_XXS)
            type = gqa >= 4 ? id(T::Q4_K) : !s.hasImatrix ? id(T::IQ3_S) : id(T::IQ3_XXS);
        else if (s.ftypeIn({kIQ3_XS, kIQ3_S}) && gqa >= 4)
            type = id(T::Q4_K);
        else if (s.ftype == kIQ3_M)
            type = id(T::Q4_K);
        else if (s.ftype == kQ3_K_M)
            type = s.attnVSeen < 2 ? id(T::Q5_K) : id(T::Q4_K);
        else if (s.ftype == kQ3_K_L)
            type = id(T::Q5_K);
        else if (s.ftypeIn({kIQ4_NL, kIQ4_XS}) && gqa >= 4)
            type = id(T::Q5_K);
        else if (s.ftypeIn({kQ4_K_M, kQ5_K_M}) && moreBits(s.attnVSeen, s.attnVCount))
            type = id(T::Q6_K);
        else if (s.ftype == kQ4_K_S && s.attnVSeen < 4)
            type = id(T::Q5_K);
        // A 70B shares each attn_v among 8 heads: the tensor is small, more bits are cheap.
        if (s.shape.is70B && (type == id(T::Q3_K) || type == id(T::Q4_K)))
            type = id(T::Q5_K);
        if (s.experts() == 8)
            type = id(T::Q8_0);
        ++s.attnVSeen;
        return type;
    }
    if (role == Role::AttnK) {
        if (s.experts() == 8)
            return id(T::Q8_0);
        if (s.ftype == kIQ3_XS)
            return id(T::IQ3_XXS);
        if (s.ftype == kIQ3_XXS)
            return id(T::IQ2_S);
        return type;
    }
    if (role == Role::AttnQ) {
        if (s.ftype == kIQ3_XS)
            return id(T::IQ3_XXS);
        if (s.ftype == kIQ3_XXS)
            return id(T::IQ2_S);
        return type;
    }
    if (role == Role::FfnDown) {
        auto layer = ffnLayer(s, s.ffnDownSeen, name);
        if (!layer)
            return layer.error();
        const int i = *layer;
        const int n = s.layerCount;
        if (s.ftype == kQ2_K)
            type = id(T::Q3_K);
        else if (s.ftype == kQ2_K_S) {
            if (i < n / 8)
                type = id(T::Q4_K);
        } else if (s.ftype == kIQ3_XXS && !s.hasImatrix)
            type = i < n / 8 ? id(T::Q4_K) : id(T::Q3_K);
        else if (s.ftype == kQ3_K_M)
            type = i < n / 16 ? id(T::Q5_K) : (!s.isFalcon() || moreBits(i, n)) ? id(T::Q4_K) : id(T::Q3_K);
        else if (s.ftype == kIQ3_M && (i < n / 8 || (s.experts() == 8 && moreBits(i, n))))
            type = id(T::Q4_K);
        else if (s.ftype == kQ3_K_L)
            type = s.isFalcon() ? id(T::Q4_K) : id(T::Q5_K);
        else if (s.ftype == kQ4_K_M) {
            if (s.isFalcon())
                type = i < n / 16 ? id(T::Q6_K) : moreBits(i, n) ? id(T::Q5_K) : id(T::Q4_K);
            else if (moreBits(i, n))
                type = id(T::Q6_K);
        } else if (i < n / 8 && s.ftypeIn({kIQ4_NL, kIQ4_XS}) && !s.hasImatrix)
            type = id(T::Q5_K);
        else if (s.ftype == kQ5_K_M && moreBits(i, n))
            type = id(T::Q6_K);
        else if (s.ftype == kQ4_K_S && !s.isFalcon() && i < n / 8)
            type = id(T::Q5_K);
        else if (s.ftypeIn({kQ4_0, kQ5_0}) && s.hasImatrix && i < n / 8)
            type = s.ftype == kQ4_0 ? id(T::Q4_1) : id(T::Q5_1);  // first ffn_down layers go wild at 4/5 bits
        ++s.ffnDownSeen;
        return type;
    }
    if (role == Role::AttnOutput) {
        if (!s.isFalcon()) {
            if (s.experts() == 8) {
                if (s.ftypeIn({kQ2_K, kIQ3_XS, kIQ3_XXS, kQ3_K_S, kQ3_K_M, kIQ4_NL, kQ4_K_S, kQ4_K_M, kIQ3_S, kIQ3_M, kIQ4_XS}))
                    type = id(T::Q5_K);
            } else if (s.ftype == kQ2_K)
                type = id(T::Q3_K);
            else if (s.ftype == kIQ3_XXS)
                type = id(T::IQ3_S);
            else if (s.ftype == kQ3_K_M || s.ftype == kIQ3_M)
                type = id(T::Q4_K);
            else if (s.ftype == kQ3_K_L)
                type = id(T::Q5_K);
        } else if (s.ftype == kQ3_K_L)
            type = id(T::Q4_K);
        return type;
    }
    // (llama.cpp also has attn_qkv rules here, but attn_qkv already took the attn_v branch.)
    if (role == Role::FfnGate || role == Role::FfnUp) {
        int& seen = role == Role::FfnGate ? s.ffnGateSeen : s.ffnUpSeen;
        auto layer = ffnLayer(s, seen, name);
        if (!layer)
            return layer.error();
        const int n = s.layerCount;
        if (s.ftype == kIQ3_XS && *layer >= n / 8 && *layer < 7 * n / 8)
            type = id(T::IQ3_XXS);
        ++seen;
        return type;
    }
    return type;
}

// The block-32 type llama-quantize demotes a block-256 type to when a row does not fit it;
// nullopt for the types of 32 or fewer elements a block, which have nothing smaller to go to.
// Fails for the other types (there are none among llama-quantize's targets today), as
// llama-quantize throws for them.
Result<std::optional<std::uint32_t>> smallerBlockType(const TensorInfo& tensor, std::uint32_t type)
{
    switch (static_cast<T>(type)) {
    case T::IQ1_S: case T::IQ1_M: case T::IQ2_XXS: case T::IQ2_XS: case T::IQ2_S: case T::IQ3_XXS: case T::IQ3_S:
    case T::IQ4_XS:
        return std::optional{id(T::IQ4_NL)};
    case T::Q2_0: case T::Q2_K: case T::Q3_K: case T::TQ1_0: case T::TQ2_0:
        return std::optional{id(T::Q4_0)};
    case T::Q4_K: return std::optional{id(T::Q5_0)};
    case T::Q5_K: return std::optional{id(T::Q5_1)};
    case T::Q6_K: return std::optional{id(T::Q8_0)};
    default:
        if (blockSizeOf(type) <= 32)
            return std::optional<std::uint32_t>{};
        return Error{"tensor " + std::string(tensor.name) + ": row length " + std::to_string(tensor.ne[0]) + " does not fit "
                         + typeName(type) + " blocks of " + std::to_string(blockSizeOf(type))
                         + " and llama-quantize defines no fallback type for " + typeName(type), tensor.infoOffset, {}};
    }
}

// tensor_type_fallback: a type whose block the row fits. The smaller-block type when the row
// fits it, otherwise F16 (block 1), which every row fits.
Result<std::uint32_t> fallbackType(const TensorInfo& tensor, std::uint32_t type, RecipeTensor& entry)
{
    if (tensor.ne[0] % blockSizeOf(type) == 0)
        return type;
    auto smaller = smallerBlockType(tensor, type);
    if (!smaller)
        return smaller.error();
    std::uint32_t fallback = id(T::F16);
    if (*smaller && tensor.ne[0] % blockSizeOf(**smaller) == 0)
        fallback = **smaller;
    entry.fellBack = true;
    entry.fellBackFrom = type;
    entry.note = "row length " + std::to_string(tensor.ne[0]) + " does not fit " + typeName(type) + " blocks of "
               + std::to_string(blockSizeOf(type)) + "; falls back to " + typeName(fallback);
    return fallback;
}

// tensor_requires_imatrix: the very low-bit types, and Q2_K inside a Q2_K_S file.
bool needsImatrix(std::string_view name, std::uint32_t type, std::uint32_t ftype)
{
    if (isTokenEmbedding(name) || name == "output.weight")
        return false;
    switch (static_cast<T>(type)) {
    case T::IQ3_XXS: case T::IQ2_XXS: case T::IQ2_XS: case T::IQ2_S: case T::IQ1_M: case T::IQ1_S:
        return true;
    case T::Q2_K:
        return ftype == kQ2_K_S;
    default:
        return false;
    }
}

std::uint64_t outputBytes(const TensorInfo& tensor, std::uint32_t type)
{
    if (type == tensor.typeId)
        return tensor.nbytes;
    const TypeTraits* traits = findType(type);
    if (!traits)
        return 0;
    return tensor.rowCount() * (static_cast<std::uint64_t>(tensor.ne[0]) / traits->blockSize * traits->blockBytes);
}

}  // namespace

bool llamaTensorOrderLess(std::string_view a, std::string_view b)
{
    const int layerA = orderLayer(a);
    const int layerB = orderLayer(b);
    if (layerA != layerB)
        return layerA < layerB;
    return a < b;
}

bool llamaQuantizeAllows(std::string_view name, std::uint32_t nDims)
{
    if (nDims < 2 || name.size() < 6 || name.substr(name.size() - 6) != "weight")
        return false;
    for (const std::string_view fragment : kKeptFragments)
        if (has(name, fragment))
            return false;
    for (const std::string_view kept : kKeptNames)
        if (name == kept)
            return false;
    return true;
}

const RecipeTensor* Recipe::find(std::string_view name) const
{
    for (const RecipeTensor& tensor : tensors)
        if (tensor.source->name == name)
            return &tensor;
    return nullptr;
}

Result<Recipe> computeRecipe(const ModelShape& shape, const std::vector<TensorInfo>& tensors, const RecipeOptions& options)
{
    if (!options.preset)
        return Error{"no quantization preset given", Error::kNoOffset, {}};
    auto rules = CompiledTensorTypeRules::compile(options.rules);
    if (!rules)
        return rules.error();

    std::vector<std::size_t> order(tensors.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return llamaTensorOrderLess(tensors[a].name, tensors[b].name); });

    RecipeState state{shape};
    state.ftype = options.preset->fileType;
    state.hasImatrix = options.hasImatrix;
    state.outputTensorType = options.outputTensorType;
    state.layerCount = static_cast<int>(std::min<std::uint32_t>(shape.layerCount, INT_MAX));
    for (const TensorInfo& tensor : tensors) {
        const Role role = roleOf(tensor.name);
        state.attnVCount += isValueLike(role);
        if (role == Role::Output)
            state.tiedEmbeddings = false;
    }

    const std::uint32_t defaultType = typeIdValue(options.preset->defaultType);
    Recipe recipe;
    recipe.preset = options.preset;
    recipe.hasImatrix = options.hasImatrix;
    for (const std::size_t index : order) {
        const TensorInfo& tensor = tensors[index];
        RecipeTensor entry;
        entry.source = &tensor;
        entry.typeId = tensor.typeId;
        entry.quantizable = llamaQuantizeAllows(tensor.name, tensor.nDims);
        if (!entry.quantizable) {
            entry.note = tensor.nDims < 2 ? "1-D: kept" : "kept, as llama-quantize keeps it";
        } else {
            std::uint32_t type = defaultType;
            const Role role = roleOf(tensor.name);
            const std::optional<std::uint32_t> forced = role == Role::TokenEmbd ? options.tokenEmbeddingType
                                                      : role == Role::Output    ? options.outputTensorType
                                                                                : std::nullopt;
            if (forced) {
                if (tensor.ne[0] % blockSizeOf(*forced) != 0)
                    return Error{"tensor " + std::string(tensor.name) + ": row length " + std::to_string(tensor.ne[0])
                                     + " does not fit " + typeName(*forced) + " blocks of " + std::to_string(blockSizeOf(*forced)),
                                 tensor.infoOffset, {}};
                type = *forced;
                entry.manual = true;
                entry.note = std::string(role == Role::Output ? "--output-tensor-type " : "--token-embedding-type ") + typeName(type);
            } else if (isQuantizedType(defaultType)) {
                if (const TensorTypeRule* rule = rules->match(tensor.name)) {
                    type = rule->typeId;
                    entry.manual = true;
                    entry.note = "rule " + formatTensorTypeRule(*rule);
                } else if (!options.pure) {
                    auto chosen = presetRules(state, type, tensor, role);
                    if (!chosen)
                        return chosen.error();
                    type = *chosen;
                }
                auto fitted = fallbackType(tensor, type, entry);
                if (!fitted)
                    return fitted.error();
                type = *fitted;
            }
            entry.typeId = type;
            entry.requiresImatrix = needsImatrix(tensor.name, type, state.ftype);
            if (entry.requiresImatrix && !options.hasImatrix && recipe.refusal.empty())
                recipe.refusal = "this quantization requires an importance matrix! offending tensor: " + std::string(tensor.name)
                               + ", target type: " + typeName(type);
        }
        entry.converted = entry.typeId != tensor.typeId;
        entry.bytes = outputBytes(tensor, entry.typeId);
        recipe.fallbackCount += entry.fellBack;
        recipe.totalBytes += entry.bytes;
        recipe.totalElements += tensor.elementCount();
        recipe.tensors.push_back(std::move(entry));
    }
    return recipe;
}

std::shared_ptr<const std::unordered_map<std::string, std::uint32_t>> recipeTypeMap(const Recipe& recipe)
{
    auto types = std::make_shared<std::unordered_map<std::string, std::uint32_t>>();
    for (const RecipeTensor& entry : recipe.tensors)
        if (entry.converted && entry.source)
            (*types)[std::string(entry.source->name)] = entry.typeId;
    return types;
}

}  // namespace gguf
