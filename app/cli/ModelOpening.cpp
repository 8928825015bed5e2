#include "ModelOpening.h"

#include "core/base/EscapedText.h"
#include "core/base/HumanFormat.h"
#include "core/gguf/RemoteRegion.h"
#include "core/remote/RemoteModel.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

std::vector<std::shared_ptr<const gguf::Model>>& openedModels()
{
    static std::vector<std::shared_ptr<const gguf::Model>> models;
    return models;
}

std::shared_ptr<const gguf::Model> openModelOrReport(const std::string& path)
{
    auto model = gguf::remote::openAnyModel(path);
    if (!model) {
        reportFailure(model.error().toString());
        return nullptr;
    }
    openedModels().push_back(model.value());
    return model.value();
}

bool& inputsVerified()
{
    static bool verified = false;
    return verified;
}

bool inputsUnchangedOrReport()
{
    for (const auto& model : openedModels())
        if (gguf::Status unchanged = model->checkUnchanged(); !unchanged) {
            reportFailure(unchanged.error().toString());
            return false;
        }
    inputsVerified() = true;
    return true;
}

std::string shown(std::string_view text)
{
    return gguf::escapeForDisplay(text);
}

void announceRemoteFetch(const std::vector<gguf::TensorSlice>& slices)
{
    std::uint64_t bytes = 0;
    for (const gguf::TensorSlice& slice : slices) {
        const std::uint64_t rowBytes = slice.tensor->rowBytes();
        bytes += gguf::mappedBytesToFetch(slice.tensor->data + slice.firstRow * rowBytes, slice.rowCount * rowBytes);
    }
    if (bytes > 0)
        std::fprintf(stderr, "gguf-explorer-cli: fetching %s of tensor data from the server\n", gguf::formatBytes(bytes).c_str());
}

std::vector<gguf::TensorSlice> selectSlicesOrReport(const gguf::Model& model, const std::string& name, const CliArguments& args)
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

void writeStdout(const std::string& text)
{
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
        rememberStandardOutputError(errno);  // main() reports it once the command is done
}
