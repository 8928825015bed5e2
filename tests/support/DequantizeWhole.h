#pragma once
// A whole tensor through the core's dequantizer, for suites that compare every value.

#include "core/gguf/TensorInfo.h"
#include "core/gguf/Dequantize.h"

#include <QtGlobal>

#include <vector>

namespace testsupport {

// Every value of `tensor` as f32 in storage order; empty after a warning naming the failure.
inline std::vector<float> dequantizeWhole(const gguf::TensorInfo& tensor)
{
    std::vector<float> values(tensor.elementCount());
    if (gguf::Status status = gguf::dequantizeRows(tensor, 0, tensor.rowCount(), values); !status) {
        qWarning("%s", status.error().toString().c_str());
        values.clear();
    }
    return values;
}

}  // namespace testsupport
