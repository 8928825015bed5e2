#pragma once
// Real big models as layouts: every tensor with its real name, shape and a plausible type, and
// the metadata llama.cpp needs to load them (a "none" tokenizer with the real vocabulary size),
// but no weights: the data section reads as zeros. A 671B model costs a few hundred kilobytes of
// header, so the memory estimate can be checked on the shapes that matter without the files.
// tests/data/estimate/README.md says how llama.cpp's figures for these layouts were measured.

#include "core/base/Result.h"
#include "core/gguf/Model.h"
#include "core/write/ByteSink.h"
#include "core/write/GgufWriter.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace testsupport {

struct LayoutTensor {
    std::string name;
    std::uint32_t typeId = 0;
    std::vector<std::int64_t> ne;
};

struct ModelLayout {
    std::string name;
    std::vector<std::pair<std::string, gguf::EncodedValue>> metadata;
    std::vector<LayoutTensor> tensors;

    std::uint64_t tensorBytes() const;
};

// "DeepSeek-V3", "gpt-oss-120b", "Qwen3-235B-A22B", "Gemma-3-27B".
std::vector<std::string> bigLayoutNames();
// The layout of that name; an empty layout (no tensors) for an unknown name.
ModelLayout bigLayout(const std::string& name);

// Writes the layout as a GGUF file through `sink`; each tensor's data is written as pieces of
// `zeros` (at most `zerosSize` bytes each), which a sink may turn into holes.
gguf::Status writeLayout(const ModelLayout& layout, gguf::ByteSink& sink, const char* zeros, std::size_t zerosSize);

// The layout opened as a model, from memory: its header, then zeros.
gguf::Result<std::shared_ptr<const gguf::Model>> openLayout(const ModelLayout& layout);

}  // namespace testsupport
