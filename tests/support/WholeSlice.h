#pragma once
// The whole of one tensor of a model as the views take it (a SliceRef), for the GUI suites;
// invalid when the model has no tensor of that name.

#include "core/gguf/Model.h"
#include "ui/session/SliceRef.h"

#include <memory>

namespace testsupport {

inline SliceRef wholeSlice(const std::shared_ptr<const gguf::Model>& model, const char* name)
{
    SliceRef slice;
    const gguf::TensorInfo* tensor = model ? model->findTensor(name) : nullptr;
    if (!tensor)
        return slice;
    slice.model = model;
    slice.slice = gguf::wholeTensor(*tensor);
    return slice;
}

}  // namespace testsupport
