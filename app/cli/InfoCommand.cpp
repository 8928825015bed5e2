#include "Commands.h"
#include "core/base/HumanFormat.h"
#include "ModelOpening.h"
#include "core/remote/RemoteUrl.h"

#include <cstdio>

namespace {
// `info` prints scalars, strings and counts only, so a local file opens as a summary: the whole
// header is validated just the same, but the vocabulary and merges are not kept in memory
// (gguf::HeaderRetention). A URL opens as usual.
std::shared_ptr<const gguf::Model> openSummaryOrReport(const std::string& path)
{
    if (gguf::remote::isRemoteName(path))
        return openModelOrReport(path);
    auto model = gguf::Model::open(path, gguf::HeaderRetention::Summary);
    if (!model) {
        reportFailure(model.error().toString());
        return nullptr;
    }
    openedModels().push_back(model.value());
    return model.value();
}
}  // namespace

int runInfo(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "info");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("info") : args.error, 2);
    const auto model = openSummaryOrReport(args.positionals[0]);
    if (!model)
        return 1;

    const gguf::ModelSummary summary = model->summary();
    const gguf::GgufFile& primary = model->primary();
    std::printf("file:            %s", shown(primary.path()).c_str());
    if (model->shards().size() > 1)
        std::printf(" (%zu shards)", model->shards().size());
    std::printf("\nformat:          GGUF v%u, %s-endian%s, alignment %llu\n", primary.version(), primary.bigEndian() ? "big" : "little",
                primary.magic() == "FUGG" ? " (FUGG magic)" : "", static_cast<unsigned long long>(primary.alignment()));
    std::printf("architecture:    %s\n", summary.architecture.empty() ? "(not set)" : shown(summary.architecture).c_str());
    std::printf("name:            %s\n", summary.name.empty() ? "(not set)" : shown(summary.name).c_str());
    std::printf("parameters:      %s (%s)\n", gguf::formatCount(summary.parameterCount).c_str(),
                gguf::formatGrouped(summary.parameterCount).c_str());
    std::printf("file size:       %s (%s bytes)\n", gguf::formatBytes(summary.fileSize).c_str(), gguf::formatGrouped(summary.fileSize).c_str());
    std::printf("tensor data:     %s\n", gguf::formatBytes(summary.tensorBytes).c_str());
    std::printf("bits per weight: %.3f\n", summary.averageBitsPerWeight);
    std::printf("tensors:         %zu\n", model->tensors().size());
    std::printf("metadata keys:   %zu\n", model->metadata().size());
    const std::string arch = summary.architecture;
    for (const char* key : {"context_length", "block_count", "embedding_length", "expert_count", "expert_used_count"}) {
        if (const auto value = model->metadataUInt(arch + "." + key))
            std::printf("%-16s %llu\n", (std::string(key) + ":").c_str(), static_cast<unsigned long long>(*value));
    }
    std::printf("types:\n");
    for (const gguf::TypeTotal& total : summary.typeTotals) {
        const double bpw = total.elementCount ? 8.0 * static_cast<double>(total.byteCount) / static_cast<double>(total.elementCount) : 0.0;
        std::printf("  %-16s %6llu tensors  %12s elements  %12s  %6.3f bpw\n", gguf::typeName(total.typeId).c_str(),
                    static_cast<unsigned long long>(total.tensorCount), gguf::formatCount(total.elementCount).c_str(),
                    gguf::formatBytes(total.byteCount).c_str(), bpw);
    }
    return 0;
}
