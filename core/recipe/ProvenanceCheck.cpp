#include "core/recipe/ProvenanceCheck.h"

#include "core/base/HumanFormat.h"
#include "core/gguf/RemoteRegion.h"
#include "core/quantize/ConversionSteps.h"
#include "core/recipe/ModelShape.h"
#include "core/recipe/RecipeAudit.h"
#include "core/recipe/RecipeTensorData.h"
#include "core/write/ByteSink.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

namespace gguf {

namespace {

std::string baseName(const std::string& path)
{
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string shapeText(const TensorInfo& tensor)
{
    std::string text = "[";
    for (std::uint32_t d = 0; d < std::max<std::uint32_t>(tensor.nDims, 1); ++d)
        text += (d ? ", " : "") + std::to_string(tensor.ne[d]);
    return text + "]";
}

bool sameShape(const TensorInfo& a, const TensorInfo& b)
{
    return std::max<std::uint32_t>(a.nDims, 1) == std::max<std::uint32_t>(b.nDims, 1) && a.ne == b.ne;
}

// Takes the bytes llama-quantize would write for one tensor and compares them with the file's
// bytes of that tensor as they come; the first differing byte stops the producer (write fails).
class ComparingSink final : public ByteSink {
public:
    explicit ComparingSink(const TensorInfo& stored) : m_stored(stored) {}

    Status write(const void* data, std::size_t size) override
    {
        const auto* expected = static_cast<const std::uint8_t*>(data);
        const std::uint64_t left = m_stored.nbytes - std::min(m_position, m_stored.nbytes);
        const std::size_t compared = static_cast<std::size_t>(std::min<std::uint64_t>(size, left));
        const std::uint8_t* stored = m_stored.data + m_position;
        if (Status s = ensureMappedBytes(stored, compared); !s)
            return s;
        // Writes hold whole blocks of the tensor's type, so a big-endian file's blocks swap in place.
        if (m_stored.bigEndian && m_stored.traits && m_stored.traits->swapBlock) {
            m_buffer.assign(stored, stored + compared);
            for (std::size_t b = 0; b + m_stored.traits->blockBytes <= compared; b += m_stored.traits->blockBytes)
                m_stored.traits->swapBlock(m_buffer.data() + b);
            stored = m_buffer.data();
        }
        const auto differs = std::mismatch(expected, expected + compared, stored);
        if (differs.first != expected + compared || compared < size) {
            m_mismatch = m_position + static_cast<std::uint64_t>(differs.first - expected);
            return Error{"the bytes differ", Error::kNoOffset, {}};
        }
        m_position += size;
        return Ok{};
    }
    Status commit() override { return Ok{}; }

    std::uint64_t position() const { return m_position; }
    const std::optional<std::uint64_t>& mismatch() const { return m_mismatch; }

private:
    const TensorInfo& m_stored;
    std::uint64_t m_position = 0;
    std::optional<std::uint64_t> m_mismatch;
    std::vector<std::uint8_t> m_buffer;
};

// The preset to compare against and where it came from, or why none is known.
Result<std::pair<const QuantPreset*, std::string>> choosePreset(const Model& file, const ProvenanceOptions& options)
{
    if (options.preset)
        return std::pair{options.preset, std::string("given")};
    const auto fileType = file.metadataUInt("general.file_type");
    if (fileType)
        if (const QuantPreset* preset = presetForFileType(*fileType))
            return std::pair{preset, std::string("general.file_type")};
    if (const QuantPreset* preset = presetInFileName(baseName(file.primary().path())))
        return std::pair{preset, std::string("file name")};
    return Error{"cannot tell which llama-quantize preset " + baseName(file.primary().path()) + " claims to be: general.file_type "
                     + (fileType ? std::to_string(*fileType) + " names no preset" : std::string("is not set"))
                     + " and the file name names none; give the preset",
                 Error::kNoOffset, file.primary().path()};
}

ProvenanceDifference difference(ProvenanceDifferenceKind kind, std::string_view tensor, std::string message)
{
    ProvenanceDifference d;
    d.kind = kind;
    d.tensor = std::string(tensor);
    d.message = std::move(message);
    return d;
}

// Missing, Shape, Type, Extra and Order: everything that needs no tensor data.
void compareLayout(const Model& file, const Recipe& recipe, ProvenanceCheck& check)
{
    const std::string presetName(recipe.preset->name);
    auto note = [&check](ProvenanceDifference d) {
        if (!check.firstDifference)
            check.firstDifference = std::move(d);
    };
    std::unordered_set<std::string_view> written;
    for (const RecipeTensor& entry : recipe.tensors) {
        const TensorInfo& source = *entry.source;
        written.insert(source.name);
        const TensorInfo* stored = file.findTensor(source.name);
        if (!stored) {
            auto d = difference(ProvenanceDifferenceKind::Missing, source.name,
                                "llama-quantize writes " + std::string(source.name) + " (" + typeName(entry.typeId) + " for "
                                    + presetName + "), which the file does not have");
            d.expectedType = entry.typeId;
            note(std::move(d));
        } else if (!sameShape(*stored, source)) {
            ++check.typeDifferences;
            auto d = difference(ProvenanceDifferenceKind::Shape, source.name,
                                std::string(source.name) + " is " + shapeText(*stored) + " in the file and " + shapeText(source) + " in the source");
            d.fileType = stored->typeId;
            d.expectedType = entry.typeId;
            note(std::move(d));
        } else if (stored->typeId != entry.typeId) {
            ++check.typeDifferences;
            auto d = difference(ProvenanceDifferenceKind::Type, source.name,
                                std::string(source.name) + " is " + typeName(stored->typeId) + " in the file; llama-quantize makes "
                                    + typeName(entry.typeId) + " of it for " + presetName
                                    + (entry.note.empty() || !entry.fellBack ? std::string() : " (" + entry.note + ")"));
            d.fileType = stored->typeId;
            d.expectedType = entry.typeId;
            note(std::move(d));
        }
    }
    for (const TensorInfo& stored : file.tensors())
        if (!written.count(stored.name)) {
            auto d = difference(ProvenanceDifferenceKind::Extra, stored.name,
                                "the file has " + std::string(stored.name) + ", which llama-quantize does not write from this source");
            d.fileType = stored.typeId;
            note(std::move(d));
        }
    if (check.firstDifference)
        return;
    for (std::size_t i = 0; i < recipe.tensors.size() && i < file.tensors().size(); ++i) {
        const TensorInfo& stored = file.tensors()[i];
        const std::string_view expected = recipe.tensors[i].source->name;
        if (stored.name != expected) {
            auto d = difference(ProvenanceDifferenceKind::Order, stored.name,
                                std::string(stored.name) + " is tensor " + std::to_string(i) + " of the file; llama-quantize writes "
                                    + std::string(expected) + " there (by layer, then by name)");
            d.fileType = stored.typeId;
            d.expectedType = stored.typeId;
            note(std::move(d));
            return;
        }
    }
}

}  // namespace

const char* provenanceDifferenceName(ProvenanceDifferenceKind kind)
{
    switch (kind) {
    case ProvenanceDifferenceKind::Missing: return "missing";
    case ProvenanceDifferenceKind::Extra: return "extra";
    case ProvenanceDifferenceKind::Shape: return "shape";
    case ProvenanceDifferenceKind::Type: return "type";
    case ProvenanceDifferenceKind::Order: return "order";
    case ProvenanceDifferenceKind::Data: return "data";
    }
    return "unknown";
}

Result<ProvenanceCheck> checkProvenance(const Model& file, const Model& source, const ProvenanceOptions& options)
{
    auto chosen = choosePreset(file, options);
    if (!chosen)
        return chosen.error();
    ProvenanceCheck check;
    check.preset = chosen->first;
    check.presetFrom = chosen->second;
    check.withImatrix = static_cast<bool>(options.conversion.importance);

    RecipeOptions recipeOptions = options.recipe;
    recipeOptions.preset = check.preset;
    recipeOptions.hasImatrix = check.withImatrix;
    auto recipe = computeRecipe(readModelShape(source), source.tensors(), recipeOptions);
    if (!recipe)
        return recipe.error();
    if (!recipe->refusal.empty() && !check.withImatrix)
        return Error{"llama-quantize would refuse " + std::string(check.preset->name) + " for the source without an importance matrix ("
                         + recipe->refusal + ")",
                     Error::kNoOffset, {}};
    check.tensorCount = recipe->tensors.size();

    compareLayout(file, *recipe, check);
    if (check.firstDifference)
        return check;

    for (const RecipeTensor& entry : recipe->tensors)
        if (Status s = checkRecipeTensor(source, entry, options.conversion); !s)
            return s.error();
    std::uint64_t totalElements = 0;
    for (const RecipeTensor& entry : recipe->tensors)
        totalElements += entry.source->elementCount();
    ConversionProgress progress(options.conversion.progress, options.conversion.cancel, totalElements);

    for (const RecipeTensor& entry : recipe->tensors) {
        const TensorInfo& stored = *file.findTensor(entry.source->name);
        ComparingSink sink(stored);
        const Status written = writeRecipeTensor(entry, sink, options.conversion, progress);
        const std::optional<std::uint64_t> at = sink.mismatch() ? sink.mismatch()
                                              : written && sink.position() != stored.nbytes ? std::optional{sink.position()}
                                                                                            : std::nullopt;
        if (at) {
            const std::uint64_t rowBytes = std::max<std::uint64_t>(stored.rowBytes(), 1);
            auto d = difference(ProvenanceDifferenceKind::Data, stored.name,
                                std::string(stored.name) + " (" + typeName(stored.typeId) + ") differs from llama-quantize's bytes at byte "
                                    + std::to_string(*at) + " of its data (row " + std::to_string(*at / rowBytes) + " of "
                                    + std::to_string(stored.rowCount()) + ")");
            d.fileType = stored.typeId;
            d.expectedType = entry.typeId;
            d.byteOffset = *at;
            d.row = *at / rowBytes;
            check.firstDifference = std::move(d);
            return check;
        }
        if (!written)
            return written.error();
        ++check.tensorsCompared;
        check.bytesCompared += stored.nbytes;
    }
    return check;
}

std::string provenanceVerdict(const ProvenanceCheck& check)
{
    if (check.firstDifference)
        return "not identical: " + check.firstDifference->message;
    const std::string preset = check.preset ? std::string(check.preset->name) : std::string("?");
    return "identical: every one of the " + std::to_string(check.tensorCount) + " tensors has the type, the place and the bytes ("
         + formatGrouped(check.bytesCompared) + " in all) llama-quantize " + preset + " gives it from this source"
         + (check.withImatrix ? " with this importance matrix" : "");
}

std::vector<std::string> provenanceDetails(const ProvenanceCheck& check)
{
    std::vector<std::string> lines;
    if (!check.firstDifference)
        return lines;
    if (check.typeDifferences > 1)
        lines.push_back(std::to_string(check.typeDifferences) + " tensors have another type or shape than llama-quantize gives them");
    if (check.firstDifference->kind == ProvenanceDifferenceKind::Data)
        lines.push_back("the " + std::to_string(check.tensorsCompared) + " tensors before it are identical");
    return lines;
}

std::string provenanceImatrixHint(const Model& file, const ProvenanceCheck& check)
{
    if (!check.firstDifference || check.firstDifference->kind != ProvenanceDifferenceKind::Data)
        return {};
    const std::string recorded = file.metadataString("quantize.imatrix.file");
    const bool hasRecord = file.findMetadata("quantize.imatrix.entries_count") != nullptr || !recorded.empty();
    if (hasRecord && !check.withImatrix)
        return "the file records an importance matrix (quantize.imatrix.file = " + recorded + "); give it with --imatrix";
    if (!hasRecord && check.withImatrix)
        return "the file records no importance matrix (no quantize.imatrix.* keys); try without --imatrix";
    return {};
}

}  // namespace gguf
