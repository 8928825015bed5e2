#include "core/sensitivity/ScanFingerprint.h"

#include "core/base/Sha256.h"

#include <algorithm>

namespace gguf {

namespace {

void hashText(Sha256& hash, std::string_view text)
{
    const std::uint64_t size = text.size();
    hash.update(&size, sizeof size);
    hash.update(text.data(), text.size());
}

template <typename V>
void hashValue(Sha256& hash, V value)
{
    hash.update(&value, sizeof value);
}

// The tensor index as the whole fingerprint has always hashed it.
void hashTensorIndex(Sha256& hash, const Model& model)
{
    for (const TensorInfo& tensor : model.tensors()) {
        hashText(hash, tensor.name);
        hashValue(hash, tensor.typeId);
        for (const std::int64_t n : tensor.ne)
            hashValue(hash, n);
        hashValue(hash, tensor.offset);
    }
}

// Each expert's weights of every group that has them.
void hashImportanceWeights(Sha256& hash, const Model& model, const std::vector<ScanGroup>& groups, const ImportanceLookup& importance,
                           bool markEachGroup)
{
    for (const ScanGroup& group : groups) {
        if (markEachGroup)
            hashValue(hash, static_cast<std::uint8_t>(group.hasImportance));
        if (!group.hasImportance || !importance)
            continue;
        const TensorInfo* tensor = model.findTensor(group.tensor);
        const std::size_t experts = tensor ? static_cast<std::size_t>(std::max<std::int64_t>(tensor->ne[2], 1)) : 0;
        for (std::size_t e = 0; e < experts; ++e) {
            const std::vector<float> weights = importance(group.tensor, e);
            if (markEachGroup)
                hashValue(hash, static_cast<std::uint64_t>(weights.size()));
            hash.update(weights.data(), weights.size() * sizeof(float));
        }
    }
}

std::string hexOf(Sha256& hash)
{
    return Sha256::toHex(hash.finish());
}

}  // namespace

std::string tensorShapesFingerprint(const Model& model)
{
    Sha256 hash;
    hashText(hash, "tensor shapes 1");
    for (const TensorInfo& tensor : model.tensors()) {
        hashText(hash, tensor.name);
        for (const std::int64_t n : tensor.ne)
            hashValue(hash, n);
    }
    return hexOf(hash);
}

std::string tensorIndexFingerprint(const Model& model)
{
    Sha256 hash;
    hashText(hash, "tensor index 1");
    hashTensorIndex(hash, model);
    return hexOf(hash);
}

std::string tokensFingerprint(std::span<const std::int32_t> tokens, std::int32_t bosToken)
{
    Sha256 hash;
    hashText(hash, "tokens 1");
    hashValue(hash, bosToken);
    hash.update(tokens.data(), tokens.size_bytes());
    return hexOf(hash);
}

std::string importanceFingerprint(const Model& model, const std::vector<ScanGroup>& groups, const ImportanceLookup& importance)
{
    Sha256 hash;
    hashText(hash, "importance 1");
    hashImportanceWeights(hash, model, groups, importance, true);
    return hexOf(hash);
}

std::string arithmeticFingerprint(std::string_view activations, std::string_view attention, bool accumulateInDouble)
{
    Sha256 hash;
    hashText(hash, "arithmetic 1");
    hashText(hash, activations);
    hashText(hash, attention);
    hashValue(hash, accumulateInDouble);
    return hexOf(hash);
}

std::string scanFingerprint(const Model& model, const ScanOptions& options, const ScanIdentity& identity, std::span<const std::int32_t> tokens,
                            const std::vector<ScanGroup>& groups, const std::vector<ProbeKey>& probes)
{
    Sha256 hash;
    hashText(hash, "gguf-explorer sensitivity scan 1");
    hashTensorIndex(hash, model);
    hashValue(hash, identity.chunkSize);
    hashValue(hash, options.bosToken);
    hashValue(hash, options.accumulateInDouble);
    hashText(hash, identity.activations);
    hashText(hash, identity.attention);
    for (std::int64_t i = 0; i < identity.tokens; ++i)
        hashValue(hash, tokens[static_cast<std::size_t>(i)]);
    for (const ProbeKey& probe : probes) {
        hashText(hash, groups[probe.group].tensor);
        hashValue(hash, probe.type);
    }
    hashImportanceWeights(hash, model, groups, options.importance, false);
    return hexOf(hash);
}

}  // namespace gguf
