#include "Commands.h"
#include "gguf/MetadataFormat.h"
#include "ModelLoading.h"

#include <cstdio>

int runMeta(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, {}, {"--json"});
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? "usage: meta FILE [--json]" : args.error, 2);
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;

    std::string out;
    if (args.has("--json")) {
        gguf::JsonWriter json(out);
        json.beginObject();
        for (const gguf::MetadataEntry& entry : model->metadata()) {
            json.key(entry.key);
            json.beginObject();
            json.key("type");
            json.value(entry.value.typeName());
            json.key("value");
            gguf::writeValueJson(json, entry.value);
            json.endObject();
        }
        json.endObject();
        out += '\n';
    } else {
        for (const gguf::MetadataEntry& entry : model->metadata())
            out += gguf::escapeForDisplay(entry.key) + "  " + entry.value.typeName() + "  " + gguf::formatValue(entry.value) + "\n";
    }
    writeStdout(out);
    return 0;
}
