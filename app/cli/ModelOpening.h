#pragma once
// Opening the model and picking the slice that several commands share.

#include "CliArguments.h"
#include "CliOutput.h"
#include "core/base/EscapedText.h"
#include "core/gguf/Model.h"
#include "core/remote/RemoteModel.h"
#include "core/gguf/RemoteRegion.h"
#include "core/base/HumanFormat.h"
#include "core/experts/TensorSlice.h"

#include <cerrno>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// Every model this run opened, for the check at the end (main.cpp).
inline std::vector<std::shared_ptr<const gguf::Model>>& openedModels()
{
    static std::vector<std::shared_ptr<const gguf::Model>> models;
    return models;
}

// Opens `path` (a file, an http(s) URL or hf://owner/repo/file.gguf[@rev]) or reports why not
// (returns nullptr after printing the error).
inline std::shared_ptr<const gguf::Model> openModelOrReport(const std::string& path)
{
    auto model = gguf::remote::openAnyModel(path);
    if (!model) {
        reportFailure(model.error().toString());
        return nullptr;
    }
    openedModels().push_back(model.value());
    return model.value();
}

// True when every opened file is still the one that was read; else prints "the file changed
// on disk ..." and returns false. Commands call it after reading tensor data and before they
// print or commit results; main() calls it once more after every command.
// Set once a command has checked after its last read: what it then prints or commits was read
// from unchanged files, and a later change is not its business.
inline bool& inputsVerified()
{
    static bool verified = false;
    return verified;
}

inline bool inputsUnchangedOrReport()
{
    for (const auto& model : openedModels())
        if (gguf::Status unchanged = model->checkUnchanged(); !unchanged) {
            reportFailure(unchanged.error().toString());
            return false;
        }
    inputsVerified() = true;
    return true;
}

// Text from a file (names, keys, values) as it may be printed: no control characters.
inline std::string shown(std::string_view text)
{
    return gguf::escapeForDisplay(text);
}

// For a remote model: says on stderr how much tensor data the command is about to fetch.
inline void announceRemoteFetch(const std::vector<gguf::TensorSlice>& slices)
{
    std::uint64_t bytes = 0;
    for (const gguf::TensorSlice& slice : slices) {
        const std::uint64_t rowBytes = slice.tensor->rowBytes();
        bytes += gguf::mappedBytesToFetch(slice.tensor->data + slice.firstRow * rowBytes, slice.rowCount * rowBytes);
    }
    if (bytes > 0)
        std::fprintf(stderr, "gguf-explorer-cli: fetching %s of tensor data from the server\n", gguf::formatBytes(bytes).c_str());
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
    if (!list) {
        announceRemoteFetch({gguf::wholeTensor(*tensor)});
        return {gguf::wholeTensor(*tensor)};
    }
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
    announceRemoteFetch(slices);
    return slices;
}

inline void writeStdout(const std::string& text)
{
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
        rememberStandardOutputError(errno);  // main() reports it once the command is done
}
