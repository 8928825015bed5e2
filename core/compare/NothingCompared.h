#pragma once
// Why a comparison has no tensor to compare, in one sentence the CLI and the GUI both give when
// they refuse such a comparison (two different models, a filter that left only mismatches).

#include "core/compare/ModelComparison.h"

#include <string>

namespace gguf {

// True when at least one cell pairs a reference tensor with a decodable one of the same shape.
bool hasComparableCell(const ModelComparison& comparison);

// Every reason at once, with the first tensor of each kind, then the comparison's problems: a
// file whose tensors all have another shape must say so even when its architecture also differs.
std::string whyNothingCompared(const ModelComparison& comparison);

}  // namespace gguf
