// LFM2 (src/models/lfm2.cpp): a hybrid whose layers without KV heads (head_count_kv[il] = 0) mix
// tokens with a gated short convolution (ShortConvStep.h, shortconv.l_cache taps) and the others
// with GQA (per-head RMS QK-norm, NEOX rope, scale 1/sqrt(head size)); every layer then runs the
// dense SwiGLU FFN. The final norm is stored as token_embd_norm.

#include "core/forward/BlockDescription.h"

namespace gguf {

const BlockDescription& lfm2BlockDescription()
{
    static const BlockDescription description{
        .architecture = "lfm2",
        .rope = RopePairing::Halves,
        .allowsQkNorm = true,
        .hybrid = {.recurrentMixer = RecurrentMixer::ShortConv, .recurrentWhereNoKvHeads = true, .outputNorm = "token_embd_norm"},
    };
    return description;
}

}  // namespace gguf
