#include "Commands.h"
#include "core/base/HumanFormat.h"
#include "core/base/JsonWriter.h"
#include "ModelOpening.h"
#include "core/base/UserPattern.h"
#include "core/gguf/CompanionScales.h"

#include <cstdio>

namespace {
std::string shapeText(const gguf::TensorInfo& tensor)
{
    if (tensor.nDims == 0)
        return "scalar";
    std::string text = "[";
    for (std::uint32_t d = 0; d < tensor.nDims; ++d)
        text += (d ? ", " : "") + std::to_string(tensor.ne[d]);
    return text + "]";
}
}  // namespace

int runTensors(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "tensors");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("tensors") : args.error, 2);
    std::optional<gguf::UserPattern> filter;
    if (const auto pattern = args.value("--filter")) {
        auto compiled = gguf::UserPattern::compile(*pattern);
        if (!compiled)
            return reportFailure("--filter: " + compiled.error().message, 2);
        filter = std::move(*compiled);
    }
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;

    const bool asJson = args.has("--json");
    std::string out;
    gguf::JsonWriter json(out);
    if (asJson)
        json.beginArray();
    const auto find = [&](std::string_view name) { return model->findTensor(name); };
    for (const gguf::TensorInfo& tensor : model->tensors()) {
        if (filter && !filter->foundIn(tensor.name))
            continue;
        // A companion scale changes the values every view shows (CompanionScales.h).
        const std::string companions = gguf::companionSummary(tensor, std::nullopt, find);
        if (asJson) {
            json.beginObject();
            json.key("name"), json.value(tensor.name);
            json.key("type"), json.value(gguf::typeName(tensor.typeId));
            json.key("type_id"), json.value(tensor.typeId);
            json.key("ne");
            json.beginArray();
            for (std::uint32_t d = 0; d < tensor.nDims; ++d)
                json.value(static_cast<std::int64_t>(tensor.ne[d]));
            json.endArray();
            json.key("offset"), json.value(tensor.offset);
            json.key("nbytes"), json.value(tensor.nbytes);
            json.key("elements"), json.value(tensor.elementCount());
            if (tensor.traits)
                json.key("bits_per_weight"), json.value(tensor.traits->bitsPerWeight());
            if (model->shards().size() > 1)
                json.key("shard"), json.value(tensor.shard);
            if (!companions.empty())
                json.key("companions"), json.value(companions);
            json.endObject();
        } else {
            char line[512];
            std::snprintf(line, sizeof line, "%-48s %-16s %-24s %12s  offset %llu\n", shown(tensor.name).c_str(),
                          gguf::typeName(tensor.typeId).c_str(), shapeText(tensor).c_str(), gguf::formatBytes(tensor.nbytes).c_str(),
                          static_cast<unsigned long long>(tensor.offset));
            out += line;
            if (!companions.empty())
                out += "    " + companions + "\n";
        }
    }
    if (asJson) {
        json.endArray();
        out += '\n';
    }
    writeStdout(out);
    return 0;
}
