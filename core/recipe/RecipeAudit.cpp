#include "core/recipe/RecipeAudit.h"

#include "core/gguf/MetadataFormat.h"
#include "core/types/LlamaFileType.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace gguf {

namespace {

bool isSeparator(char c)
{
    return c == '-' || c == '_' || c == '.' || c == ' ';
}

std::string upper(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
    return out;
}

std::string baseName(const std::string& path)
{
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string presetName(const QuantPreset* preset)
{
    return preset ? std::string(preset->name) : std::string();
}

}  // namespace

const QuantPreset* presetInFileName(std::string_view fileName)
{
    const std::string name = upper(fileName);
    const QuantPreset* best = nullptr;
    for (const QuantPreset& preset : quantPresets()) {
        const std::string wanted = upper(preset.name);
        for (std::size_t at = name.find(wanted); at != std::string::npos; at = name.find(wanted, at + 1)) {
            const bool startOk = at == 0 || isSeparator(name[at - 1]);
            const std::size_t end = at + wanted.size();
            const bool endOk = end == name.size() || isSeparator(name[end]);
            if (startOk && endOk && (!best || preset.name.size() > best->name.size()))
                best = &preset;
        }
    }
    return best;
}

RecipeAudit auditRecipe(const Model& model)
{
    RecipeAudit audit;
    audit.fileName = baseName(model.primary().path());
    audit.fileType = model.metadataUInt("general.file_type");
    if (audit.fileType) {
        audit.fileTypeName = std::string(llamaFileTypeName(*audit.fileType));
        audit.labelPreset = presetForFileType(*audit.fileType);
    }
    audit.namePreset = presetInFileName(audit.fileName);
    for (const MetadataEntry& entry : model.metadata())
        if (entry.key.substr(0, 17) == "quantize.imatrix.")
            audit.imatrixKeys.emplace_back(std::string(entry.key), formatValue(entry.value));
    audit.assumedImatrix = !audit.imatrixKeys.empty();

    std::map<std::uint32_t, std::uint64_t> bytesByType;
    std::uint64_t quantizableBytes = 0;
    for (const TensorInfo& tensor : model.tensors())
        if (llamaQuantizeAllows(tensor.name, tensor.nDims)) {
            bytesByType[tensor.typeId] += tensor.nbytes;
            quantizableBytes += tensor.nbytes;
        }
    std::uint64_t dominantBytes = 0;
    for (const auto& [type, bytes] : bytesByType)
        if (bytes > dominantBytes) {
            audit.dominantType = type;
            dominantBytes = bytes;
        }
    if (quantizableBytes)
        audit.dominantShare = double(dominantBytes) / double(quantizableBytes);

    auto& findings = audit.findings;
    if (!audit.fileType)
        findings.push_back("general.file_type is not set");
    else if (!audit.labelPreset)
        findings.push_back("general.file_type " + std::to_string(*audit.fileType)
                           + (audit.fileTypeName.empty() ? " is not a llama_ftype" : " (" + audit.fileTypeName + ") is no preset llama-quantize offers"));
    if (audit.namePreset && audit.labelPreset && audit.namePreset->fileType != audit.labelPreset->fileType)
        findings.push_back("the file name says " + presetName(audit.namePreset) + " but general.file_type says "
                           + presetName(audit.labelPreset));
    if (!bytesByType.empty()) {
        const std::uint32_t expectedMain = audit.labelPreset ? typeIdValue(audit.labelPreset->defaultType) : audit.dominantType;
        if (audit.labelPreset && expectedMain != audit.dominantType)
            findings.push_back("most weights are " + typeName(audit.dominantType) + ", not " + typeName(expectedMain)
                               + " as " + presetName(audit.labelPreset) + " would start from");
    }

    audit.comparedPreset = audit.labelPreset ? audit.labelPreset : audit.namePreset;
    if (audit.comparedPreset) {
        RecipeOptions options;
        options.preset = audit.comparedPreset;
        options.hasImatrix = audit.assumedImatrix;
        auto recipe = computeRecipe(readModelShape(model), model.tensors(), options);
        if (!recipe) {
            audit.expectedError = recipe.error().message;
            findings.push_back("llama-quantize would fail on this model as " + presetName(audit.comparedPreset) + ": " + audit.expectedError);
        } else {
            for (const RecipeTensor& tensor : recipe->tensors)
                if (tensor.typeId != tensor.source->typeId)
                    audit.differences.push_back({std::string(tensor.source->name), tensor.source->typeId, tensor.typeId});
            audit.expected = std::move(*recipe);
            if (audit.differences.empty())
                findings.push_back("every tensor has the type llama-quantize gives it for " + presetName(audit.comparedPreset)
                                   + (audit.assumedImatrix ? " with an imatrix" : ""));
            else
                findings.push_back(std::to_string(audit.differences.size()) + " of " + std::to_string(model.tensors().size())
                                   + " tensors differ from what llama-quantize would choose for "
                                   + presetName(audit.comparedPreset) + (audit.assumedImatrix ? " with an imatrix" : ""));
        }
    }
    findings.push_back(audit.assumedImatrix ? "quantized with an importance matrix (quantize.imatrix.* keys)"
                                            : "no quantize.imatrix.* keys: no record of an importance matrix");
    return audit;
}

}  // namespace gguf
