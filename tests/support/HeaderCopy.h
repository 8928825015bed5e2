#pragma once
// A copy of a model's header with metadata edits over it, for suites that read only the header
// (hyper-parameters, shapes) of hundreds of edited copies: written by the project's GgufWriter
// (core/write) with the metadata of the original, the edits applied (core/edit's MetadataEdits),
// every tensor with its name, type and shape, and zeros for data; without the fsync of Save As.

#include "core/edit/MetadataEdits.h"
#include "core/gguf/Model.h"
#include "core/write/GgufWriter.h"
#include "SmallModels.h"

#include <algorithm>
#include <string>
#include <vector>

namespace testsupport {

// Writes `path` and returns the error text, empty on success.
inline std::string writeHeaderCopy(const gguf::Model& model, const gguf::MetadataEdits& edits, const std::string& path)
{
    gguf::GgufWriter writer;
    if (gguf::Status copied = writer.copyMetadata(model.primary()); !copied)
        return copied.error().toString();
    for (const gguf::MetadataEdits::Change& change : edits.changes()) {
        if (change.value)
            writer.setValue(change.key, *change.value);
        else
            writer.removeValue(change.key);
    }
    for (const gguf::TensorInfo& tensor : model.tensors()) {
        const std::uint64_t bytes = tensor.nbytes;
        const gguf::Status added = writer.addTensor(gguf::TensorSpec{std::string(tensor.name), tensor.typeId, {tensor.ne.begin(), tensor.ne.begin() + tensor.nDims}},
                                                    [bytes](gguf::ByteSink& out) {
                                                        static const std::vector<char> zeros(1 << 16);
                                                        for (std::uint64_t done = 0; done < bytes;) {
                                                            const std::uint64_t n = std::min<std::uint64_t>(zeros.size(), bytes - done);
                                                            if (gguf::Status s = out.write(zeros.data(), n); !s)
                                                                return s;
                                                            done += n;
                                                        }
                                                        return gguf::Status(gguf::Ok{});
                                                    });
        if (!added)
            return added.error().toString();
    }
    return writeWithoutSync(writer, path);
}

}  // namespace testsupport
