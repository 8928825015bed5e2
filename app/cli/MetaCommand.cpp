#include "Commands.h"
#include "core/gguf/MetadataFormat.h"
#include "MetaEditOptions.h"
#include "ModelOpening.h"
#include "core/base/HumanFormat.h"
#include "core/edit/ModelSaver.h"

#include <cstdio>

namespace {
// meta FILE --set ... -o OUT: the edited copy is written; nothing goes to standard output, which
// may be the output (-o -).
int saveEdited(const gguf::Model& model, const MetaEditOptions& options)
{
    if (!options.hasOutput)
        return reportFailure("meta: --set, --delete and --set-file need -o OUT (the input is never changed)", 2);
    auto edits = buildEdits(model, options.requests);
    if (!edits)
        return reportFailure(edits.error().toString(), 2);
    const auto report = gguf::saveModelAs(model, *edits, options.output);
    if (!report)
        return reportFailure(report.error().toString());
    inputsVerified() = true;  // the save checked the inputs before it committed
    std::string paths;
    for (const std::string& path : report->paths)
        paths += (paths.empty() ? "" : ", ") + shown(path);
    std::fprintf(stderr, "gguf-explorer-cli: wrote %s (%zu metadata change%s, %s, tensor data copied by %s)\n", paths.c_str(),
                 edits->changes().size(), edits->changes().size() == 1 ? "" : "s", gguf::formatBytes(report->bytesWritten).c_str(),
                 gguf::FileRangeCopy::methodName(report->copyMethod));
    return 0;
}
}  // namespace

int runMeta(const std::vector<std::string>& words)
{
    const MetaEditOptions edit = MetaEditOptions::extract(words);
    if (!edit.error.empty())
        return reportFailure(edit.error, 2);
    const CliArguments args = CliArguments::parse(edit.otherWords, "meta");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("meta") : args.error, 2);
    if (edit.editing() && args.has("--json"))
        return reportFailure("meta: --json lists the metadata; it does not go with -o", 2);
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;
    if (edit.editing())
        return saveEdited(*model, edit);

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
