#pragma once
// Whether two files are the same model at different precisions, so that comparing them means
// something: same general.architecture and the same tensor names. Shapes and types may differ
// (that is what a comparison shows).

#include "core/gguf/Model.h"

#include <string>

namespace gguf {

// Empty when `candidate` fits `reference`; otherwise a sentence saying why not, naming an example
// tensor, e.g. "architecture is llama-moe, not llama".
std::string whyNotComparable(const Model& candidate, const Model& reference);

}  // namespace gguf
