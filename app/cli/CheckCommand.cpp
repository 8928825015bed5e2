// `check FILE [--json] [--max-scale X]`: scans every tensor of a model for damaged blocks and
// prints each tensor's SHA-256 of its stored bytes. Exit status: 0 clean, 3 damage found, 1 when
// the model cannot be opened or a tensor cannot be read to the end, 2 for usage errors.

#include "Commands.h"
#include "core/base/HumanFormat.h"
#include "core/base/JsonWriter.h"
#include "core/gguf/MetadataFormat.h"
#include "ModelOpening.h"
#include "app/threads/ParallelRows.h"
#include "core/blocks/TensorCheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <span>

namespace {

constexpr int kExitDamaged = 3;
constexpr std::size_t kTextListedBlocks = 10;  // per tensor; a broken f16 tensor can have millions

const char* checkedName(gguf::CheckedContent checked)
{
    switch (checked) {
    case gguf::CheckedContent::Values: return "values";
    case gguf::CheckedContent::Scales: return "scales";
    case gguf::CheckedContent::Nothing: return "nothing";
    }
    return "?";
}

std::string statusText(const gguf::TensorCheckResult& result)
{
    if (result.error)
        return "UNREADABLE: " + gguf::escapeMessage(result.error->message);
    if (result.damaged())
        return "DAMAGED: " + std::to_string(result.damagedBlockCount) + " of " + std::to_string(result.blockCount) + " blocks";
    if (result.checked == gguf::CheckedContent::Nothing)
        return result.tensor->traits ? "ok (integers: nothing to scan)" : "not scanned (" + gguf::typeName(result.tensor->typeId) + ")";
    return "ok";
}

// The text report of one tensor: "<sha256>  <name>  <type>  <status>", then its damaged blocks.
std::string textReport(const gguf::TensorCheckResult& result, const gguf::Model& model)
{
    const gguf::TensorInfo& tensor = *result.tensor;
    const std::string hash = result.error ? std::string(64, '-') : gguf::Sha256::toHex(result.sha256);
    std::string out = hash + "  " + shown(tensor.name) + "  " + gguf::typeName(tensor.typeId) + "  " + statusText(result) + "\n";
    const std::string where = model.shards().size() > 1 ? " of " + shown(model.shards()[tensor.shard]->path()) : std::string();
    const std::size_t listed = std::min(result.damagedBlocks.size(), kTextListedBlocks);
    for (const gguf::DamagedBlock& block : std::span(result.damagedBlocks).first(listed))
        out += "    block " + std::to_string(block.block) + " at byte " + std::to_string(block.fileOffset) + where + ": " + block.field
             + " = " + gguf::formatFloat(block.value, false) + " (" + gguf::damageKindName(block.kind) + ")\n";
    if (listed < result.damagedBlockCount)
        out += "    ... and " + std::to_string(result.damagedBlockCount - listed) + " more damaged blocks (--json lists up to "
             + std::to_string(gguf::CheckOptions{}.maxListedBlocks) + ")\n";
    return out;
}

void jsonReport(gguf::JsonWriter& json, const gguf::TensorCheckResult& result)
{
    const gguf::TensorInfo& tensor = *result.tensor;
    json.beginObject();
    json.key("name"), json.value(tensor.name);
    json.key("type"), json.value(gguf::typeName(tensor.typeId));
    json.key("shard"), json.value(tensor.shard);
    json.key("file_offset"), json.value(tensor.fileOffset);
    json.key("nbytes"), json.value(tensor.nbytes);
    json.key("sha256");
    if (result.error)
        json.null();
    else
        json.value(gguf::Sha256::toHex(result.sha256));
    json.key("checked"), json.value(checkedName(result.checked));
    json.key("blocks"), json.value(result.blockCount);
    json.key("damaged_blocks"), json.value(result.damagedBlockCount);
    json.key("damage");
    json.beginArray();
    for (const gguf::DamagedBlock& block : result.damagedBlocks) {
        json.beginObject();
        json.key("block"), json.value(block.block);
        json.key("offset"), json.value(block.fileOffset);
        json.key("kind"), json.value(gguf::damageKindName(block.kind));
        json.key("field"), json.value(block.field);
        json.key("value"), json.value(block.value);
        json.endObject();
    }
    json.endArray();
    if (result.error)
        json.key("error"), json.value(result.error->toString());
    json.endObject();
}

}  // namespace

