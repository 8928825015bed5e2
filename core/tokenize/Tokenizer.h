#pragma once
// A model's own tokenizer, built from its tokenizer.ggml.* metadata, giving the token ids
// llama.cpp gives (llama_tokenize). Families: SentencePiece-style BPE ("llama"), byte-level BPE
// with the pre-tokenizer named by tokenizer.ggml.pre ("gpt2"), WordPiece ("bert"). Any other
// tokenizer model or an unknown pre-tokenizer is an error naming it (token ids still work
// everywhere else). Immutable and cheap to copy; encode may run on several threads at once.

#include "core/base/Result.h"
#include "core/gguf/Model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class Tokenizer {
public:
    enum class Family { SentencePiece, BytePairEncoding, WordPiece };

    static Result<Tokenizer> fromModel(const Model& model);

    // The most text a caller should hand to encode at once. Encoding costs up to ~41 bytes of
    // memory per byte of text when the text is one long word (the BPE merge queue), so this
    // bounds one call at ~2.6 GB; ordinary text needs less than half of that.
    static constexpr std::size_t kMaxTextBytes = std::size_t(64) << 20;

    // `addSpecial`: BOS/EOS as tokenizer.ggml.add_bos_token/add_eos_token say (WordPiece: CLS
    // and SEP), as llama.cpp's common_tokenize(..., add_special, parse_special).
    // `parseSpecial`: text spelling a control token becomes that token.
    std::vector<std::int32_t> encode(std::string_view text, bool addSpecial, bool parseSpecial) const;

    Family family() const;
    // E.g. "byte-level BPE (pre-tokenizer qwen2)".
    std::string description() const;
    std::size_t vocabularySize() const;
    // The bytes token `id` stands for (llama_token_to_piece with special = true): "▁" back to
    // a space, byte tokens to their byte, byte-level characters to their bytes.
    std::string piece(std::int32_t id) const;

private:
    struct State;
    explicit Tokenizer(std::shared_ptr<const State> state) : m_state(std::move(state)) {}
    std::shared_ptr<const State> m_state;
};

}  // namespace gguf
