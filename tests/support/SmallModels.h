#pragma once
// Small GGUF files written on the spot for the hostile-condition suites: f32 tensors filled with
// a known pattern, any metadata, names the writer would never choose (control characters, NUL).

#include "core/write/ByteSink.h"
#include "core/write/GgufWriter.h"

#include <fcntl.h>
#include <unistd.h>
#include <string>
#include <utility>
#include <vector>

namespace testsupport {

struct SmallTensor {
    std::string name;
    std::vector<std::int64_t> ne;  // f32
};

// What `writer` holds written to `path` (without fsync: the suites write thousands of these);
// the error text, empty on success.
inline std::string writeWithoutSync(const gguf::GgufWriter& writer, const std::string& path)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return "cannot create " + path;
    gguf::DescriptorSink sink(fd, path);
    const gguf::Status s = writer.write(sink);
    const bool closed = ::close(fd) == 0;
    if (!s)
        return s.error().toString();
    return closed ? std::string() : "cannot close " + path;
}

// Writes `path` (without fsync) and returns the error text, empty on success. Element i of every
// tensor is float(i % 251) / 8, so no value is NaN.
inline std::string writeSmallModel(const std::string& path, const std::vector<std::pair<std::string, gguf::EncodedValue>>& keys,
                                   const std::vector<SmallTensor>& tensors)
{
    gguf::GgufWriter writer;
    for (const auto& [key, value] : keys)
        writer.setValue(key, value);
    for (const SmallTensor& tensor : tensors) {
        std::uint64_t elements = 1;
        for (const std::int64_t n : tensor.ne)
            elements *= static_cast<std::uint64_t>(n);
        const gguf::Status added = writer.addTensor(gguf::TensorSpec{tensor.name, 0, tensor.ne}, [elements](gguf::ByteSink& out) {
            std::vector<float> values(elements);
            for (std::uint64_t i = 0; i < elements; ++i)
                values[i] = static_cast<float>(i % 251) / 8.0f;
            return out.write(values.data(), values.size() * sizeof(float));
        });
        if (!added)
            return added.error().toString();
    }
    return writeWithoutSync(writer, path);
}

}  // namespace testsupport