int runCheck(const std::vector<std::string>& words)
{
    const CliArguments args = CliArguments::parse(words, "check");
    if (!args.error.empty() || args.positionals.size() != 1)
        return reportFailure(args.error.empty() ? commandUsage("check") : args.error, 2);
    gguf::CheckOptions options;
    if (const auto text = args.value("--max-scale")) {
        char* end = nullptr;
        options.maxScale = std::strtod(text->c_str(), &end);
        if (text->empty() || *end != '\0' || !std::isfinite(options.maxScale) || options.maxScale <= 0)
            return reportFailure("--max-scale needs a positive number, not '" + *text + "'", 2);
    }
    const auto model = openModelOrReport(args.positionals[0]);
    if (!model)
        return 1;

    // Tensors are checked in parallel; text lines are printed in tensor order as soon as every
    // tensor before them is done, so a long check shows progress.
    const std::vector<gguf::TensorInfo>& tensors = model->tensors();
    std::vector<gguf::TensorCheckResult> results(tensors.size());
    const bool asJson = args.has("--json");
    std::mutex printMutex;
    std::vector<bool> done(tensors.size(), false);
    std::size_t printed = 0;
    gguf::ParallelRows::shared().run(tensors.size(), [&](std::size_t i) {
        results[i] = gguf::checkTensor(tensors[i], options);
        const std::lock_guard lock(printMutex);
        done[i] = true;
        for (; !asJson && printed < tensors.size() && done[printed]; ++printed)
            writeStdout(textReport(results[printed], *model));
        std::fflush(stdout);
    });

    // Damage found in bytes that changed meanwhile is not damage of the file: say what happened.
    if (!inputsUnchangedOrReport())
        return 1;
    std::uint64_t damagedTensors = 0, damagedBlocks = 0, unreadable = 0, bytes = 0;
    for (const gguf::TensorCheckResult& result : results) {
        damagedTensors += result.damaged();
        damagedBlocks += result.damagedBlockCount;
        unreadable += result.error.has_value();
        bytes += result.tensor->nbytes;
    }
    std::string out;
    if (asJson) {
        gguf::JsonWriter json(out);
        json.beginObject();
        json.key("file"), json.value(args.positionals[0]);
        json.key("shards");
        json.beginArray();
        for (const auto& shard : model->shards())
            json.value(shard->path());
        json.endArray();
        json.key("max_scale"), json.value(options.maxScale);
        json.key("tensors");
        json.beginArray();
        for (const gguf::TensorCheckResult& result : results)
            jsonReport(json, result);
        json.endArray();
        json.key("tensor_count"), json.value(static_cast<std::uint64_t>(results.size()));
        json.key("damaged_tensors"), json.value(damagedTensors);
        json.key("damaged_blocks"), json.value(damagedBlocks);
        json.key("unreadable_tensors"), json.value(unreadable);
        json.key("clean"), json.value(damagedTensors == 0 && unreadable == 0);
        json.endObject();
        out += '\n';
    } else {
        out = "checked " + std::to_string(results.size()) + " tensors (" + gguf::formatBytes(bytes) + "): "
            + std::to_string(damagedBlocks) + " damaged blocks in " + std::to_string(damagedTensors) + " tensors"
            + (unreadable ? ", " + std::to_string(unreadable) + " tensors unreadable" : std::string()) + "\n";
    }
    writeStdout(out);
    if (unreadable)
        return 1;
    return damagedTensors ? kExitDamaged : 0;
}
