#pragma once
// Opening the model and picking the slice that several commands share.

#include "CliArguments.h"
#include "Model.h"
#include "TensorSlice.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

// Opens `path` or reports why not (returns nullptr after printing the error).
inline std::shared_ptr<const gguf::Model> openModelOrReport(const std::string& path)
{
    auto model = gguf::Model::open(path);
    if (!model) {
        reportFailure(model.error().toString());
        return nullptr;
    }
    return model.value();
}

// The tensor named `name`, or expert N of it with `--expert N`; nullopt after printing the error.
inline std::optional<gguf::TensorSlice> selectSliceOrReport(const gguf::Model& model, const std::string& name, const CliArguments& args)
{
    const gguf::TensorInfo* tensor = model.findTensor(name);
    if (!tensor) {
        reportFailure("no tensor named '" + name + "' in " + model.primary().path());
        return std::nullopt;
    }
    const auto expert = args.value("--expert");
    if (!expert)
        return gguf::wholeTensor(*tensor);
    char* end = nullptr;
    const unsigned long long index = std::strtoull(expert->c_str(), &end, 10);
    if (expert->empty() || *end != '\0' || (*expert)[0] == '-') {
        reportFailure("--expert needs a non-negative whole number, not '" + *expert + "'");
        return std::nullopt;
    }
    auto slice = gguf::expertSlice(*tensor, index);
    if (!slice) {
        reportFailure(slice.error().message);
        return std::nullopt;
    }
    return slice.value();
}

inline void writeStdout(const std::string& text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
}
