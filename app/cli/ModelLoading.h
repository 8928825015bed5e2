#pragma once
// Opening the model and picking the slice that several commands share.

#include "CliArguments.h"
#include "Model.h"
#include "TensorSlice.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

// The tensor named `name`, or the experts of it listed by `--expert 3` or `--expert 3,5,7`;
// empty after printing the error.
inline std::vector<gguf::TensorSlice> selectSlicesOrReport(const gguf::Model& model, const std::string& name, const CliArguments& args)
{
    const gguf::TensorInfo* tensor = model.findTensor(name);
    if (!tensor) {
        reportFailure("no tensor named '" + name + "' in " + model.primary().path());
        return {};
    }
    const auto list = args.value("--expert");
    if (!list)
        return {gguf::wholeTensor(*tensor)};
    std::vector<gguf::TensorSlice> slices;
    std::size_t start = 0;
    while (start <= list->size()) {
        const std::size_t comma = std::min(list->find(',', start), list->size());
        const std::string item = list->substr(start, comma - start);
        char* end = nullptr;
        const unsigned long long index = std::strtoull(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || item[0] == '-' || item[0] == '+') {
            reportFailure("--expert needs non-negative whole numbers separated by commas, not '" + *list + "'");
            return {};
        }
        auto slice = gguf::expertSlice(*tensor, index);
        if (!slice) {
            reportFailure(slice.error().message);
            return {};
        }
        slices.push_back(slice.value());
        start = comma + 1;
    }
    return slices;
}

inline void writeStdout(const std::string& text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
}
