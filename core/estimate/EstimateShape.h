#pragma once
// The hyperparameters the memory estimate needs, read from a model's header the way llama.cpp's
// loader reads them (llama_hparams): per-layer head counts and head sizes, which layers slide,
// which are recurrent, which share another layer's cache, MLA, the recurrent state sizes.

#include "core/base/Result.h"
#include "core/gguf/Model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct EstimateLayer {
    std::uint64_t heads = 0;
    std::uint64_t kvHeads = 0;
    std::uint64_t keyLength = 0;    // per head (n_embd_head_k, or its _swa twin on sliding layers)
    std::uint64_t valueLength = 0;  // per head
    bool slidingWindow = false;
    bool recurrent = false;   // a state-space / linear-attention layer: recurrent state, no KV
    bool ownsCache = true;    // false: reads the cache of an earlier layer (KV sharing)

    std::uint64_t keyRow() const { return kvHeads * keyLength; }      // n_embd_k_gqa
    std::uint64_t valueRow() const { return kvHeads * valueLength; }  // n_embd_v_gqa
};

struct EstimateShape {
    std::string architecture;
    std::uint64_t embedding = 0;   // n_embd
    std::uint64_t vocabulary = 0;  // n_vocab: the logits' width
    std::uint64_t slidingWindow = 0;
    bool mla = false;              // DeepSeek-style latent attention: the cache keeps K only
    std::uint64_t kvLoraRank = 0;
    std::uint64_t convState = 0;       // recurrent state per recurrent layer and sequence (n_embd_r)
    std::uint64_t ssmState = 0;        // (n_embd_s)
    std::vector<EstimateLayer> layers;
    bool exact = true;               // false where llama.cpp's rule for the architecture is not known
    std::vector<std::string> notes;  // why not, and what else is approximate

    bool hasSlidingLayers() const;
    bool hasFullLayers() const;  // attention layers without a window
};

Result<EstimateShape> readEstimateShape(const Model& model);

}  // namespace gguf
